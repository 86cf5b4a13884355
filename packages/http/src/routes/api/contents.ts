import { ServerResponse } from 'node:http';
import { badRequest, type ContentsModel, type ErrorReason, materialize, type SavePrecondition } from '@nbserve/core';
import type { Context, Hono } from 'hono';
import * as v from 'valibot';
import { recordAudit } from '../../audit/record.js';
import type { NbserveEnv } from '../../env.js';
import { parseWith, readJsonBody, readJsonBodyBytes } from '../../validate.js';
import { escapePath, httpDate, pathSegmentsAfter, urlBase } from '../contents-path.js';

type Ctx = Context<NbserveEnv>;

const PREFIX = '/api/contents';
const CHECKPOINT_ID = /^[\w-]+$/;

/** Query of `GET /api/contents/<path>`; each message is the one Jupyter answers with. */
const GetQuery = v.object({
  type: v.optional(v.picklist(['file', 'notebook', 'directory'], (i) => `Type '${String(i.input)}' is invalid`)),
  format: v.optional(v.picklist(['text', 'base64'], (i) => `Format '${String(i.input)}' is invalid`)),
  content: v.optional(v.picklist(['0', '1'], (i) => `Content '${String(i.input)}' is invalid`)),
  hash: v.optional(v.picklist(['0', '1'], (i) => `Hash '${String(i.input)}' is invalid`)),
  // nbserve extension for big directories: a page of the sorted listing (see docs/contents-api.md).
  offset: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^\d{1,9}$/, (i) => `Offset '${i.input}' is invalid`),
      v.transform(Number),
    ),
  ),
  limit: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^[1-9]\d{0,8}$/, (i) => `Limit '${i.input}' is invalid`),
      v.transform(Number),
    ),
  ),
});
const QUERY_REASON: Record<string, ErrorReason> = { type: 'bad type', format: 'bad format' };

/** Query of `GET /api/contents/<path>/checkpoints/<id>` (an nbserve extension): as GET's `format`. */
const CheckpointQuery = v.object({ format: GetQuery.entries.format });

/** PUT body: a contents model. Unknown fields (name, timestamps clients echo back) are dropped. */
const PutBody = v.object(
  {
    type: v.optional(v.string('type must be a string')),
    format: v.optional(v.nullable(v.string('format must be a string'))),
    content: v.optional(v.unknown()),
    chunk: v.optional(v.pipe(v.number('chunk must be an integer'), v.integer('chunk must be an integer'))),
    copy_from: v.optional(v.unknown()),
    // Not where the file goes (the URL says that), but a hidden one is refused as in jupyter_server.
    path: v.optional(v.nullable(v.string('path must be a string'))),
  },
  'The request body must be a JSON object',
);

/** POST body: what to create (`type`, `ext`) or what to copy (`copy_from`). */
const PostBody = v.object(
  {
    type: v.optional(v.string('type must be a string')),
    ext: v.optional(v.string('ext must be a string')),
    copy_from: v.optional(v.pipe(v.string('copy_from must be a string'), v.minLength(1, 'copy_from is empty'))),
  },
  'The request body must be a JSON object',
);

/** PATCH body: the new full path. */
const PatchBody = v.object(
  { path: v.optional(v.string('path must be a string')) },
  'The request body must be a JSON object',
);

/**
 * All of `/api/contents` as in jupyter_server's REST API: models, saves, untitled/copy, rename, delete,
 * checkpoints and trust. The path is decoded here; core validates it and keeps it inside the root.
 */
export function registerContentsRoutes(app: Hono<NbserveEnv>): void {
  app.on(['GET', 'PUT', 'POST', 'PATCH', 'DELETE'], [PREFIX, `${PREFIX}/*`], async (c) => {
    const segments = pathSegmentsAfter(c, PREFIX);
    const method = c.req.method;
    const last = segments.at(-1);
    // Checkpoint routes come first, as in Jupyter's route table; other methods fall through.
    if (segments.length >= 2 && last === 'checkpoints' && (method === 'GET' || method === 'POST')) {
      return checkpoints(c, segments.slice(0, -1).join('/'));
    }
    if (
      segments.length >= 3 &&
      segments.at(-2) === 'checkpoints' &&
      CHECKPOINT_ID.test(last ?? '') &&
      (method === 'POST' || method === 'DELETE')
    ) {
      return checkpoint(c, segments.slice(0, -2).join('/'), last as string);
    }
    if (
      method === 'GET' &&
      segments.length >= 3 &&
      segments.at(-2) === 'checkpoints' &&
      CHECKPOINT_ID.test(last ?? '')
    ) {
      // a file's checkpoint; below a directory it is a file in a folder named `checkpoints`
      const file = segments.slice(0, -2).join('/');
      if (await isFile(c, file)) return checkpointModel(c, file, last as string);
    }
    if (segments.length >= 2 && last === 'trust' && method === 'POST') {
      return trust(c, segments.slice(0, -1).join('/'));
    }
    const path = segments.join('/');
    switch (method) {
      case 'PUT':
        return put(c, path);
      case 'POST':
        return post(c, path);
      case 'PATCH':
        return patch(c, path);
      case 'DELETE':
        return remove(c, path);
      default:
        return get(c, path);
    }
  });
}

async function get(c: Ctx, path: string): Promise<Response> {
  const parsed = v.safeParse(GetQuery, c.req.query());
  if (!parsed.success) {
    const issue = parsed.issues[0];
    const key = String(issue.path?.[0]?.key ?? '');
    throw badRequest(issue.message, QUERY_REASON[key] ?? null);
  }
  const query = parsed.output;
  const { model, json, release } = await c.get('services').contents.getSerialized(path, {
    ...(query.type ? { type: query.type } : {}),
    ...(query.format ? { format: query.format } : {}),
    content: query.content !== '0',
    hash: query.hash === '1',
    ...(query.offset !== undefined || query.limit !== undefined
      ? { page: { offset: query.offset ?? 0, limit: query.limit ?? Number.MAX_SAFE_INTEGER } }
      : {}),
  });
  const headers = modelHeaders(c, model, false);
  if (model.total !== undefined) headers['X-Total-Count'] = String(model.total);
  // Already JSON as UTF-8 (a cached notebook's content is spliced in), with the type c.json sets.
  headers['Content-Type'] = 'application/json';
  if (release) releaseWhenSent(c, release);
  c.get('services').events.emitContents('get', model.path);
  return c.body(json, 200, headers);
}

/**
 * An answer in lent memory (see SerializedModel.release) is given back once the response is
 * closed: written out to the socket, or aborted. Elsewhere than under @hono/node-server it is
 * never given back (the memory is then simply collected).
 */
function releaseWhenSent(c: Ctx, release: () => void): void {
  const outgoing = (c.env as { outgoing?: unknown } | undefined)?.outgoing;
  if (outgoing instanceof ServerResponse) outgoing.once('close', release);
}

async function put(c: Ctx, path: string): Promise<Response> {
  // a big notebook is parsed from the body's bytes, its long strings copied from there to the file
  const { value: body, raw, release } = await readJsonBodyBytes(c);
  try {
    const contents = c.get('services').contents;
    // No body at all: Jupyter creates an untitled file in <path> as if it were a POST.
    if (body === undefined) {
      return created(c, await contents.newUntitled(path));
    }
    const input = parseBody(PutBody, raw ? withRealFields(body, raw) : body);
    if (input.copy_from !== undefined) throw badRequest('Cannot copy with PUT, only POST');
    const { copy_from: _ignored, ...model } = input;
    const { model: saved, created: isNew } = await contents.save(path, model, precondition(c), raw);
    // jupyter_server: a PUT to a new path is an upload, to an existing one a save
    c.get('services').events.emitContents(isNew ? 'upload' : 'save', saved.path, undefined, {
      type: saved.type,
      size: saved.size ?? null,
      ...(model.format !== undefined ? { format: model.format } : {}),
      ...(model.chunk !== undefined ? { chunk: model.chunk } : {}),
    });
    return modelResponse(c, saved, isNew ? 201 : 200, true);
  } finally {
    release();
  }
}

/** A body from readJsonBodyBytes with real strings in every field but `content` (the manager's part). */
function withRealFields(body: unknown, raw: (value: string) => Uint8Array | undefined): unknown {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return materialize(body, raw);
  const { content, ...fields } = body as Record<string, unknown>;
  const out = materialize(fields, raw) as Record<string, unknown>;
  if ('content' in body) out.content = content;
  return out;
}

async function post(c: Ctx, path: string): Promise<Response> {
  const body = parseBody(PostBody, (await readJsonBody(c)) ?? {});
  const contents = c.get('services').contents;
  if (body.copy_from !== undefined) {
    const copy = await contents.copyInto(body.copy_from, path);
    const detail = { type: copy.type, size: copy.size ?? null };
    c.get('services').events.emitContents('copy', copy.path, body.copy_from, detail);
    return modelResponse(c, copy, 201, true);
  }
  const model = await contents.newUntitled(path, {
    ...(body.type !== undefined ? { type: body.type } : {}),
    ...(body.ext !== undefined ? { ext: body.ext } : {}),
  });
  return created(c, model);
}

/** A 201 for a new file or folder, announced on the event bus. */
function created(c: Ctx, model: ContentsModel): Response {
  c.get('services').events.emitContents('create', model.path, undefined, { type: model.type });
  return modelResponse(c, model, 201, true);
}

async function patch(c: Ctx, path: string): Promise<Response> {
  const raw = await readJsonBody(c);
  if (raw === undefined) throw badRequest('JSON body missing');
  const body = parseBody(PatchBody, raw);
  const model = await c.get('services').contents.rename(path, body.path ?? path);
  c.get('services').events.emitContents('rename', model.path, path);
  return modelResponse(c, model, 200, true);
}

async function remove(c: Ctx, path: string): Promise<Response> {
  await c.get('services').contents.delete(path);
  c.get('services').events.emitContents('delete', path);
  return c.body(null, 204);
}

async function checkpoints(c: Ctx, path: string): Promise<Response> {
  const contents = c.get('services').contents;
  if (c.req.method === 'GET') return c.json(await contents.listCheckpoints(path));
  const model = await contents.createCheckpoint(path);
  const location = `${urlBase(c)}api/contents/${escapePath(path)}/checkpoints/${encodeURIComponent(model.id)}`;
  return c.json(model, 201, { Location: location });
}

async function checkpoint(c: Ctx, path: string, id: string): Promise<Response> {
  const contents = c.get('services').contents;
  if (c.req.method === 'POST') {
    await contents.restoreCheckpoint(path, id);
    recordAudit(c, 'checkpoint.restore', { path, checkpoint_id: id });
  } else await contents.deleteCheckpoint(path, id);
  return c.body(null, 204);
}

async function isFile(c: Ctx, path: string): Promise<boolean> {
  const model = await c
    .get('services')
    .contents.get(path, { content: false })
    .catch(() => null);
  return model !== null && model.type !== 'directory';
}

async function checkpointModel(c: Ctx, path: string, id: string): Promise<Response> {
  const query = v.safeParse(CheckpointQuery, c.req.query());
  if (!query.success) throw badRequest(query.issues[0].message, 'bad format');
  const format = query.output.format;
  return c.json(await c.get('services').contents.getCheckpoint(path, id, format ? { format } : {}));
}

async function trust(c: Ctx, path: string): Promise<Response> {
  await c.get('services').contents.trust(path);
  return c.body(null, 201);
}

function parseBody<S extends v.GenericSchema>(schema: S, value: unknown): v.InferOutput<S> {
  // valibot's object() accepts arrays; a contents body never is one.
  if (Array.isArray(value)) throw badRequest('Invalid request body: The request body must be a JSON object');
  return parseWith(schema, value, 'request body');
}

/**
 * Save-conflict protection: `If-Match: "<sha256>"` (the `hash` of a model fetched with `?hash=1`
 * or returned by the last save) and/or `If-Unmodified-Since` (RFC 1123, or ISO with microseconds
 * as in `last_modified`). A mismatch is a 409 and nothing is written.
 */
function precondition(c: Ctx): SavePrecondition {
  const result: SavePrecondition = {};
  const ifMatch = c.req.header('If-Match');
  const since = c.req.header('If-Unmodified-Since');
  if (ifMatch) result.hash = ifMatch;
  if (since) result.lastModified = since;
  return result;
}

function modelResponse(c: Ctx, model: ContentsModel, status: 200 | 201, withLocation: boolean): Response {
  return c.json(model, status, modelHeaders(c, model, withLocation));
}

function modelHeaders(c: Ctx, model: ContentsModel, withLocation: boolean): Record<string, string> {
  const headers: Record<string, string> = {
    'Last-Modified': httpDate(model.last_modified),
    'Cache-Control': 'no-store',
  };
  if (withLocation) headers.Location = `${urlBase(c)}api/contents/${escapePath(model.path)}`;
  if (model.hash) headers.ETag = `"${model.hash}"`;
  return headers;
}
