import { EventEmitter } from 'node:events';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocket, WebSocketServer } from 'ws';

/**
 * What node-server uses of a `ws` WebSocketServer, with `ws` itself loaded on the first upgrade:
 * `ws` (and its deflate and TLS imports) is a seventh of the bundled server's start-up code, and a
 * server that answers `/api` first has no WebSocket to accept yet.
 *
 * node-server calls `handleUpgrade` synchronously (with a 'headers' listener around the call), so
 * the real server must exist by then: `ready()` is awaited before the app sees an upgrade request
 * (see `lazyWebSocketFetch`), which node-server awaits before it calls `handleUpgrade`. The
 * 'connection' events node-server emits stay on this object; 'headers' is passed up from the real
 * server.
 */
export class LazyWebSocketServer extends EventEmitter {
  /** node-server checks this (it only accepts servers without their own HTTP server). */
  readonly options = { noServer: true } as const;
  readonly #handleProtocols: (protocols: Set<string>) => string | false;
  #real: WebSocketServer | undefined;
  #loading: Promise<WebSocketServer> | undefined;
  #closed = false;

  constructor(options: { handleProtocols: (protocols: Set<string>) => string | false }) {
    super();
    this.#handleProtocols = options.handleProtocols;
  }

  /** Loads `ws` and builds the real server (once). */
  ready(): Promise<WebSocketServer> {
    this.#loading ??= import('ws').then(({ WebSocketServer: Server }) => {
      const real = new Server({ noServer: true, handleProtocols: this.#handleProtocols });
      real.on('headers', (headers: string[], request: IncomingMessage) => this.emit('headers', headers, request));
      if (this.#closed) real.close();
      this.#real = real;
      return real;
    });
    return this.#loading;
  }

  /** The open WebSockets (none before the first upgrade). */
  get clients(): Set<WebSocket> {
    return this.#real?.clients ?? new Set();
  }

  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer, done: (ws: WebSocket) => void): void {
    if (!this.#real) {
      // cannot happen through lazyWebSocketFetch; refuse rather than hang the client
      socket.destroy();
      return;
    }
    this.#real.handleUpgrade(request, socket, head, done);
  }

  close(): void {
    this.#closed = true;
    this.#real?.close();
  }
}

/** A kernel or session start: the client's kernel WebSocket follows at once. */
const KERNEL_START = /\/api\/(?:sessions|kernels)\/?(?:\?|$)/;

/**
 * A fetch handler that loads `ws` before the app sees a WebSocket upgrade request. A kernel or
 * session start begins loading it too, so the WebSocket the client opens next does not wait for it.
 */
export function lazyWebSocketFetch<Env>(
  fetch: (request: Request, env?: Env) => Response | Promise<Response>,
  wss: LazyWebSocketServer,
): (request: Request, env?: Env) => Response | Promise<Response> {
  return (request, env) => {
    if (request.headers.get('upgrade')?.toLowerCase() !== 'websocket') {
      if (request.method === 'POST' && KERNEL_START.test(request.url)) void wss.ready().catch(() => {});
      return fetch(request, env);
    }
    return wss.ready().then(() => fetch(request, env));
  };
}
