import net from 'node:net';
import {
  commandName,
  type Decoded,
  encodeMessage,
  FrameDecoder,
  GREETING_LENGTH,
  greeting,
  greetingProblem,
  readyCommand,
} from './zmtp-frames.js';
import { ZmtpInbox } from './zmtp-inbox.js';

/**
 * A ZeroMQ DEALER, SUB or REQ socket that connects to one peer (a kernel's ROUTER, PUB or REP), written in
 * JavaScript on `net.Socket`. The server's kernel sockets were zeromq.js's, where every message
 * crosses libzmq's I/O thread: on these 2-core VMs each such hand-off is a costly wake-up, paid
 * by every message of every round trip (docs/benchmarks.md). Here the bytes go from the event
 * loop to the kernel's socket and back with no other thread.
 *
 * What it keeps of libzmq's behaviour: `connect()` returns at once and the socket connects (and
 * after a lost connection reconnects) in the background, retrying a refused connection after
 * `reconnectInterval` ms, doubling up to `reconnectMaxInterval`; messages sent meanwhile wait and
 * go out, in order, once the peer has answered the handshake; a SUB subscribes again on each
 * connection; `close()` drops what is queued (linger 0). A REQ puts the empty delimiter frame
 * before what it sends and takes it off what it receives (the heartbeat's round trips). The API is
 * zeromq.js's: `send()`, `subscribe()`, `close()` and async iteration over received messages.
 * The bind side (ROUTER, PUB, REP) is zmtp-listener.ts.
 */

export type ZmtpSocketType = 'DEALER' | 'SUB' | 'REQ';

export interface ZmtpSocketOptions {
  /** Sent as the Identity property: the kernel's ROUTER addresses replies (and stdin) to it. */
  routingId?: string;
  reconnectInterval?: number;
  reconnectMaxInterval?: number;
  /** Received messages kept for the reader before reading from the peer pauses; 0: no limit. */
  receiveHighWaterMark?: number;
}

/** Bytes waiting in the connection's write buffer before `send()` waits for it to drain. */
const SEND_HIGH_WATER_BYTES = 1024 * 1024;
/** Messages queued while not connected before `send()` waits (libzmq's default high-water mark). */
const SEND_HIGH_WATER_MESSAGES = 1000;

type State = 'idle' | 'greeting' | 'handshake' | 'ready';

/** ZMTP 3.0's subscription to every topic: a message of the byte 1 and an empty prefix. */
const SUBSCRIBE_ALL = Buffer.from([1]);
const EMPTY = new Uint8Array(0);

export class ZmtpSocket implements AsyncIterable<Buffer[]> {
  readonly #type: ZmtpSocketType;
  readonly #options: Required<Omit<ZmtpSocketOptions, 'routingId'>> & { routingId: string | undefined };
  #endpoint: net.NetConnectOpts | undefined;
  #connection: net.Socket | undefined;
  #decoder = new FrameDecoder();
  #state: State = 'idle';
  #retryMs: number;
  #retryTimer: NodeJS.Timeout | undefined;
  #subscribed = false;
  #closed = false;
  /** Outgoing messages waiting for the handshake to finish. */
  #outbox: Buffer[][] = [];
  /** Senders waiting for room (in the outbox or the connection's buffer). */
  #roomWaiters: (() => void)[] = [];
  /** Received messages the reader has not taken yet. */
  readonly #inbox: ZmtpInbox<Buffer[]>;
  #attempts = 0;

  constructor(type: ZmtpSocketType, options: ZmtpSocketOptions = {}) {
    this.#type = type;
    this.#options = {
      routingId: options.routingId,
      reconnectInterval: options.reconnectInterval ?? 100,
      reconnectMaxInterval: options.reconnectMaxInterval ?? 0,
      receiveHighWaterMark: options.receiveHighWaterMark ?? 1000,
    };
    this.#retryMs = this.#options.reconnectInterval;
    this.#inbox = new ZmtpInbox({
      highWater: this.#options.receiveHighWaterMark,
      pause: () => this.#connection?.pause(),
      resume: () => {
        if (this.#connection?.isPaused()) this.#connection.resume();
      },
      take: (frames) => frames,
    });
  }

  /** `tcp://host:port` or `ipc://path`; connects in the background. */
  connect(endpoint: string): void {
    if (this.#closed || this.#endpoint) throw new Error('this socket is closed or already connected');
    this.#endpoint = parseEndpoint(endpoint);
    this.#open();
  }

  /** A SUB socket's subscription to every message (the only one the server needs). */
  subscribe(): void {
    if (this.#type !== 'SUB') throw new Error('only a SUB socket subscribes');
    this.#subscribed = true;
    if (this.#state === 'ready') this.#write(encodeMessage([SUBSCRIBE_ALL]));
  }

  /** Sends one multipart message; resolves when it is written or queued (waiting only for room). */
  async send(frames: Uint8Array[]): Promise<void> {
    if (this.#closed) throw new Error('socket closed');
    if (this.#type === 'SUB') throw new Error('a SUB socket sends nothing');
    while (!this.#hasRoom()) {
      await new Promise<void>((resolve) => this.#roomWaiters.push(resolve));
      if (this.#closed) throw new Error('socket closed');
    }
    const buffers = encodeMessage(this.#type === 'REQ' ? [EMPTY, ...frames] : frames);
    if (this.#state === 'ready') this.#write(buffers);
    else this.#outbox.push(buffers);
  }

  /** The peer has answered the handshake: what is sent now goes out at once (tests wait on it). */
  get connected(): boolean {
    return this.#state === 'ready';
  }

  /** Connections opened so far, refused ones included (tests wait on it). */
  get connectAttempts(): number {
    return this.#attempts;
  }

  /** Received messages the reader has not taken yet. */
  get unread(): number {
    return this.#inbox.size;
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    clearTimeout(this.#retryTimer);
    this.#connection?.destroy();
    this.#connection = undefined;
    this.#outbox = [];
    for (const wake of this.#roomWaiters.splice(0)) wake();
    this.#inbox.close();
  }

  [Symbol.asyncIterator](): AsyncIterator<Buffer[]> {
    return this.#inbox.iterator(() => this.close());
  }

  #hasRoom(): boolean {
    if (this.#state !== 'ready') return this.#outbox.length < SEND_HIGH_WATER_MESSAGES;
    return (this.#connection?.writableLength ?? 0) < SEND_HIGH_WATER_BYTES;
  }

  #wakeSenders(): void {
    while (this.#roomWaiters.length > 0 && this.#hasRoom()) this.#roomWaiters.shift()?.();
  }

  #open(): void {
    const endpoint = this.#endpoint;
    if (this.#closed || !endpoint) return;
    const connection = net.connect(endpoint);
    this.#attempts++;
    this.#connection = connection;
    this.#decoder = new FrameDecoder();
    this.#state = 'greeting';
    connection.setNoDelay(true);
    connection.on('connect', () => connection.write(greeting()));
    connection.on('data', (chunk: Buffer) => {
      if (connection !== this.#connection) return;
      try {
        this.#read(chunk);
      } catch {
        connection.destroy(); // a peer that breaks the protocol: start over, as libzmq does
      }
    });
    connection.on('drain', () => this.#wakeSenders());
    connection.on('error', () => {}); // 'close' follows
    connection.on('close', () => {
      if (connection !== this.#connection) return;
      this.#connection = undefined;
      this.#state = 'idle';
      this.#wakeSenders(); // those waiting for the lost connection to drain may queue now
      this.#scheduleReconnect();
    });
  }

  #scheduleReconnect(): void {
    if (this.#closed) return;
    const delay = this.#retryMs;
    const max = this.#options.reconnectMaxInterval;
    if (max > delay) this.#retryMs = Math.min(max, delay * 2);
    this.#retryTimer = setTimeout(() => this.#open(), delay);
    this.#retryTimer.unref?.();
  }

  #read(chunk: Buffer): void {
    this.#decoder.push(chunk);
    if (this.#state === 'greeting') {
      const peer = this.#decoder.take(GREETING_LENGTH);
      if (!peer) return;
      const problem = greetingProblem(peer);
      if (problem) throw new Error(problem);
      this.#state = 'handshake';
      const properties: Record<string, string> = { 'Socket-Type': this.#type };
      if (this.#type !== 'SUB') properties.Identity = this.#options.routingId ?? '';
      this.#connection?.write(readyCommand(properties));
    }
    for (let decoded = this.#decoder.next(); decoded; decoded = this.#decoder.next()) this.#handle(decoded);
  }

  #handle(decoded: Decoded): void {
    if (decoded.kind === 'command') {
      const name = commandName(decoded.body);
      if (name === 'ERROR') throw new Error('the peer refused the handshake');
      if (name === 'READY' && this.#state === 'handshake') this.#ready();
      return; // other commands (ZMTP 3.1's PING, say) are not sent to a 3.0 peer
    }
    if (this.#state !== 'ready') throw new Error('a message before the handshake');
    let frames = decoded.frames;
    if (this.#type === 'REQ') {
      const delimiter = frames.findIndex((frame) => frame.length === 0);
      if (delimiter < 0) return; // not a reply
      frames = frames.slice(delimiter + 1);
    }
    this.#inbox.push(frames);
  }

  #ready(): void {
    this.#state = 'ready';
    this.#retryMs = this.#options.reconnectInterval;
    if (this.#subscribed) this.#write(encodeMessage([SUBSCRIBE_ALL]));
    const outbox = this.#outbox;
    this.#outbox = [];
    for (const buffers of outbox) this.#write(buffers);
    this.#wakeSenders();
  }

  #write(buffers: Buffer[]): void {
    const connection = this.#connection;
    if (!connection) return;
    connection.cork();
    for (const buffer of buffers) connection.write(buffer);
    connection.uncork();
  }
}

/** `tcp://host:port` or `ipc://path` as options for `net.connect`. */
function parseEndpoint(endpoint: string): net.NetConnectOpts {
  if (endpoint.startsWith('ipc://')) return { path: endpoint.slice('ipc://'.length) };
  const match = /^tcp:\/\/(.+):(\d+)$/.exec(endpoint);
  if (!match) throw new Error(`not a ZeroMQ endpoint: ${endpoint}`);
  const host = (match[1] as string).replace(/^\[(.*)\]$/, '$1');
  return { host: host === '*' ? '127.0.0.1' : host, port: Number(match[2]) };
}
