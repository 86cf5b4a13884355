import type { Context, Hono } from 'hono';
import type { NbserveEnv } from '../../env.js';
import { sendFolderFile } from '../../lab/folder-files.js';
import { rawPathAfter } from '../contents-path.js';

type Ctx = Context<NbserveEnv>;

/** The still-encoded segments after `prefix` (empty ones dropped: the folder checks refuse the rest). */
function segmentsAfter(c: Ctx, prefix: string): string[] {
  return rawPathAfter(c, prefix)
    .split('/')
    .filter((segment) => segment !== '');
}

const notFound = () => new Response('Not Found', { status: 404, headers: { 'Cache-Control': 'no-store' } });

/**
 * The build's static files, `static/lab/<file>` (public, as jupyter_server's static files are), and
 * prebuilt extensions' files, `lab/extensions/<package>/<file>` (jupyterlab_server's labextensions
 * URL), each kept inside its folder.
 */
export function registerLabFileRoutes(app: Hono<NbserveEnv>): void {
  app.on(['GET', 'HEAD'], '/static/lab/*', async (c) => {
    const lab = await c.get('services').lab.app();
    if (!lab) return notFound();
    return sendFolderFile(c, lab.staticDir, segmentsAfter(c, '/static/lab'));
  });

  app.on(['GET', 'HEAD'], '/lab/extensions/*', async (c) => {
    const segments = segmentsAfter(c, '/lab/extensions');
    const scoped = segments[0]?.startsWith('@') || segments[0]?.startsWith('%40');
    const nameLength = scoped ? 2 : 1;
    let name: string;
    try {
      name = segments.slice(0, nameLength).map(decodeURIComponent).join('/');
    } catch {
      return notFound();
    }
    const extension = (await c.get('services').lab.extensions()).find((e) => e.name === name);
    if (!extension) return notFound();
    return sendFolderFile(c, extension.dir, segments.slice(nameLength));
  });
}
