import type { Context, Hono } from 'hono';
import * as v from 'valibot';
import type { NbserveEnv } from '../../env.js';
import { parseJsonBody, parseWith } from '../../validate.js';
import { pathSegmentsAfter } from '../contents-path.js';

type Ctx = Context<NbserveEnv>;

const PREFIX = '/lab/api/settings';

const SettingsBody = v.object(
  { raw: v.string("Invalid format for JSON payload. Must be in the form {'raw': ...}") },
  "Invalid format for JSON payload. Must be in the form {'raw': ...}",
);

const ListQuery = v.object({ ids_only: v.optional(v.string()) });

/** The plugin id after the prefix (`@jupyterlab/apputils-extension:themes`), its segments decoded. */
function pluginId(c: Ctx): string {
  return pathSegmentsAfter(c, PREFIX).join('/');
}

async function list(c: Ctx) {
  const { ids_only } = parseWith(ListQuery, c.req.query(), 'query');
  const settings = await (await c.get('services').lab.settings()).list(ids_only === 'true');
  return c.json({ settings });
}

/**
 * jupyterlab_server's settings API (https://jupyterlab-server.readthedocs.io/en/latest/api/rest.html):
 * `GET /lab/api/settings[?ids_only=true]` is `{settings: [...]}`, `GET …/<plugin id>` one plugin's
 * `{id, schema, version, raw, settings, last_modified, created}`, and `PUT …/<plugin id>` with
 * `{raw}` stores the raw JSON5 after validating it (204).
 */
export function registerLabSettingsRoutes(app: Hono<NbserveEnv>): void {
  app.get(PREFIX, list);
  app.get(`${PREFIX}/`, list);
  app.get(`${PREFIX}/*`, async (c) => {
    const store = await c.get('services').lab.settings();
    return c.json(await store.get(pluginId(c)));
  });
  app.put(`${PREFIX}/*`, async (c) => {
    const id = pluginId(c);
    const store = await c.get('services').lab.settings();
    const { raw } = await parseJsonBody(c, SettingsBody);
    await store.save(id, raw);
    return c.body(null, 204);
  });
}
