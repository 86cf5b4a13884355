import { badRequest, checkWorkspaceName } from '@nbserve/core';
import type { Context, Hono } from 'hono';
import type { NbserveEnv } from '../../env.js';
import { readBodyText } from '../../request-body.js';
import { pathSegmentsAfter } from '../contents-path.js';

type Ctx = Context<NbserveEnv>;

const PREFIX = '/lab/api/workspaces';

/** The one segment after the prefix, decoded; a name with `/` (encoded or not), `..` or NUL is a 400. */
function workspaceName(c: Ctx): string {
  let segments: string[];
  try {
    segments = pathSegmentsAfter(c, PREFIX);
  } catch {
    throw badRequest('Invalid workspace name: it may not contain /', 'bad name');
  }
  if (segments.length !== 1) throw badRequest('Invalid workspace name: it may not contain /', 'bad name');
  return checkWorkspaceName(segments[0] ?? '');
}

async function list(c: Ctx) {
  const values = await c.get('services').lab.workspaces.list();
  return c.json({ workspaces: { ids: values.map((w) => w.metadata.id), values } });
}

/**
 * jupyterlab_server's workspaces API (https://jupyterlab-server.readthedocs.io/en/latest/api/rest.html):
 * `GET /lab/api/workspaces` is `{workspaces: {ids, values}}`; `GET …/<name>` a workspace (an empty
 * one when none is stored); `PUT …/<name>` stores the body (204); `DELETE …/<name>` removes it (204).
 */
export function registerLabWorkspaceRoutes(app: Hono<NbserveEnv>): void {
  app.get(PREFIX, list);
  app.get(`${PREFIX}/`, list);
  app.get(`${PREFIX}/*`, async (c) => c.json(await c.get('services').lab.workspaces.get(workspaceName(c))));
  app.put(`${PREFIX}/*`, async (c) => {
    const name = workspaceName(c);
    const raw = (await readBodyText(c)).trim();
    await c.get('services').lab.workspaces.save(name, raw);
    return c.body(null, 204);
  });
  app.delete(`${PREFIX}/*`, async (c) => {
    await c.get('services').lab.workspaces.delete(workspaceName(c));
    return c.body(null, 204);
  });
}
