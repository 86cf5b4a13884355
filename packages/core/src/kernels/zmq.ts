import { createRequire } from 'node:module';
import type * as Zmq from 'zeromq';

let loaded: typeof Zmq | undefined;

/**
 * zeromq, loaded on first use: it is a native addon whose load costs tens of milliseconds, and a
 * server that has not started a kernel yet (every server at start-up) does not need it.
 */
export function zmq(): typeof Zmq {
  if (!loaded) {
    loaded = createRequire(import.meta.url)('zeromq') as typeof Zmq;
    noZeroCopyReceive(loaded.context);
  }
  return loaded;
}

/** libzmq's context option ZMQ_ZERO_COPY_RECV (http://api.zeromq.org/4-3:zmq-ctx-set). */
const ZMQ_ZERO_COPY_RECV = 10;

/**
 * By default libzmq hands a received message of up to 8 KiB out as a slice of the 8 KiB batch
 * buffer its I/O thread read it into, and zeromq.js wraps a frame over 128 bytes without copying;
 * so every frame the server keeps, or has not garbage-collected yet, pins a whole batch buffer,
 * while V8 is told only of the frame's own size. A burst of kernel replies then left tens of MB
 * of such buffers waiting for a GC that V8 saw no reason to run. Off, each message gets a buffer
 * of its own size (one copy of a small message in the I/O thread).
 */
function noZeroCopyReceive(context: Zmq.Context): void {
  (context as unknown as { setBoolOption(option: number, value: boolean): void }).setBoolOption(
    ZMQ_ZERO_COPY_RECV,
    false,
  );
}

/**
 * Options for every socket that connects to a kernel (zmtp-socket.ts's, and zeromq.js's REQ for
 * the heartbeat). The server connects right after spawning the kernel, before it has bound its
 * ports; libzmq would retry a refused connection only after 100 ms plus up to 100 ms of jitter,
 * which every kernel start would pay. Retries start at 10 ms and back off to 1 s (a dead kernel is
 * not polled hard).
 */
export const KERNEL_SOCKET_OPTIONS = { linger: 0, reconnectInterval: 10, reconnectMaxInterval: 1000 } as const;
