/**
 * The project's test kit for a running nbserve, after jupyter_server's pytest plugin
 * (`jp_serverapp`, `jp_root_dir`, `jp_fetch`): `startServer()` builds an app over fresh temp
 * directories with a known token, serves it on a real socket (port 0), and hands back both ways
 * of talking to it: `fetch` over the socket and `request` in-process (`app.request`). Paths given
 * to them are relative to where nbserve is served, so the same test runs unchanged under every
 * entry of `BASE_URL_MATRIX`.
 */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ServerConnection } from '@jupyterlab/services';
import { type CreateAppOptions, createApp, type FetchApp, listen, type NbserveApp } from '@nbserve/http';
import { Hono } from 'hono';
import { WebSocket } from 'ws';
import { requestOverSocket } from './http-client.js';

/** Where nbserve is served: its own `--base-url`, and/or a mount path in a host Hono app. */
export interface ServerEntry {
  /** Shown in test names. */
  name: string;
  /** nbserve's `baseUrl` option (default `/`). */
  baseUrl?: string;
  /** Mount nbserve at this path of a host Hono app (`new Hono().route(prefix, app)`), as README shows. */
  mountPrefix?: string;
}

/**
 * Every way nbserve is reached in practice: the root; an escaped base URL (the browser sends `%40`
 * as is); the URL JupyterHub gives a user whose name is an e-mail address; and a mount in a host app.
 */
export const BASE_URL_MATRIX: readonly ServerEntry[] = [
  { name: 'base URL /', baseUrl: '/' },
  { name: 'base URL /a%40b/', baseUrl: '/a%40b/' },
  { name: 'base URL /user/a%40b/', baseUrl: '/user/a%40b/' },
  { name: 'mounted at /notebooks-server', mountPrefix: '/notebooks-server' },
];

export const TEST_TOKEN = 'c4f3b4b3c4f3b4b3c4f3b4b3c4f3b4b3c4f3b4b3c4f3b4b3';

export interface StartServerOptions {
  baseUrl?: string;
  mountPrefix?: string;
  /** Serve this directory (left in place on close); default a fresh `root/` in the temp dir. */
  root?: string;
  /** Any other app option; wins over the kit's defaults. */
  options?: Partial<CreateAppOptions>;
}

/** `RequestInit` plus `auth: false` to leave the token off (it is sent as `Authorization: token`). */
export type SendInit = RequestInit & { auth?: boolean };
/**
 * Sends a request to a path relative to where nbserve is served (`api/status`, `tree?x=1`, `''`
 * for the prefix itself); a path starting with `/` is taken as is (`/nb` without its slash).
 */
export type Send = (relative: string, init?: SendInit) => Promise<Response>;

export interface TestServer {
  /** URL path nbserve answers under, ending in `/`: the mount prefix plus the base URL. */
  prefix: string;
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** `origin + prefix`: the URL nbserve prints (without the token). */
  url: string;
  token: string;
  /** The temp directory holding `config/`, `data/`, `runtime/` (and `root/` unless one was given). */
  dir: string;
  root: string;
  /** The nbserve app (its services, options, close). */
  app: NbserveApp;
  /** What requests go to: the host app for a mount, else `app`. */
  host: FetchApp;
  /** Every line the server logged. */
  logs: string[];
  /** `prefix + relative` (a `/`-path as is): the URL path, as `Location` headers should carry it. */
  path(relative: string): string;
  /**
   * Over the real socket, through node:http: the path goes out byte for byte (no URL
   * normalization), headers exactly as given (no added `Sec-Fetch-*`), redirects not followed.
   */
  fetch: Send;
  /** In-process (`host.request`), same semantics as `fetch`. */
  request: Send;
  /** `ws://127.0.0.1:<port><prefix><relative>` */
  wsUrl(relative: string): string;
  /** Settings for `@jupyterlab/services` clients pointed at this server. */
  jupyterSettings(): ServerConnection.ISettings;
  /** Settles once the server stopped listening (`close()` or `POST api/shutdown`). */
  closed: Promise<void>;
  /** Stops the server, shuts kernels down, removes the temp directory. */
  close(): Promise<void>;
}

function joinPrefix(mountPrefix: string | undefined, baseUrl: string): string {
  const mount = (mountPrefix ?? '').replace(/\/+$/, '');
  return `${mount}${baseUrl}`;
}

export async function startServer(options: StartServerOptions = {}): Promise<TestServer> {
  const dir = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'nbserve-test-')));
  const root = options.root ?? path.join(dir, 'root');
  for (const sub of ['config', 'data', 'runtime']) await fs.mkdir(path.join(dir, sub));
  if (!options.root) await fs.mkdir(root);
  const logs: string[] = [];
  const app = createApp({
    root,
    token: TEST_TOKEN,
    configDir: path.join(dir, 'config'),
    dataDir: path.join(dir, 'data'),
    runtimeDir: path.join(dir, 'runtime'),
    logger: {
      info: (line) => logs.push(`info ${line}`),
      warn: (line) => logs.push(`warn ${line}`),
      error: (line) => logs.push(`error ${line}`),
    },
    ...(options.baseUrl === undefined ? {} : { baseUrl: options.baseUrl }),
    ...options.options,
  });
  const host: FetchApp = options.mountPrefix ? new Hono().route(options.mountPrefix, app) : app;
  const running = await listen(host, { port: 0, onClose: () => app.close() }).catch(async (error) => {
    await app.close();
    throw error;
  });
  app.onShutdown(() => running.close());
  const origin = `http://127.0.0.1:${running.port}`;
  const prefix = joinPrefix(options.mountPrefix, app.services.options.baseUrl);
  const absolute = (relative: string) => (relative.startsWith('/') ? relative : `${prefix}${relative}`);
  const init = ({ auth = true, headers, ...rest }: SendInit = {}): RequestInit => {
    const merged = new Headers(headers);
    if (auth && !merged.has('authorization')) merged.set('authorization', `token ${TEST_TOKEN}`);
    return { redirect: 'manual', ...rest, headers: merged };
  };
  return {
    prefix,
    origin,
    url: `${origin}${prefix}`,
    token: TEST_TOKEN,
    dir,
    root,
    app,
    host,
    logs,
    path: absolute,
    fetch: (relative, options) => requestOverSocket(running.port, absolute(relative), init(options)),
    request: async (relative, options) => host.fetch(new Request(`${origin}${absolute(relative)}`, init(options))),
    wsUrl: (relative) => `ws://127.0.0.1:${running.port}${absolute(relative)}`,
    jupyterSettings: () =>
      ServerConnection.makeSettings({
        baseUrl: `${origin}${prefix}`,
        token: TEST_TOKEN,
        WebSocket: WebSocket as unknown as typeof globalThis.WebSocket,
        fetch: globalThis.fetch,
      }),
    closed: running.closed,
    async close() {
      await running.close();
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
}
