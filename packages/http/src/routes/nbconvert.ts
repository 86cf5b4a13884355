import { badRequest, type ExportResult, isWellFormedText, notFound, toNotebookV4 } from '@nbserve/core';
import type { Context, Hono } from 'hono';
import * as v from 'valibot';
import type { NbserveEnv } from '../env.js';
import { parseJsonBody, parseWith } from '../validate.js';
import { attachmentHeader } from './attachment.js';

type Ctx = Context<NbserveEnv>;

const Format = v.pipe(v.string(), v.regex(/^\w{1,64}$/, 'format must be a word'));
const PostBody = v.object(
  {
    name: v.optional(
      v.pipe(v.string('name must be a string'), v.check(isWellFormedText, 'name must be valid Unicode')),
    ),
    content: v.unknown(),
  },
  'The request body must be a contents model: {"name"?, "content": <notebook>}',
);

// What an export may do once opened: nothing for our own HTML; nbconvert's slides need their
// scripts, which a sandbox without allow-same-origin keeps away from this origin's cookies.
const CSP: Record<string, string> = { html: 'sandbox', slides: 'sandbox allow-scripts' };
const DEFAULT_CSP = 'sandbox';

/**
 * `GET /nbconvert/<format>/<path>[?download=true]` converts a stored notebook;
 * `POST /nbconvert/<format>` converts the notebook in the body, as jupyter_server's nbconvert handlers do.
 */
export function registerNbconvertRoutes(app: Hono<NbserveEnv>): void {
  app.get('/nbconvert/:format/*', async (c) => {
    const format = parseWith(Format, c.req.param('format'), 'format');
    await c.get('services').exporters.assertFormat(format);
    const path = pathAfterFormat(c, format);
    const contents = c.get('services').contents;
    const model = await contents.get(path, { content: false });
    const base = c.get('baseUrl');
    const encoded = path.split('/').map(encodeURIComponent).join('/');
    if (model.type === 'directory') return c.redirect(`${base}tree/${encoded}`, 302);
    if (model.type !== 'notebook') return c.redirect(`${base}files/${encoded}`, 302);
    const full = await contents.get(path, { type: 'notebook' });
    const stem = model.name.replace(/\.ipynb$/, '');
    const result = await c.get('services').exporters.export(format, full.content, stem);
    return respond(c, format, result, stem, new Date(model.last_modified));
  });

  app.post('/nbconvert/:format', async (c) => {
    const format = parseWith(Format, c.req.param('format'), 'format');
    await c.get('services').exporters.assertFormat(format);
    const body = await parseJsonBody(c, PostBody);
    // Old clients post v3; every exporter works on v4.
    const { notebook } = toNotebookV4(body.content, 'Invalid notebook');
    const stem =
      (body.name ?? 'notebook')
        .replace(/\.ipynb$/, '')
        .split('/')
        .pop() || 'notebook';
    const result = await c.get('services').exporters.export(format, notebook, stem);
    return respond(c, format, result, stem, undefined);
  });
}

/** The notebook path after `/nbconvert/<format>/`, decoded per segment. */
function pathAfterFormat(c: Ctx, format: string): string {
  const rel = c.get('relPath');
  const prefix = `/nbconvert/${format}/`;
  const raw = new URL(c.req.url).pathname;
  const at = raw.indexOf(prefix);
  const rest = at === -1 ? rel.slice(prefix.length) : raw.slice(at + prefix.length);
  const segments = rest.split('/').filter((s) => s !== '');
  if (segments.length === 0) throw notFound('No notebook path given');
  return segments
    .map((segment) => {
      let decoded: string;
      try {
        decoded = decodeURIComponent(segment);
      } catch {
        throw badRequest('Invalid path: malformed percent-encoding', 'bad path');
      }
      if (decoded.includes('/') || decoded.includes('\\') || decoded.includes('\0')) {
        throw badRequest('Invalid path segment', 'bad path');
      }
      return decoded;
    })
    .join('/');
}

function respond(c: Ctx, format: string, result: ExportResult, stem: string, lastModified: Date | undefined): Response {
  const textual = result.mimetype.startsWith('text/') || result.mimetype === 'application/json';
  const headers: Record<string, string> = {
    'Content-Type': textual ? `${result.mimetype}; charset=utf-8` : result.mimetype,
    'Cache-Control': 'no-store, no-cache, must-revalidate, max-age=0',
    'Content-Security-Policy': CSP[format] ?? DEFAULT_CSP,
    'X-Content-Type-Options': 'nosniff',
  };
  if (lastModified && !Number.isNaN(lastModified.getTime())) headers['Last-Modified'] = lastModified.toUTCString();
  if (c.req.query('download') === 'true' || result.mimetype === 'application/zip') {
    headers['Content-Disposition'] = attachmentHeader(`${stem}${result.extension}`);
  }
  const body = typeof result.body === 'string' ? result.body : new Uint8Array(result.body);
  return c.body(body, 200, headers);
}
