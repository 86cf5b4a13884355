import { getWebAssets, PAGE_CSP } from '@nbserve/web';
import type { Context, Hono, Next } from 'hono';
import type { NbserveEnv } from '../../env.js';
import { pagePath, pageUrl } from './page-response.js';
import { printRenderer } from './print-renderer.js';
import { pageModel } from './tree.js';

async function printPage(c: Context<NbserveEnv>, next: Next) {
  const path = pagePath(c, '/print');
  const stat = path === '' ? undefined : await pageModel(c, path);
  if (!stat) return next();
  if (stat.type !== 'notebook') return c.redirect(pageUrl(c, stat.type === 'directory' ? 'tree' : 'files', path), 302);
  const [model, assets, renderPrintPage] = await Promise.all([
    c.get('services').contents.get(path),
    getWebAssets(),
    printRenderer(),
  ]);
  const html = renderPrintPage({ baseUrl: c.get('baseUrl'), path, notebook: model.content, assets });
  return c.html(html, 200, { 'Content-Security-Policy': PAGE_CSP, 'Cache-Control': 'no-store' });
}

/** `GET /print/<path>`: a static, script-free render of a notebook for printing. */
export function registerPrintRoutes(app: Hono<NbserveEnv>): void {
  app.get('/print/*', printPage);
}
