/**
 * Mounting nbserve inside an existing Hono app: your routes stay yours, nbserve answers under
 * `/notebooks-server/`, and `listen()` serves both with WebSockets (kernel channels) working.
 *
 *   pnpm exec tsx --conditions=@nbserve/source examples/embed-hono.ts [root]
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createApp, listen, type NbserveApp } from '@nbserve/http';
import { Hono } from 'hono';

export interface Embedded {
  host: Hono;
  nbserve: NbserveApp;
}

/** Your app, with nbserve mounted at `/notebooks-server`. */
export function buildHostApp(
  root: string,
  options: { token?: string; configDir?: string; dataDir?: string } = {},
): Embedded {
  // nbserve's own base URL stays `/`: the mount path is picked up from the host's routing, so
  // redirects, cookies and Location headers all carry `/notebooks-server/`.
  const nbserve = createApp({ root, ...options });
  const host = new Hono();
  host.get('/', (c) => c.html('<h1>My app</h1><p><a href="/notebooks-server/tree">Notebooks</a></p>'));
  host.get('/health', (c) => c.json({ ok: true }));
  host.route('/notebooks-server', nbserve);
  return { host, nbserve };
}

async function main(): Promise<void> {
  const root = path.resolve(process.argv[2] ?? path.join(path.dirname(fileURLToPath(import.meta.url)), 'notebooks'));
  const { host, nbserve } = buildHostApp(root);
  const running = await listen(host, { port: 8890 });
  const token = nbserve.services.options.token;
  console.log(`My app:   ${running.url}`);
  console.log(`nbserve:  ${running.url}notebooks-server/tree?token=${token}`);
  const stop = async () => {
    await running.close();
    await nbserve.close();
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
