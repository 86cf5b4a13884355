import { randomUUID } from 'node:crypto';
import type { WebSocket } from 'ws';
import { isNbserveError } from '../errors.js';
import { toRaw } from '../protocol/json-parts.js';
import type { Channel, RawMessage } from '../protocol/types.js';
import { decodeJsonFrame, encodeJsonFrameBytes } from '../protocol/ws-json.js';
import { decodeV1Frame, encodeV1Frame, V1_SUBPROTOCOL } from '../protocol/ws-v1.js';
import { type GatewayClient, isSubprotocolRefusal } from './client.js';

export interface GatewayChannelOptions {
  client: GatewayClient;
  /** The kernel's id on the gateway. */
  remoteId: string;
  /** Every message of the kernel, decoded from the gateway's framing. */
  onMessage: (channel: Channel, raw: RawMessage) => void;
  /** The gateway no longer has the kernel (a reconnect was answered 404). */
  onGone: () => void;
  warn: (message: string) => void;
}

/** Messages queued while the WebSocket is reconnecting; older ones are dropped beyond this. */
const MAX_QUEUED = 1000;
/** Reconnect backoff, as upstream's `gateway_retry_interval` (1 s) and `gateway_retry_interval_max` (30 s). */
const RETRY_FIRST_MS = 1000;
const RETRY_MAX_MS = 30_000;
/** Pings keep proxies in front of the gateway from dropping an idle channel; no pong for 3 of them ends it. */
const PING_INTERVAL_MS = 30_000;

/**
 * The one channels WebSocket this server keeps to a kernel on a gateway, under one session id
 * so that a reconnect gets what the gateway buffered meanwhile. Speaks the v1 protocol when the
 * gateway accepts it and the JSON framing otherwise (Enterprise Gateway, Kernel Gateway);
 * reconnects with backoff while the kernel exists.
 */
export class GatewayChannel {
  readonly #options: GatewayChannelOptions;
  readonly #sessionId = randomUUID();
  #ws: WebSocket | undefined;
  #queue: Array<[Channel, RawMessage]> = [];
  #closed = false;
  #retryTimer: NodeJS.Timeout | undefined;
  #retries = 0;
  #pingTimer: NodeJS.Timeout | undefined;
  /** Frames from the gateway that could not be decoded. */
  badFrames = 0;

  constructor(options: GatewayChannelOptions) {
    this.#options = options;
  }

  /** Connects; rejects with the gateway's error (unreachable, 404, …) so a kernel start can fail with it. */
  async open(): Promise<void> {
    const ws = await this.#connect();
    this.#adopt(ws);
  }

  async #connect(): Promise<WebSocket> {
    const { client, remoteId } = this.#options;
    const path = `api/kernels/${encodeURIComponent(remoteId)}/channels?session_id=${encodeURIComponent(this.#sessionId)}`;
    if (client.v1 !== false) {
      try {
        return await client.openWebSocket(path, [V1_SUBPROTOCOL]);
      } catch (error) {
        if (!isSubprotocolRefusal(error)) throw error;
        // It opened the socket without choosing a subprotocol: a JSON-only gateway.
        client.v1 = false;
      }
    }
    return client.openWebSocket(path, []);
  }

  #adopt(ws: WebSocket): void {
    if (this.#closed) {
      ws.close(1000);
      return;
    }
    const v1 = ws.protocol === V1_SUBPROTOCOL;
    this.#options.client.v1 ??= v1;
    this.#ws = ws;
    this.#retries = 0;
    ws.on('message', (data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean) => this.#receive(data, isBinary, v1));
    ws.on('error', () => {});
    let lastPong = Date.now();
    ws.on('pong', () => {
      lastPong = Date.now();
    });
    clearInterval(this.#pingTimer);
    this.#pingTimer = setInterval(() => {
      if (Date.now() - lastPong > 3 * PING_INTERVAL_MS) ws.terminate();
      else ws.ping();
    }, PING_INTERVAL_MS);
    this.#pingTimer.unref();
    ws.on('close', () => {
      if (this.#ws !== ws) return;
      this.#ws = undefined;
      clearInterval(this.#pingTimer);
      this.#scheduleReconnect();
    });
    const queued = this.#queue;
    this.#queue = [];
    for (const [channel, raw] of queued) this.send(channel, raw);
  }

  #receive(data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean, v1: boolean): void {
    const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data);
    let channel: Channel;
    let raw: RawMessage;
    try {
      if (v1) {
        ({ channel, raw } = decodeV1Frame(bytes));
      } else {
        const decoded = decodeJsonFrame(bytes, isBinary);
        channel = decoded.channel;
        raw = toRaw(decoded.msg);
      }
    } catch {
      this.badFrames++;
      if (this.badFrames === 1)
        this.#options.warn(`Gateway ${this.#options.client.name} sent a frame that is not a kernel message`);
      return;
    }
    this.#options.onMessage(channel, raw);
  }

  /** Sends in the gateway's framing; queued (bounded) while reconnecting. */
  send(channel: Channel, raw: RawMessage): void {
    if (this.#closed) return;
    const ws = this.#ws;
    if (!ws) {
      if (this.#queue.length >= MAX_QUEUED) this.#queue.shift();
      this.#queue.push([channel, raw]);
      return;
    }
    if (ws.protocol === V1_SUBPROTOCOL) {
      ws.send(encodeV1Frame(channel, raw), { binary: true });
    } else {
      const { data, binary } = encodeJsonFrameBytes(channel, raw);
      ws.send(data, { binary });
    }
  }

  #scheduleReconnect(): void {
    if (this.#closed || this.#retryTimer) return;
    const { client, remoteId } = this.#options;
    const delay = Math.min(RETRY_FIRST_MS * 2 ** this.#retries, RETRY_MAX_MS) + Math.random() * 1000;
    this.#retries++;
    if (this.#retries === 1)
      this.#options.warn(`Lost the channels of kernel ${remoteId} on gateway ${client.name}; reconnecting`);
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = undefined;
      this.#connect().then(
        (ws) => this.#adopt(ws),
        (error) => {
          if (isNbserveError(error) && error.kind === 'not-found') this.#options.onGone();
          else this.#scheduleReconnect();
        },
      );
    }, delay);
    this.#retryTimer.unref();
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    clearTimeout(this.#retryTimer);
    clearInterval(this.#pingTimer);
    this.#queue = [];
    const ws = this.#ws;
    this.#ws = undefined;
    ws?.close(1000);
  }
}
