import { badRequest, notFound } from '@nbserve/core';
import type { Context, Hono } from 'hono';
import * as v from 'valibot';
import type { NbserveEnv } from '../../env.js';
import { readBodyText } from '../../request-body.js';
import { parseWith } from '../../validate.js';

type Ctx = Context<NbserveEnv>;

/** More engines than this in one request is a typo (or an attack), not a cluster. */
const MAX_ENGINES = 1024;

/** `n` as the dashboards send it: a query or form value (text) or a JSON number. */
const EngineCount = v.union(
  [
    v.pipe(v.number(), v.safeInteger(), v.minValue(1), v.maxValue(MAX_ENGINES)),
    v.pipe(v.string(), v.regex(/^\s*\d{1,6}\s*$/), v.transform(Number), v.minValue(1), v.maxValue(MAX_ENGINES)),
  ],
  'n must be a positive integer',
);

const JsonBody = v.object({ n: v.optional(v.nullable(v.unknown())) }, 'The request body must be a JSON object');

/**
 * The IPython cluster API (ipcluster profiles: list, start, stop), served at both `/clusters` (where every
 * IPython and Notebook release had it) and `/api/clusters` (the spec's address).
 */
export function registerClusterRoutes(app: Hono<NbserveEnv>): void {
  for (const prefix of ['/clusters', '/api/clusters']) {
    app.get(prefix, async (c) => c.json(await c.get('services').clusters.list()));
    app.get(`${prefix}/:profile`, async (c) => c.json(await c.get('services').clusters.get(c.req.param('profile'))));
    app.post(`${prefix}/:profile/:action`, async (c) => {
      const clusters = c.get('services').clusters;
      const profile = c.req.param('profile');
      const action = c.req.param('action');
      if (action === 'start') return c.json(await clusters.start(profile, await engineCount(c)));
      if (action === 'stop') return c.json(await clusters.stop(profile));
      throw notFound(`Unknown cluster action: ${action}`);
    });
  }
}

/**
 * `n` from the query, a form body or a JSON body; absent or empty = the profile's default. A body
 * that cannot be read is a 400: a start must never fall back to the default by accident.
 */
async function engineCount(c: Ctx): Promise<number | undefined> {
  let raw: unknown = c.req.query('n');
  if (raw === undefined) {
    const type = c.req.header('content-type') ?? '';
    if (type.startsWith('application/x-www-form-urlencoded') || type.startsWith('multipart/form-data')) {
      let form: Record<string, unknown>;
      try {
        form = await c.req.parseBody();
      } catch {
        throw badRequest('Invalid form body');
      }
      raw = form.n;
    } else if (type.startsWith('application/json')) {
      const text = await readBodyText(c);
      if (text.trim() !== '') {
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          throw badRequest('Invalid JSON in body of request');
        }
        if (typeof json !== 'object' || json === null || Array.isArray(json)) {
          throw badRequest('The request body must be a JSON object');
        }
        raw = parseWith(JsonBody, json, 'request body').n;
      }
    }
  }
  if (raw === undefined || raw === null || raw === '') return undefined;
  const result = v.safeParse(EngineCount, raw);
  if (!result.success) {
    const shown = JSON.stringify(raw)?.slice(0, 40) ?? 'that';
    throw badRequest(`n must be a positive integer up to ${MAX_ENGINES}, not ${shown}`, 'bad value');
  }
  return result.output;
}
