import { tooLarge } from '@nbserve/core';
import type { Context, Hono } from 'hono';
import type { NbserveEnv } from '../../env.js';
import { decodeUtf8, readBodyText } from '../../request-body.js';

/** Rendered reST runs nothing and loads nothing but its own styles and data/same-origin images. */
const RST_CSP = "sandbox; default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:";

/**
 * `/rstservice/render` (IPython 0.13): reStructuredText in, a standalone HTML document out.
 * POST carries the source as the raw body; GET (listed by the spec) as `?text=`.
 */
export function registerRstRoutes(app: Hono<NbserveEnv>): void {
  app.post('/rstservice/render', async (c) => render(c, await readBounded(c, c.get('services').rst.maxBytes)));
  app.get('/rstservice/render', (c) => render(c, c.req.query('text') ?? ''));
}

/** Draining this much of an oversized body keeps the connection usable for the 413 answer. */
const MAX_DRAIN_BYTES = 16 * 1024 * 1024;

/**
 * The body as text, refused with a 413 once it passes `limit` bytes. The rest of an oversized
 * body is read and dropped (up to a bound), so the client can still read the answer.
 */
async function readBounded(c: Context<NbserveEnv>, limit: number): Promise<string> {
  const declared = Number(c.req.header('content-length') ?? '0');
  const body = c.req.raw.body;
  if (!body || declared > MAX_DRAIN_BYTES) {
    if (declared > limit) throw tooLarge(`reST source is larger than ${limit} bytes`);
    return body ? await readBodyText(c) : '';
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size <= limit) chunks.push(value);
    else if (size > MAX_DRAIN_BYTES) break;
  }
  if (size > limit) throw tooLarge(`reST source is larger than ${limit} bytes`);
  return decodeUtf8(Buffer.concat(chunks));
}

async function render(c: Context<NbserveEnv>, source: string): Promise<Response> {
  const { html } = await c.get('services').rst.render(source);
  return c.html(html, 200, { 'Content-Security-Policy': RST_CSP, 'Cache-Control': 'no-store' });
}
