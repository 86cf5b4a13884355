import { protocol } from '@nbserve/core';
import type { WebSocket } from 'ws';
import type { ChannelCodec } from './codec.js';
import { IopubRateLimiter, type RateLimitOptions } from './rate-limit.js';

export interface ChannelSocketOptions {
  /** Ping every this many ms; a socket without a pong for 3 intervals (at least 30 s) is dropped. 0 = off. */
  pingIntervalMs: number;
  /** Bytes a socket may have unsent before further messages wait in its overflow queue. */
  highWaterBytes: number;
  /** Bytes the overflow queue may hold; beyond it the slow client is disconnected (and can replay). */
  overflowBytes: number;
  rateLimit: RateLimitOptions;
}

/** The server's `highWaterBytes` (not a setting: the kernel protocol's back-pressure, see docs/kernels.md). */
export const SOCKET_HIGH_WATER_BYTES = 4 * 1024 * 1024;
/** The server's `overflowBytes`. */
export const SOCKET_OVERFLOW_BYTES = 64 * 1024 * 1024;

/** One outgoing message, with its encodings cached so N clients cost one encoding per framing. */
export class Outgoing {
  json: { data: Buffer; binary: boolean } | undefined;
  v1: { data: Buffer; binary: boolean } | undefined;
  constructor(
    readonly channel: protocol.Channel,
    readonly raw: protocol.RawMessage,
    readonly msgType: string,
  ) {}

  frame(codec: ChannelCodec): { data: Buffer; binary: boolean } {
    if (codec.subprotocol === '') {
      this.json ??= codec.encode(this.channel, this.raw);
      return this.json;
    }
    this.v1 ??= codec.encode(this.channel, this.raw);
    return this.v1;
  }
}

/**
 * The server side of one kernel WebSocket: encoding with the negotiated codec, keep-alive pings,
 * the optional iopub rate limit, and back-pressure. A slow client never blocks the kernel or other
 * clients: while its socket has more than `highWaterBytes` unsent, frames wait in a bounded
 * overflow queue; past that bound the client is disconnected with 1013 and, reconnecting with the
 * same session_id, gets what was buffered meanwhile.
 */
export class ChannelSocket {
  readonly #ws: WebSocket;
  readonly codec: ChannelCodec;
  readonly #options: ChannelSocketOptions;
  readonly #limiter: IopubRateLimiter;
  readonly #session: string;
  #overflow: Buffer[] = [];
  #overflowBinary: boolean[] = [];
  #overflowBytes = 0;
  #flushTimer: NodeJS.Timeout | undefined;
  #pingTimer: NodeJS.Timeout | undefined;
  #lastPong = Date.now();
  #closed = false;
  #corked = false;
  onClose: () => void = () => {};

  constructor(ws: WebSocket, codec: ChannelCodec, options: ChannelSocketOptions, serverSession: string) {
    this.#ws = ws;
    this.codec = codec;
    this.#options = options;
    this.#session = serverSession;
    this.#limiter = new IopubRateLimiter(options.rateLimit);
    ws.on('close', () => this.#handleClose());
    ws.on('error', () => this.#handleClose());
    ws.on('pong', () => {
      this.#lastPong = Date.now();
    });
    if (options.pingIntervalMs > 0) {
      const deadAfter = Math.max(3 * options.pingIntervalMs, 30_000);
      this.#pingTimer = setInterval(() => {
        if (Date.now() - this.#lastPong > deadAfter) {
          ws.terminate();
          return;
        }
        ws.ping();
      }, options.pingIntervalMs);
      this.#pingTimer.unref();
    }
  }

  get closed(): boolean {
    return this.#closed;
  }

  get ws(): WebSocket {
    return this.#ws;
  }

  /** Sends one message, applying the rate limit to iopub. */
  deliver(message: Outgoing): void {
    if (this.#closed) return;
    if (message.channel === 'iopub' && this.#limiter.enabled) {
      const verdict = this.#limiter.check(message.raw, message.msgType, this.#session);
      if (verdict.action === 'drop') return;
      if (verdict.action === 'notice') {
        this.#write(this.codec.encode('iopub', verdict.notice));
        return;
      }
    }
    this.#write(message.frame(this.codec));
  }

  #write(frame: { data: Buffer; binary: boolean }): void {
    if (this.#overflow.length === 0) {
      // Corked bytes are not a slow client: push them to the OS before judging the backlog.
      if (this.#corked && this.#ws.bufferedAmount >= this.#options.highWaterBytes) this.#uncork();
      if (this.#ws.bufferedAmount < this.#options.highWaterBytes) {
        this.#cork();
        this.#ws.send(frame.data, { binary: frame.binary });
        return;
      }
    }
    this.#overflow.push(frame.data);
    this.#overflowBinary.push(frame.binary);
    this.#overflowBytes += frame.data.length;
    if (this.#overflowBytes > this.#options.overflowBytes) {
      this.close(1013, 'Client too slow');
      return;
    }
    this.#flushTimer ??= setTimeout(() => this.#flush(), 5);
  }

  /**
   * Frames sent in the same tick (an iopub burst) leave in one writev instead of one syscall
   * each; the socket is uncorked right after the current batch of microtasks.
   */
  #cork(): void {
    if (this.#corked) return;
    const socket = this.#socket();
    if (!socket) return;
    this.#corked = true;
    socket.cork();
    process.nextTick(() => this.#uncork());
  }

  #uncork(): void {
    if (!this.#corked) return;
    this.#corked = false;
    this.#socket()?.uncork();
  }

  #socket(): { cork(): void; uncork(): void } | undefined {
    return (this.#ws as unknown as { _socket?: { cork(): void; uncork(): void } })._socket;
  }

  #flush(): void {
    this.#flushTimer = undefined;
    if (this.#closed) return;
    let i = 0;
    while (i < this.#overflow.length && this.#ws.bufferedAmount < this.#options.highWaterBytes) {
      const data = this.#overflow[i] as Buffer;
      this.#ws.send(data, { binary: this.#overflowBinary[i] as boolean });
      this.#overflowBytes -= data.length;
      i++;
    }
    this.#overflow = this.#overflow.slice(i);
    this.#overflowBinary = this.#overflowBinary.slice(i);
    if (this.#overflow.length > 0) this.#flushTimer = setTimeout(() => this.#flush(), 5);
  }

  close(code = 1000, reason = ''): void {
    if (this.#closed) return;
    this.#ws.close(code, reason);
    this.#handleClose();
  }

  #handleClose(): void {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#pingTimer);
    clearTimeout(this.#flushTimer);
    this.#overflow = [];
    this.#overflowBinary = [];
    this.onClose();
  }
}

/** A status message the server itself sends (restarting, dead), with `parent_header: {}`. */
export function serverStatus(state: string, session: string): protocol.RawMessage {
  return protocol.toRaw(protocol.createMessage('status', { execution_state: state }, { session }));
}
