import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as nodePath from 'node:path';
import type { CreateAppOptions } from '../src/app.js';
import { type RunningServer, serve } from '../src/serve.js';

export const TOKEN = 'feedc0defeedc0defeedc0defeedc0defeedc0defeedc0de';
export const AUTH = { Authorization: `token ${TOKEN}` };

export interface LegacyServer {
  dir: string;
  root: string;
  server: RunningServer & { app: import('../src/app.js').NbserveApp };
  /** `http://127.0.0.1:<port>` (no trailing slash). */
  origin: string;
  /** A request to the real listening server, token-authenticated unless `headers` override. */
  fetch(path: string, init?: RequestInit & { auth?: boolean }): Promise<Response>;
  /** The same request in-process (`app.request`), no socket. */
  request(path: string, init?: RequestInit & { auth?: boolean }): Promise<Response>;
  cleanup(): Promise<void>;
}

/** A real nbserve on port 0 over a fresh temp dir (root, config, data), token auth on. */
export async function startLegacyServer(options: Partial<CreateAppOptions> = {}): Promise<LegacyServer> {
  const dir = await fs.realpath(await fs.mkdtemp(nodePath.join(os.tmpdir(), 'nbserve-legacy-')));
  const root = nodePath.join(dir, 'root');
  for (const sub of ['root', 'config', 'data']) await fs.mkdir(nodePath.join(dir, sub));
  const server = await serve({
    root,
    port: 0,
    configDir: nodePath.join(dir, 'config'),
    dataDir: nodePath.join(dir, 'data'),
    token: TOKEN,
    logger: { info: () => {}, warn: () => {}, error: () => {} },
    ...options,
  });
  const origin = `http://127.0.0.1:${server.port}`;
  const withAuth = (init: RequestInit & { auth?: boolean } = {}): RequestInit => {
    const { auth = true, headers, ...rest } = init;
    return { redirect: 'manual', ...rest, headers: { ...(auth ? AUTH : {}), ...(headers as Record<string, string>) } };
  };
  return {
    dir,
    root: options.root ?? root,
    server,
    origin,
    fetch: (path, init) => fetch(`${origin}${path}`, withAuth(init)),
    request: async (path, init) => server.app.request(`http://127.0.0.1:${server.port}${path}`, withAuth(init)),
    async cleanup() {
      await server.close();
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
}

/** Asserts the Jupyter error shape and that nothing internal leaks. */
export async function jupyterError(response: Response): Promise<{ message: string; reason: string | null }> {
  const text = await response.text();
  if (text.includes(TOKEN) || /\n\s+at /.test(text)) throw new Error(`error body leaks internals: ${text}`);
  const body = JSON.parse(text) as { message: string; reason: string | null };
  if (typeof body.message !== 'string' || !('reason' in body)) throw new Error(`not a Jupyter error: ${text}`);
  return body;
}
