import { createRequire } from 'node:module';
import type * as Zmq from 'zeromq';

let loaded: typeof Zmq | undefined;

/**
 * zeromq, loaded on first use: it is a native addon whose load costs tens of milliseconds, and a
 * server that has not started a kernel yet (every server at start-up) does not need it.
 */
export function zmq(): typeof Zmq {
  loaded ??= createRequire(import.meta.url)('zeromq') as typeof Zmq;
  return loaded;
}

/**
 * Options for every socket that connects to a kernel. The server connects right after spawning the
 * kernel, before it has bound its ports; libzmq would retry a refused connection only after
 * 100 ms plus up to 100 ms of jitter, which every kernel start would pay. Retries start at 10 ms
 * and back off to 1 s (a dead kernel is not polled hard).
 */
export const KERNEL_SOCKET_OPTIONS = { linger: 0, reconnectInterval: 10, reconnectMaxInterval: 1000 } as const;
