import { tooLarge } from '@nbserve/core';
import type { Context, Hono } from 'hono';
import type { NbserveEnv } from '../../env.js';

/** Rendered reST runs nothing and loads nothing but its own styles and data/same-origin images. */
const RST_CSP = "sandbox; default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:";

/**
 * `/rstservice/render` (IPython 0.13): reStructuredText in, a standalone HTML document out.
 * POST carries the source as the raw body; GET (listed by the spec) as `?text=`.
 */
export function registerRstRoutes(app: Hono<NbserveEnv>): void {
  app.post('/rstservice/render', async (c) => {
    const limit = c.get('services').rst.maxBytes;
    // Refuse early by the declared length; the service checks the bytes actually read too.
    if (Number(c.req.header('content-length') ?? '0') > limit)
      throw tooLarge(`reST source is larger than ${limit} bytes`);
    return render(c, await c.req.text());
  });
  app.get('/rstservice/render', (c) => render(c, c.req.query('text') ?? ''));
}

async function render(c: Context<NbserveEnv>, source: string): Promise<Response> {
  const { html } = await c.get('services').rst.render(source);
  return c.html(html, 200, { 'Content-Security-Policy': RST_CSP, 'Cache-Control': 'no-store' });
}
