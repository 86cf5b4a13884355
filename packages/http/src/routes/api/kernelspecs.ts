import { type KernelSpecEntry, notFound } from '@nbserve/core';
import type { Context, Hono } from 'hono';
import type { NbserveEnv } from '../../env.js';

/** Longer names cannot be directory names (NAME_MAX). */
const MAX_NAME_LENGTH = 255;

/** The REST model of a spec: resource file names become URLs under `<base>kernelspecs/` (no `/api`). */
export function kernelSpecModel(entry: KernelSpecEntry, baseUrl: string) {
  const resources: Record<string, string> = {};
  for (const [key, file] of Object.entries(entry.resources)) {
    resources[key] = `${baseUrl}kernelspecs/${encodeURIComponent(entry.name)}/${encodeURIComponent(file)}`;
  }
  return { name: entry.name, spec: entry.spec, resources };
}

/**
 * The `:kernel_name` of a route, URL-unescaped: `sample%202` asks for the spec directory
 * `sample 2`. Jupyter matches `[\w.\-%]+` against the escaped form, so any name can be asked for;
 * lookups are case-insensitive.
 */
export function kernelNameParam(c: Context<NbserveEnv>): string {
  const name = c.req.param('kernel_name') ?? '';
  if (name === '' || name.length > MAX_NAME_LENGTH) throw notFound(`Kernel spec ${name.slice(0, 100)} not found`);
  return name;
}

/** `/api/kernelspecs` as in jupyter_server's REST API. Specs installed while the server runs appear at once. */
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
