import { badRequest, JsonTooDeepError, LEGACY_ID_PATTERN, notebookFromPy, parseUntrustedJson } from '@nbserve/core';
import type { Context, Hono } from 'hono';
import * as v from 'valibot';
import { recordAudit } from '../../audit/record.js';
import type { NbserveEnv } from '../../env.js';
import { readBodyText } from '../../request-body.js';
import type { Services } from '../../services.js';
import { attachmentHeader } from '../attachment.js';

type Ctx = Context<NbserveEnv>;

const Query = v.object({
  name: v.optional(v.pipe(v.string(), v.maxLength(255, 'name is too long'))),
  format: v.optional(
    v.picklist(['json', 'py'], (issue) => `Invalid notebook format: ${String(issue.input).slice(0, 20)}`),
  ),
});
const CHECKPOINT_ID = /^[\w-]{1,100}$/;

/**
 * The single-directory notebooks of IPython 0.13/1.x (`/notebooks` REST routes), addressed by
 * id. `/notebooks/<id>` is only taken when `<id>` has the uuid shape and no file of that literal
 * name exists; every other `/notebooks/<path>` is the notebook page (a path always wins over an id).
 */
export function registerLegacyNotebookRoutes(app: Hono<NbserveEnv>): void {
  app.get('/notebooks', async (c) => {
    const services = c.get('services');
    const [entries, kernelOf] = await Promise.all([services.legacyNotebooks.list(), kernelsByPath(services)]);
    return c.json(
      entries.map((e) => ({ notebook_id: e.notebook_id, name: e.name, kernel_id: kernelOf.get(e.path) ?? null })),
    );
  });

  app.post('/notebooks', async (c) => {
    const query = readQuery(c);
    const body = await readNotebookBody(c, query.format);
    const entry = await c.get('services').legacyNotebooks.create(body, query.name);
    recordAudit(c, 'contents.create', { path: entry.path, notebook_id: entry.notebook_id });
    c.header('Location', `${c.get('baseUrl')}notebooks/${entry.notebook_id}`);
    return c.json(entry.notebook_id);
  });

  app.get('/notebooks/:id', async (c, next) => {
    const id = await legacyIdOrNext(c);
    if (id === undefined) return next();
    const format = readQuery(c).format ?? 'json';
    const services = c.get('services');
    const notebook = await services.legacyNotebooks.get(id);
    const headers: Record<string, string> = {
      'Last-Modified': new Date(notebook.lastModified).toUTCString(),
      'Cache-Control': 'no-store',
    };
    if (format === 'py') {
      const script = await services.exporters.export('script', notebook.v4, notebook.name);
      headers['Content-Disposition'] = attachmentHeader(`${notebook.name}.py`);
      headers['Content-Type'] = 'application/x-python; charset=utf-8';
      return c.body(typeof script.body === 'string' ? script.body : new Uint8Array(script.body), 200, headers);
    }
    headers['Content-Disposition'] = attachmentHeader(`${notebook.name}.ipynb`);
    headers['Content-Type'] = 'application/json; charset=utf-8';
    return c.body(JSON.stringify(notebook.notebook), 200, headers);
  });

  app.put('/notebooks/:id', async (c, next) => {
    const id = await legacyIdOrNext(c);
    if (id === undefined) return next();
    const query = readQuery(c);
    const body = await readNotebookBody(c, query.format);
    if (body === undefined) throw badRequest('No notebook in the request body');
    const services = c.get('services');
    const before = await services.legacyNotebooks.pathOf(id);
    const after = await services.legacyNotebooks.save(id, body, query.name);
    if (after.path !== before) await followSession(services, before, after.path);
    recordAudit(c, after.path !== before ? 'contents.rename' : 'contents.save', {
      path: after.path,
      ...(after.path !== before ? { old_path: before } : {}),
      notebook_id: id,
    });
    return c.body(null, 204);
  });

  app.delete('/notebooks/:id', async (c, next) => {
    const id = await legacyIdOrNext(c);
    if (id === undefined) return next();
    const legacy = c.get('services').legacyNotebooks;
    const path = await legacy.pathOf(id);
    await legacy.delete(id);
    recordAudit(c, 'contents.delete', { path, notebook_id: id });
    return c.body(null, 204);
  });

  app.get('/notebooks/:id/checkpoints', async (c, next) => {
    const id = await legacyIdOrNext(c);
    if (id === undefined) return next();
    return c.json(await c.get('services').legacyNotebooks.listCheckpoints(id));
  });

  app.post('/notebooks/:id/checkpoints', async (c, next) => {
    const id = await legacyIdOrNext(c);
    if (id === undefined) return next();
    const checkpoint = await c.get('services').legacyNotebooks.createCheckpoint(id);
    c.header('Location', `${c.get('baseUrl')}notebooks/${id}/checkpoints/${checkpoint.checkpoint_id}`);
    return c.json(checkpoint);
  });

  app.on(['POST', 'DELETE'], '/notebooks/:id/checkpoints/:checkpoint', async (c, next) => {
    const id = await legacyIdOrNext(c);
    if (id === undefined) return next();
    const checkpoint = c.req.param('checkpoint');
    if (!CHECKPOINT_ID.test(checkpoint)) throw badRequest('Invalid checkpoint id');
    const legacy = c.get('services').legacyNotebooks;
    if (c.req.method === 'POST') {
      await legacy.restoreCheckpoint(id, checkpoint);
      recordAudit(c, 'checkpoint.restore', {
        path: await legacy.pathOf(id),
        checkpoint_id: checkpoint,
        notebook_id: id,
      });
    } else await legacy.deleteCheckpoint(id, checkpoint);
    return c.body(null, 204);
  });
}

/**
 * The `:id` when this request belongs to the legacy API: an id-shaped segment with no file or
 * directory of that literal name (that one is the notebook page's). Unknown ids stay here and
 * become the JSON 404 `Notebook does not exist`.
 */
async function legacyIdOrNext(c: Ctx): Promise<string | undefined> {
  const id = c.req.param('id') ?? '';
  if (!LEGACY_ID_PATTERN.test(id)) return undefined;
  if (await c.get('services').contents.exists(id)) return undefined;
  return id;
}

function readQuery(c: Ctx): v.InferOutput<typeof Query> {
  const result = v.safeParse(Query, { name: c.req.query('name'), format: c.req.query('format') });
  if (!result.success) throw badRequest(result.issues[0]?.message ?? 'Invalid query', 'bad format');
  return result.output;
}

/** The raw body as JSON (0.13 clients post the notebook itself, not a model); empty = none. */
async function readNotebookBody(c: Ctx, format: string | undefined): Promise<unknown> {
  const text = await readBodyText(c);
  if (text.trim() === '') return undefined;
  if (format === 'py') return notebookFromPy(text);
  try {
    return parseUntrustedJson(text);
  } catch (error) {
    throw badRequest(error instanceof JsonTooDeepError ? `Invalid JSON data: ${error.message}` : 'Invalid JSON data');
  }
}

/** path -> kernel id, from the sessions (the one notebook <-> kernel map). */
async function kernelsByPath(services: Services): Promise<Map<string, string>> {
  const map = new Map<string, string>();
  for (const session of await services.sessions.list()) if (session.kernel) map.set(session.path, session.kernel.id);
  return map;
}

/** A rename through the old API moves the notebook's session along, as a JupyterLab rename does. */
async function followSession(services: Services, from: string, to: string): Promise<void> {
  const session = (await services.sessions.list()).find((s) => s.path === from);
  if (session) await services.sessions.update(session.id, { path: to, name: to });
}
