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
