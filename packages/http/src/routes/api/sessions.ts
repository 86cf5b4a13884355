import { badRequest, notFound, pathFromNotebookField } from '@nbserve/core';
import type { Context, Hono } from 'hono';
import * as v from 'valibot';
import type { NbserveEnv } from '../../env.js';
import { parseWith, readJsonBody } from '../../validate.js';
import { UUID_PATTERN } from './kernels.js';

type Ctx = Context<NbserveEnv>;

const Str = (what: string) => v.pipe(v.string(`${what} must be a string`), v.maxLength(4096, `${what} is too long`));

const KernelField = v.nullish(
  v.object(
    {
      id: v.optional(v.nullable(Str('kernel.id'))),
      name: v.optional(v.nullable(Str('kernel.name'))),
    },
    'kernel must be an object',
  ),
);

/** The three generations of bodies: current `{path,type,name,kernel}`, 3.x/2.x `{notebook:{...}}`. */
const SessionBody = v.object(
  {
    path: v.optional(v.nullable(Str('path'))),
    name: v.optional(v.nullable(Str('name'))),
    type: v.optional(v.nullable(Str('type'))),
    kernel: KernelField,
    notebook: v.optional(
      v.nullable(
        v.object(
          { name: v.optional(v.nullable(Str('notebook.name'))), path: v.optional(v.nullable(Str('notebook.path'))) },
          'notebook must be an object',
        ),
      ),
    ),
  },
  'The request body must be a JSON object',
);

type Body = v.InferOutput<typeof SessionBody>;

/** Path, name and type a body asks for; the deprecated `notebook` field implies type notebook. */
function normalize(body: Body): { path?: string; name?: string; type?: string } {
  const out: { path?: string; name?: string; type?: string } = {};
  if (body.path != null) out.path = body.path;
  if (body.name != null) out.name = body.name;
  if (body.type != null) out.type = body.type;
  if (body.notebook) {
    const notebook = { name: body.notebook.name ?? undefined, path: body.notebook.path ?? undefined };
    if (out.path === undefined) out.path = pathFromNotebookField(notebook);
    if (out.name === undefined && notebook.name !== undefined)
      out.name = notebook.name.split('/').pop() ?? notebook.name;
    out.type ??= 'notebook';
  }
  return out;
}

function kernelRequest(body: Body) {
  if (!body.kernel) return undefined;
  return { id: body.kernel.id ?? undefined, name: body.kernel.name ?? undefined };
}

function sessionIdParam(c: Ctx): string {
  const id = c.req.param('session_id') ?? '';
  if (!UUID_PATTERN.test(id)) throw notFound(`Session not found: session_id='${id.slice(0, 100)}'`);
  return id;
}

/** `/api/sessions` as in jupyter_server's REST API, also at the misspelt `/api/sesions`. */
export function registerSessionRoutes(app: Hono<NbserveEnv>): void {
  for (const prefix of ['/api/sessions', '/api/sesions']) {
    app.get(prefix, async (c) => c.json(await c.get('services').sessions.list()));

    app.post(prefix, async (c) => {
      const raw = await readJsonBody(c);
      if (raw === undefined || raw === null) throw badRequest('No JSON data provided');
      if (Array.isArray(raw)) throw badRequest('The request body must be a JSON object');
      const body = parseWith(SessionBody, raw, 'request body');
      const { path, name, type } = normalize(body);
      if (path === undefined || path === '') throw badRequest('Missing field in JSON data: path');
      if (type === undefined) throw badRequest('Missing field in JSON data: type');
      const { model } = await c.get('services').sessions.create({ path, name, type, kernel: kernelRequest(body) });
      if (model.kernel) c.set('kernelId', model.kernel.id);
      c.header('Location', `${c.get('baseUrl')}api/sessions/${model.id}`);
      return c.json(model, 201);
    });

    app.get(`${prefix}/:session_id`, async (c) => c.json(await c.get('services').sessions.get(sessionIdParam(c))));

    app.patch(`${prefix}/:session_id`, async (c) => {
      const id = sessionIdParam(c);
      const raw = await readJsonBody(c);
      if (raw === undefined || raw === null) throw badRequest('No JSON data provided');
      if (Array.isArray(raw)) throw badRequest('The request body must be a JSON object');
      const body = parseWith(SessionBody, raw, 'request body');
      const model = await c.get('services').sessions.update(id, { ...normalize(body), kernel: kernelRequest(body) });
      return c.json(model, 200);
    });

    app.delete(`${prefix}/:session_id`, async (c) => {
      await c.get('services').sessions.delete(sessionIdParam(c));
      return c.body(null, 204);
    });
  }
}
