import { type KernelSpecEntry, notFound } from '@nbserve/core';
import type { Context, Hono } from 'hono';
import type { NbserveEnv } from '../../env.js';

const NAME_PATTERN = /^[\w.\-%]+$/;

/** The REST model of a spec: resource file names become URLs under `<base>kernelspecs/` (no `/api`). */
export function kernelSpecModel(entry: KernelSpecEntry, baseUrl: string) {
  const resources: Record<string, string> = {};
  for (const [key, file] of Object.entries(entry.resources)) {
    resources[key] = `${baseUrl}kernelspecs/${encodeURIComponent(entry.name)}/${encodeURIComponent(file)}`;
  }
  return { name: entry.name, spec: entry.spec, resources };
}

/** The `:kernel_name` of a route, URL-unescaped; names outside Jupyter's pattern are unknown. */
export function kernelNameParam(c: Context<NbserveEnv>): string {
  const raw = c.req.param('kernel_name') ?? '';
  if (!NAME_PATTERN.test(raw)) throw notFound(`Kernel spec ${raw.slice(0, 100)} not found`);
  return raw;
}

/** `/api/kernelspecs` (reference §5). Disk is re-read on each request: new specs appear at once. */
export function registerKernelSpecRoutes(app: Hono<NbserveEnv>): void {
  app.get('/api/kernelspecs', async (c) => {
    const listing = await c.get('services').kernelspecs.list();
    const base = c.get('baseUrl');
    const kernelspecs: Record<string, ReturnType<typeof kernelSpecModel>> = {};
    for (const [name, entry] of Object.entries(listing.kernelspecs)) kernelspecs[name] = kernelSpecModel(entry, base);
    return c.json({ default: listing.default, kernelspecs });
  });

  app.get('/api/kernelspecs/:kernel_name', async (c) => {
    const entry = await c.get('services').kernelspecs.get(kernelNameParam(c));
    return c.json(kernelSpecModel(entry, c.get('baseUrl')));
  });
}
