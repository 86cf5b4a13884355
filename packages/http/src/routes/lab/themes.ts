import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { notFound } from '@nbserve/core';
import type { Context, Hono } from 'hono';
import type { NbserveEnv } from '../../env.js';
import { fileInside, ifNoneMatch, sendFolderFile } from '../../lab/folder-files.js';
import { rawPathAfter } from '../contents-path.js';

type Ctx = Context<NbserveEnv>;

const PREFIX = '/lab/api/themes';

/** `url(...)` in CSS, quoted or not. */
const CSS_URL = /url\(\s*(['"]?)([^'")]+)\1\s*\)/g;

/**
 * A theme's CSS with its relative `url(...)`s made absolute under the themes URL (jupyterlab_server's
 * ThemesHandler does the same), so images and fonts load from beside the CSS under any base URL.
 */
function mangleCss(css: string, dirUrl: string): string {
  return css.replace(CSS_URL, (match, quote: string, url: string) => {
    if (url.startsWith('/') || url.startsWith('#') || /^[a-z][a-z0-9+.-]*:/i.test(url)) return match;
    return `url(${quote}${dirUrl}${url}${quote})`;
  });
}

/**
 * `GET /lab/api/themes/<package>/<file>`: theme files from prebuilt extensions' `themes/` folders,
 * then the build's `themes/` (jupyterlab_server's order); CSS with its relative URLs rewritten.
 */
export function registerLabThemeRoutes(app: Hono<NbserveEnv>): void {
  app.on(['GET', 'HEAD'], `${PREFIX}/*`, async (c: Ctx) => {
    const lab = c.get('services').lab;
    const built = await lab.requireApp();
    const segments = rawPathAfter(c, PREFIX)
      .split('/')
      .filter((segment) => segment !== '');
    const dirs = [...(await lab.extensions()).map((extension) => path.join(extension.dir, 'themes')), built.themesDir];
    for (const dir of dirs) {
      const file = await fileInside(dir, segments);
      if (!file) continue;
      if (!file.endsWith('.css')) return sendFolderFile(c, dir, segments);
      const dirUrl = `${c.get('baseUrl')}${PREFIX.slice(1)}/${segments.slice(0, -1).join('/')}/`;
      const css = mangleCss(await fs.readFile(file, 'utf8'), dirUrl);
      // the CSS depends on the file and the base URL: a reload revalidates it and gets a 304
      const etag = `"${createHash('sha256').update(css).digest('base64url').slice(0, 27)}"`;
      const headers = { 'Content-Type': 'text/css; charset=utf-8', 'Cache-Control': 'no-cache', ETag: etag };
      if (ifNoneMatch(c.req.header('if-none-match'), etag)) return new Response(null, { status: 304, headers });
      return new Response(c.req.method === 'HEAD' ? null : css, { status: 200, headers });
    }
    throw notFound(`Theme file not found: ${segments.join('/').slice(0, 200)}`);
  });
}
