import { escapeHtml } from '@nbserve/core';
import type { Context, Hono, Next } from 'hono';
import type { NbserveEnv } from '../../env.js';
import { pagePath, pageUrl } from './page-response.js';
import { pageModel } from './tree.js';

/** No scripts of its own; the framed `/files` response carries its own sandboxing CSP. */
const VIEW_CSP =
  "default-src 'none'; frame-src 'self'; style-src 'unsafe-inline'; base-uri 'none'; frame-ancestors 'self'";

async function viewPage(c: Context<NbserveEnv>, next: Next) {
  const path = pagePath(c, '/view');
  const model = path === '' ? undefined : await pageModel(c, path);
  // Directories and missing files fall through to the 404 page, as jupyter_server's ViewHandler does.
  if (!model || model.type === 'directory') return next();
  const name = escapeHtml(model.name);
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="referrer" content="no-referrer"><title>${name}</title></head>
<body style="margin:0"><iframe src="${escapeHtml(pageUrl(c, 'files', path))}" title="${name}" style="display:block;border:0;width:100vw;height:100vh"></iframe></body></html>
`;
  return c.html(html, 200, { 'Content-Security-Policy': VIEW_CSP, 'Cache-Control': 'no-store' });
}

/** `GET /view/<path>`: a file shown in a frame (its `/files` URL), as Notebook 6 and jupyter_server have it. */
export function registerViewRoutes(app: Hono<NbserveEnv>): void {
  app.get('/view/*', viewPage);
}
