import { LEGACY_ID_PATTERN } from '@nbserve/core';
import { getWebAssets, PAGE_CSP } from '@nbserve/web';
import type { Context, Hono } from 'hono';
import { recordAudit } from '../../audit/record.js';
import type { NbserveEnv } from '../../env.js';
import { printRenderer } from '../web/print-renderer.js';

type Ctx = Context<NbserveEnv>;

const NOT_FOUND_PAGE = (what: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>404 Not Found</title></head>
<body><h1>404: Not Found</h1><p>${what}</p></body></html>
`;

/**
 * The older website routes of IPython 0.13/1.x: `/<id>` opens the notebook's page,
 * `/<id>/copy` duplicates it (`-Copy0` naming) and opens the copy, `/<id>/print` is the print
 * view (a 404 page for an unknown id), `/<name>.ipynb` redirects to its id. Only id-shaped
 * segments are taken; everything else falls through to the other routes and the 404 page.
 */
export function registerLegacyPageRoutes(app: Hono<NbserveEnv>): void {
  app.get('/:id', async (c, next) => {
    const id = c.req.param('id');
    if (id.endsWith('.ipynb')) {
      const target = await idForName(c, id);
      return target === undefined ? next() : c.redirect(`${c.get('baseUrl')}${target}`, 302);
    }
    if (!LEGACY_ID_PATTERN.test(id)) return next();
    const legacy = c.get('services').legacyNotebooks;
    if (!(await legacy.has(id))) return next();
    return c.redirect(pageUrl(c, await legacy.pathOf(id)), 302);
  });

  app.get('/:id/copy', async (c, next) => {
    const id = c.req.param('id');
    if (!LEGACY_ID_PATTERN.test(id)) return next();
    const legacy = c.get('services').legacyNotebooks;
    if (!(await legacy.has(id))) return next();
    const copy = await legacy.copy(id);
    recordAudit(c, 'contents.copy', { path: copy.path, copy_from: await legacy.pathOf(id), notebook_id: id });
    return c.redirect(pageUrl(c, copy.path), 302);
  });

  app.get('/:id/print', async (c, next) => {
    const id = c.req.param('id');
    if (!LEGACY_ID_PATTERN.test(id)) return next();
    const legacy = c.get('services').legacyNotebooks;
    if (!(await legacy.has(id))) {
      return c.html(NOT_FOUND_PAGE('Notebook does not exist.'), 404, {
        'Content-Security-Policy': "default-src 'none'",
      });
    }
    const notebook = await legacy.get(id);
    const renderPrintPage = await printRenderer();
    const html = renderPrintPage({
      baseUrl: c.get('baseUrl'),
      path: notebook.path,
      notebook: notebook.v4,
      assets: await getWebAssets(),
    });
    return c.html(html, 200, { 'Content-Security-Policy': PAGE_CSP, 'Cache-Control': 'no-store' });
  });
}

/** The id of a top-level `<name>.ipynb` (1.x's `/<name>.ipynb` redirect), if it exists. */
async function idForName(c: Ctx, name: string): Promise<string | undefined> {
  try {
    return await c.get('services').legacyNotebooks.idOf(name);
  } catch (error) {
    if ((error as { kind?: string }).kind === 'not-found') return undefined;
    throw error;
  }
}

function pageUrl(c: Ctx, path: string): string {
  return `${c.get('baseUrl')}notebooks/${path.split('/').map(encodeURIComponent).join('/')}`;
}
