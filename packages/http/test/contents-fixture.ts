import * as fs from 'node:fs/promises';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as nodePath from 'node:path';
import { createAdaptorServer } from '@hono/node-server';
import { type CreateAppOptions, createApp, type NbserveApp } from '../src/app.js';

export const TOKEN = 'c0ffeec0ffeec0ffeec0ffeec0ffeec0ffeec0ffeec0ffee';

/** One way of sending a request to the app: in-process (`app.request`) or over a real socket. */
export interface Transport {
  name: string;
  /** `path` is sent byte-for-byte (no URL normalization) on the socket transport. */
  request(method: string, path: string, init?: { body?: string; headers?: Record<string, string> }): Promise<Response>;
  close(): Promise<void>;
}

export interface ContentsFixture {
  /** Temp directory holding `root/` and the app's config and data dirs. */
  dir: string;
  root: string;
  app: NbserveApp;
  cleanup(): Promise<void>;
}

export async function makeContentsFixture(options: Partial<CreateAppOptions> = {}): Promise<ContentsFixture> {
  const dir = await fs.realpath(await fs.mkdtemp(nodePath.join(os.tmpdir(), 'nbserve-contents-')));
  const root = nodePath.join(dir, 'root');
  for (const sub of ['root', 'config', 'data']) await fs.mkdir(nodePath.join(dir, sub));
  const app = createApp({
    root,
    configDir: nodePath.join(dir, 'config'),
    dataDir: nodePath.join(dir, 'data'),
    token: TOKEN,
    logger: { info: () => {}, warn: () => {}, error: () => {} },
    ...options,
  });
  return {
    dir,
    root,
    app,
    async cleanup() {
      await app.close();
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
}

const auth = { Authorization: `token ${TOKEN}` };

export function inProcess(app: NbserveApp): Transport {
  return {
    name: 'in-process',
    request: async (method, path, init = {}) =>
      app.request(`http://localhost${path}`, {
        method,
        headers: { ...auth, ...init.headers },
        ...(init.body !== undefined ? { body: init.body } : {}),
      }),
    close: async () => {},
  };
}

/** A real listening server on port 0; requests go through node:http so paths are not normalized. */
export async function overSocket(app: NbserveApp): Promise<Transport & { port: number }> {
  const server = createAdaptorServer({ fetch: app.fetch }) as http.Server;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    name: 'socket',
    port,
    request: (method, path, init = {}) =>
      new Promise<Response>((resolve, reject) => {
        const req = http.request(
          {
            host: '127.0.0.1',
            port,
            method,
            path,
            headers: {
              ...auth,
              ...init.headers,
              // Node sends DELETE bodies unframed unless the length is given.
              ...(init.body !== undefined ? { 'Content-Length': String(Buffer.byteLength(init.body)) } : {}),
            },
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (chunk: Buffer) => chunks.push(chunk));
            res.on('end', () => {
              const headers = new Headers();
              for (const [key, value] of Object.entries(res.headers)) {
                if (Array.isArray(value)) for (const v of value) headers.append(key, v);
                else if (value !== undefined) headers.set(key, value);
              }
              const status = res.statusCode ?? 500;
              const body = status === 204 || status === 304 || method === 'HEAD' ? null : Buffer.concat(chunks);
              resolve(new Response(body, { status, headers }));
            });
            res.on('error', reject);
          },
        );
        req.on('error', reject);
        if (init.body !== undefined) req.write(init.body);
        req.end();
      }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Every entry under `dir` with its bytes (or link target): equal snapshots mean nothing changed. */
export async function snapshotTree(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (abs: string, rel: string): Promise<void> => {
    const entries = await fs.readdir(abs, { withFileTypes: true });
    for (const entry of entries) {
      const childAbs = nodePath.join(abs, entry.name);
      const childRel = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isSymbolicLink()) out[childRel] = `link -> ${await fs.readlink(childAbs)}`;
      else if (entry.isDirectory()) {
        out[childRel] = 'dir';
        await walk(childAbs, childRel);
      } else out[childRel] = `file ${(await fs.readFile(childAbs)).toString('base64')}`;
    }
  };
  await walk(dir, '');
  return out;
}
