import { conflict } from '@nbserve/core';
import { Notary } from '@nbserve/web';
import type { Context, Hono, Next } from 'hono';
import * as v from 'valibot';
import type { NbserveEnv } from '../../env.js';
import type { Services } from '../../services.js';
import { parseJsonBody } from '../../validate.js';
import { pagePath } from './page-response.js';

const notaries = new WeakMap<Services, Notary>();

/** The notary of one server instance (secret and signature database in its data dir). */
export function notaryOf(services: Services): Notary {
  let notary = notaries.get(services);
  if (!notary) {
    notary = new Notary(services.options.dataDir);
    notaries.set(services, notary);
  }
  return notary;
}

/** Optional body: sign only if the stored file still has this hash (the version the user saw). */
const TrustBody = v.optional(
  v.object({ hash: v.optional(v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/, 'hash must be a sha256 hex digest'))) }),
);

async function trust(c: Context<NbserveEnv>, next: Next) {
  const rel = c.get('relPath');
  if (!rel.endsWith('/trust')) return next();
  const path = pagePath(c, '/api/contents').replace(/\/?trust$/, '');
  const body = await parseJsonBody(c, TrustBody);
  const services = c.get('services');
  const model = await services.contents.get(path, { type: 'notebook', hash: true });
  if (body?.hash && model.hash !== body.hash) throw conflict(`File changed on disk since it was loaded: ${path}`);
  await notaryOf(services).sign(model.content);
  return c.body(null, 201);
}

/**
 * `POST /api/contents/<path>/trust` (reference §3.8): signs the notebook so its outputs (HTML with
 * scripts, JavaScript) may run when it is opened. Registered before the contents routes.
 */
export function registerTrustRoutes(app: Hono<NbserveEnv>): void {
  app.post('/api/contents/*', trust);
}
