import { readFileSync } from 'node:fs';
import type { IncomingMessage, RequestListener, Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { createAdaptorServer, getRequestListener, type WebSocketServerLike } from '@hono/node-server';
import { type CreateAppOptions, createApp, type NbserveApp } from './app.js';
import { DEFAULTS } from './defaults.js';
import { defaultLogger, type Logger } from './options.js';
import { closeTcpAfterHandshake } from './ws/close-after-handshake.js';
import { LazyWebSocketServer, lazyWebSocketFetch } from './ws/lazy-server.js';
import { guardUpgradeHost, refusedUpgradeHost } from './ws/upgrade-host.js';

/** The kernel WebSocket subprotocol of jupyter_server 2; chosen whenever a client offers it. */
export const KERNEL_WS_PROTOCOL = 'v1.kernel.websocket.jupyter.org';

/** `ws`'s `handleProtocols`: pick the v1 kernel protocol when offered, otherwise no subprotocol. */
export function selectSubprotocol(protocols: Set<string>): string | false {
  return protocols.has(KERNEL_WS_PROTOCOL) ? KERNEL_WS_PROTOCOL : false;
}

/** Anything with a Fetch-API handler: an nbserve app, or a host Hono app nbserve is mounted in. */
export interface FetchApp {
  fetch: (request: Request, env?: unknown) => Response | Promise<Response>;
}

export interface ListenOptions {
  /** Port to try first; 0 picks a free one. Default `DEFAULTS.port`. */
  port?: number;
  /** Interface to bind. Default `DEFAULTS.ip`. */
  ip?: string;
  /** How many following ports to try when the port is busy; 0 fails at once. Default `DEFAULTS.portRetries`. */
  portRetries?: number;
  /** PEM certificate (chain) file: with `keyfile`, serves HTTPS and WSS. */
  certfile?: string;
  /** PEM private key file for `certfile`. */
  keyfile?: string;
}

/** The TLS key pair to serve with, or null for plain HTTP; one file without the other is an error. */
function readTls(options: ListenOptions): { cert: Buffer; key: Buffer } | null {
  const { certfile, keyfile } = options;
  if (!certfile && !keyfile) return null;
  if (!certfile || !keyfile) throw new Error('HTTPS needs both a certificate file and a key file');
  const read = (file: string, what: string) => {
    try {
      return readFileSync(file);
    } catch (error) {
      throw new Error(`Cannot read the ${what} file ${file}: ${(error as Error).message}`);
    }
  };
  return { cert: read(certfile, 'certificate'), key: read(keyfile, 'key') };
}

export interface RunningServer {
  /** Base URL without the token, e.g. `http://127.0.0.1:8888/` (`https:` with a certificate). */
  url: string;
  port: number;
  server: Server;
  /** Stops listening, ends open connections and WebSockets, and closes the app's services. */
  close(): Promise<void>;
  /** Settles once the server has stopped, whether by `close()` or `POST /api/shutdown`. */
  closed: Promise<void>;
}

/** `ws` is loaded on the first WebSocket upgrade, not at start-up (see LazyWebSocketServer). */
function newWebSocketServer(): LazyWebSocketServer {
  const wss = new LazyWebSocketServer({ handleProtocols: selectSubprotocol });
  wss.on('connection', closeTcpAfterHandshake);
  return wss;
}

function listenOnce(server: Server, port: number, ip: string): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error) => {
      server.off('listening', onListening);
      reject(error);
    };
    const onListening = () => {
      server.off('error', onError);
      resolve(server.address() as AddressInfo);
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen(port, ip);
  });
}

/**
 * Listens on `port`, or the next free one of the following `retries` ports; says so on the log
 * for each busy port, in jupyter_server's words, so a moved server is never a surprise.
 */
async function listenWithRetries(
  server: Server,
  port: number,
  ip: string,
  retries: number,
  logger: Pick<Logger, 'warn'>,
): Promise<AddressInfo> {
  for (let attempt = 0; ; attempt++) {
    const candidate = port === 0 ? 0 : port + attempt;
    try {
      return await listenOnce(server, candidate, ip);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'EADDRINUSE' || port === 0 || attempt >= retries || candidate >= 65535) {
        if (code === 'EADDRINUSE') {
          const tried = attempt === 0 ? `port ${port}` : `ports ${port}-${candidate}`;
          throw new Error(`The ${tried} on ${ip} ${attempt === 0 ? 'is' : 'are'} already in use`, { cause: error });
        }
        throw error;
      }
      logger.warn(`The port ${candidate} is already in use, trying another port.`);
    }
  }
}

/** The host part of a URL for a bound interface: wildcard binds are shown as `localhost`. */
function displayHost(ip: string): string {
  if (ip === '' || ip === '0.0.0.0' || ip === '::') return 'localhost';
  return ip.includes(':') ? `[${ip}]` : ip;
}

/**
 * Serves any fetch app on Node with WebSockets (node-server 2's built-in support, through a `ws`
 * server that selects the kernel subprotocol). Low level: `serve()` builds the nbserve app first.
 */
export async function listen(
  app: FetchApp,
  options: ListenOptions & {
    baseUrl?: string;
    onClose?: () => Promise<void>;
    logger?: Pick<Logger, 'warn'>;
    /** Load `ws` right after listening rather than on the first upgrade (WebSockets are expected soon). */
    preloadWebSocket?: boolean;
  },
): Promise<RunningServer> {
  const tls = readTls(options);
  const wss = newWebSocketServer();
  const server = createAdaptorServer({
    fetch: lazyWebSocketFetch(app.fetch, wss),
    // structurally what node-server expects of ws's WebSocketServer; exactOptionalPropertyTypes needs the cast.
    websocket: { server: wss as unknown as WebSocketServerLike },
    ...(tls ? { createServer: createHttpsServer, serverOptions: tls } : {}),
  }) as Server;
  guardUpgradeHost(server);
  const ip = options.ip ?? DEFAULTS.ip;
  const address = await listenWithRetries(
    server,
    options.port ?? DEFAULTS.port,
    ip,
    options.portRetries ?? DEFAULTS.portRetries,
    options.logger ?? defaultLogger,
  );
  if (options.preloadWebSocket) setImmediate(() => void wss.ready().catch(() => {}));
  let resolveClosed: () => void = () => {};
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });
  let closing: Promise<void> | null = null;
  const close = () => {
    closing ??= (async () => {
      for (const client of wss.clients) client.terminate();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      wss.close();
      await options.onClose?.();
      resolveClosed();
    })();
    return closing;
  };
  return {
    url: `${tls ? 'https' : 'http'}://${displayHost(ip)}:${address.port}${options.baseUrl ?? DEFAULTS.baseUrl}`,
    port: address.port,
    server,
    close,
    closed,
  };
}

export type ServeOptions = CreateAppOptions & ListenOptions;

/** Builds the nbserve app and serves it; `POST /api/shutdown` and `close()` both stop it cleanly. */
export async function serve(options: ServeOptions): Promise<RunningServer & { app: NbserveApp }> {
  const { port, portRetries, certfile, keyfile, ...appOptions } = options;
  const app = createApp(appOptions);
  let running: RunningServer;
  try {
    // A kernel pool that cannot be (an unknown or unpoolable kernelspec) stops the start.
    // Before the first request: kernels an earlier server left running are listed with their sessions.
    await app.services.kernelsAdopted;
    if (!app.services.options.gatewayUrl) await app.services.kernels.startPools();
    running = await listen(app, {
      ...(port === undefined ? {} : { port }),
      ...(portRetries === undefined ? {} : { portRetries }),
      ...(certfile === undefined ? {} : { certfile }),
      ...(keyfile === undefined ? {} : { keyfile }),
      ip: app.services.options.ip,
      baseUrl: app.services.options.baseUrl,
      onClose: () => app.close(),
      logger: app.services.options.logger,
      // a server with a kernel pool expects notebooks to open: their first WebSocket need not wait for ws
      preloadWebSocket: !app.services.options.gatewayUrl && Object.keys(app.services.options.kernelPools).length > 0,
    });
  } catch (error) {
    await app.close();
    throw error;
  }
  app.onShutdown(() => running.close());
  app.services.hub?.startReporting(app.services.activity);
  return { ...running, app };
}

export interface AttachOptions {
  /** Only upgrades under this path prefix are nbserve's (default `/`: all). */
  prefix?: string;
}

/**
 * Mounts an app inside a foreign `http.Server` (Express, Fastify, a bare server): returns the
 * request listener to call for the app's requests, and bridges the server's `upgrade` events under
 * `prefix` into the app's WebSocket routes. node-server only wires WebSockets into servers it
 * creates, so the bridge hands each upgrade to a never-listening adaptor server that has them.
 */
export function attachToServer(
  server: Server,
  app: FetchApp,
  options: AttachOptions = {},
): { handleRequest: RequestListener; detach(): void } {
  const prefix = options.prefix ?? '/';
  const wss = newWebSocketServer();
  const adaptor = createAdaptorServer({
    fetch: lazyWebSocketFetch(app.fetch, wss),
    websocket: { server: wss as unknown as WebSocketServerLike },
  });
  const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = request.url ?? '/';
    if (
      prefix === '/' ||
      path === prefix.replace(/\/$/, '') ||
      path.startsWith(prefix.endsWith('/') ? prefix : `${prefix}/`)
    ) {
      if (refusedUpgradeHost(request, socket)) return;
      adaptor.emit('upgrade', request, socket, head);
    }
  };
  const onClose = () => {
    for (const client of wss.clients) client.terminate();
    wss.close();
  };
  server.on('upgrade', onUpgrade);
  server.on('close', onClose);
  const listener = getRequestListener(app.fetch);
  return {
    handleRequest: (req, res) => {
      void listener(req, res);
    },
    detach() {
      server.off('upgrade', onUpgrade);
      server.off('close', onClose);
      onClose();
    },
  };
}
