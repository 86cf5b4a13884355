/**
 * The project's test kit for a running nbserve, after jupyter_server's pytest plugin
 * (`jp_serverapp`, `jp_root_dir`, `jp_fetch`): `createTestApp()` builds an app over fresh temp
 * directories with the kit's `TOKEN` and a recording logger; `startServer()` also serves it on a
 * real socket (port 0), and hands back both ways of talking to it: `fetch` over the socket and
 * `request` in-process (`app.request`). Paths given to them are relative to where nbserve is
 * served, so the same test runs unchanged under every entry of `BASE_URL_MATRIX`.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { ServerConnection } from '@jupyterlab/services';
import { type CreateAppOptions, createApp, type FetchApp, listen, type NbserveApp } from '@nbserve/http';
import { Hono } from 'hono';
import { WebSocket } from 'ws';
import { setCookies } from './cookie-jar.js';
import { writeFloodKernelSpec } from './flood-kernelspec.js';
import { requestOverSocket } from './http-client.js';
import { type RecordingLogger, recordingLogger } from './logger.js';
import { makeTempDir, removeDir } from './temp.js';
import { TOKEN } from './token.js';

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

/** The two ways a test reaches a server: `request` in-process and `fetch` over the socket. */
export const TRANSPORTS = ['in-process', 'socket'] as const;
export type Transport = (typeof TRANSPORTS)[number];

/** App options (they win over the kit's defaults), plus where and with what kernels to serve. */
export type StartServerOptions = Partial<CreateAppOptions> & {
  /** Mount nbserve at this path of a host Hono app (`new Hono().route(prefix, app)`), as README shows. */
  mountPrefix?: string;
  /**
   * Write the flood test kernels (`flood`, `mute`, `slow`; testing/flood-kernel.ts) into `kernelsDir` and
   * look for kernelspecs there and in Debian's `/usr/share/jupyter/kernels` (`python3`) only.
   */
  floodKernels?: boolean;
  /** A `BASE_URL_MATRIX` entry's name (spread in with it); ignored. */
  name?: string;
  /** `startServer` listens on this port (default 0: any free one). */
  port?: number;
};

/**
 * `RequestInit` plus `auth: false` to leave the token off (it is sent as `Authorization: token`),
 * and `json` for a JSON body (sent with `Content-Type: application/json`).
 */
export type SendInit = RequestInit & { auth?: boolean; json?: unknown };
/**
 * Sends a request to a path relative to where nbserve is served (`api/status`, `tree?x=1`, `''`
 * for the prefix itself); a path starting with `/` is taken as is (`/nb` without its slash).
 * Redirects are returned, not followed.
 */
export type Send = (relative: string, init?: SendInit) => Promise<Response>;

/** An app over fresh temp directories, reached in-process. */
export interface TestApp {
  /** URL path nbserve answers under, ending in `/`: the mount prefix plus the base URL. */
  prefix: string;
  token: string;
  /** The temp directory holding `config/`, `data/`, `runtime/`, `kernels/` (and `root/` unless one was given). */
  dir: string;
  root: string;
  runtimeDir: string;
  /** Where `floodKernels` wrote its kernelspecs. */
  kernelsDir: string;
  /** The nbserve app (its services, options, close). */
  app: NbserveApp;
  /** What requests go to: the host app for a mount, else `app`. */
  host: FetchApp;
  /** The app's logger: silent, every line kept in `logger.lines`. */
  logger: RecordingLogger;
  /** `prefix + relative` (a `/`-path as is): the URL path, as `Location` headers should carry it. */
  path(relative: string): string;
  /** In-process (`host.fetch`, as `http://localhost`). */
  request: Send;
  /** Closes the app (kernels shut down) and removes the temp directory. */
  close(): Promise<void>;
}

export interface TestServer extends TestApp {
  port: number;
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** `origin + prefix`: the URL nbserve prints (without the token). */
  url: string;
  /**
   * Over the real socket, through node:http: the path goes out byte for byte (no URL
   * normalization), headers exactly as given (no added `Sec-Fetch-*`), redirects not followed.
   */
  fetch: Send;
  /** In-process (`host.fetch`, as `origin`), same semantics as `fetch`. */
  request: Send;
  /** `fetch` for `socket`, `request` for `in-process`. */
  send(transport: Transport): Send;
  /** `ws://127.0.0.1:<port><prefix><relative>` */
  wsUrl(relative: string): string;
  /**
   * Settings for `@jupyterlab/services` clients pointed at this server; `jsonOnly` gives them a
   * WebSocket that offers no subprotocol, so the server falls back to the JSON framing.
   */
  jupyterSettings(options?: { jsonOnly?: boolean }): ServerConnection.ISettings;
  /** Settles once the server stopped listening (`close()` or `POST api/shutdown`). */
  closed: Promise<void>;
  /** Stops the server and shuts kernels down, keeping the temp directory (to restart over it). */
  stop(): Promise<void>;
  /** `stop()`, then removes the temp directory. */
  close(): Promise<void>;
}

/** A WebSocket that offers no subprotocol, so the server falls back to the JSON framing. */
export class JsonOnlyWebSocket extends WebSocket {
  constructor(url: string | URL, _protocols?: string | string[]) {
    super(url);
  }
}

function joinPrefix(mountPrefix: string | undefined, baseUrl: string): string {
  const mount = (mountPrefix ?? '').replace(/\/+$/, '');
  return `${mount}${baseUrl}`;
}

function requestInit({ auth = true, json, headers, ...rest }: SendInit = {}): RequestInit {
  const merged = new Headers(headers);
  if (auth && !merged.has('authorization')) merged.set('authorization', `token ${TOKEN}`);
  if (json !== undefined && !merged.has('content-type')) merged.set('content-type', 'application/json');
  return {
    redirect: 'manual',
    ...rest,
    ...(json === undefined ? {} : { body: JSON.stringify(json) }),
    headers: merged,
  };
}

/** The app alone (no socket): `jp_serverapp` with `jp_root_dir`, for tests that only need `app.request`. */
export async function createTestApp(options: StartServerOptions = {}): Promise<TestApp> {
  const { mountPrefix, floodKernels, name: _name, port: _port, ...appOptions } = options;
  const dir = await makeTempDir();
  const root = options.root ?? path.join(dir, 'root');
  const runtimeDir = path.join(dir, 'runtime');
  const kernelsDir = path.join(dir, 'kernels');
  for (const sub of ['config', 'data', 'runtime']) await fs.mkdir(path.join(dir, sub));
  if (!options.root) await fs.mkdir(root);
  if (floodKernels) {
    await writeFloodKernelSpec(kernelsDir, 'flood');
    await writeFloodKernelSpec(kernelsDir, 'mute', { extraArgs: ['--mute'] });
    // Publishes its connection at once but reads its first request only after 3 s.
    await writeFloodKernelSpec(kernelsDir, 'slow', { extraArgs: ['--serve-after', '3000'] });
  }
  const logger = recordingLogger();
  let app: NbserveApp;
  try {
    app = createApp({
      root,
      token: TOKEN,
      configDir: path.join(dir, 'config'),
      dataDir: path.join(dir, 'data'),
      runtimeDir,
      logger,
      ...(floodKernels ? { kernelSpecDirs: [kernelsDir, '/usr/share/jupyter/kernels'] } : {}),
      // never the user's own prebuilt JupyterLab extensions
      labExtensionsDirs: [path.join(dir, 'labextensions')],
      ...appOptions,
    });
  } catch (error) {
    await removeDir(dir); // an app that cannot start (a bad option) leaves nothing behind
    throw error;
  }
  const host: FetchApp = mountPrefix ? new Hono().route(mountPrefix, app) : app;
  const prefix = joinPrefix(mountPrefix, app.services.options.baseUrl);
  const absolute = (relative: string) => (relative.startsWith('/') ? relative : `${prefix}${relative}`);
  return {
    prefix,
    token: TOKEN,
    dir,
    root,
    runtimeDir,
    kernelsDir,
    app,
    host,
    logger,
    path: absolute,
    request: async (relative, init) =>
      host.fetch(new Request(`http://localhost${absolute(relative)}`, requestInit(init))),
    async close() {
      await app.close();
      await removeDir(dir);
    },
  };
}

/** The app served on 127.0.0.1, port 0: `jp_serverapp` plus `jp_fetch`. */
export async function startServer(options: StartServerOptions = {}): Promise<TestServer> {
  const base = await createTestApp(options);
  const { app, host } = base;
  const running = await listen(host, { port: options.port ?? 0, portRetries: 0, onClose: () => app.close() }).catch(
    async (error) => {
      await base.close();
      throw error;
    },
  );
  app.onShutdown(() => running.close());
  const origin = `http://127.0.0.1:${running.port}`;
  const fetch: Send = (relative, init) => requestOverSocket(running.port, base.path(relative), requestInit(init));
  const request: Send = async (relative, init) =>
    host.fetch(new Request(`${origin}${base.path(relative)}`, requestInit(init)));
  return {
    ...base,
    port: running.port,
    origin,
    url: `${origin}${base.prefix}`,
    fetch,
    request,
    send: (transport) => (transport === 'socket' ? fetch : request),
    wsUrl: (relative) => `ws://127.0.0.1:${running.port}${base.path(relative)}`,
    jupyterSettings: ({ jsonOnly = false } = {}) =>
      ServerConnection.makeSettings({
        baseUrl: `${origin}${base.prefix}`,
        token: TOKEN,
        WebSocket: (jsonOnly ? JsonOnlyWebSocket : WebSocket) as unknown as typeof globalThis.WebSocket,
        fetch: globalThis.fetch,
      }),
    closed: running.closed,
    stop: () => running.close(),
    async close() {
      await running.close();
      await removeDir(base.dir);
    },
  };
}

/** Asserts the Jupyter error shape `{message, reason}` and that no token or stack trace leaks. */
export async function jupyterError(response: Response): Promise<{ message: string; reason: string | null }> {
  const text = await response.text();
  if (text.includes(TOKEN) || /\n\s+at /.test(text)) throw new Error(`error body leaks internals: ${text}`);
  const body = JSON.parse(text) as { message: string; reason: string | null };
  if (typeof body.message !== 'string' || !('reason' in body)) throw new Error(`not a Jupyter error: ${text}`);
  return body;
}

/** Logs in through `?token=` (in-process, as `host`) and returns the Cookie header a browser would then send. */
export async function loginCookies(app: FetchApp, host = 'localhost'): Promise<{ cookie: string; xsrf: string }> {
  const response = await app.fetch(new Request(`http://${host}/api/status?token=${TOKEN}`));
  const login = [...setCookies(response)].find(([name]) => name.startsWith('username-'));
  if (!login) throw new Error('no login cookie was set');
  const xsrf = 'x5rfx5rfx5rfx5rf';
  return { cookie: `${login[0]}=${login[1].value}; _xsrf=${xsrf}`, xsrf };
}
