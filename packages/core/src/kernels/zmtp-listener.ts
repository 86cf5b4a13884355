import { rmSync } from 'node:fs';
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
  readyProperties,
} from './zmtp-frames.js';
import { ZmtpInbox } from './zmtp-inbox.js';

/**
 * The bind side of ZeroMQ, in JavaScript on `net.Server`, for a kernel's own sockets (the built-in
 * JavaScript kernel): ROUTER for shell/control/stdin, PUB for iopub, REP for the heartbeat. Peers
 * are ZMTP 3.x over TCP or IPC with the NULL mechanism, libzmq's included.
 *
 * - ROUTER: a received message starts with the peer's routing id (its Identity property, or a
 *   5-byte id made up here as libzmq does); `send()` takes that id as the first frame. A newer
 *   connection with the same id takes the route over (libzmq's ROUTER_HANDOVER). With
 *   `mandatory`, a send to an unknown id rejects with `EHOSTUNREACH` instead of being dropped.
 * - PUB: `send()` goes to every peer subscribed to a prefix of the first frame; a peer whose
 *   connection is far behind misses messages (libzmq's high-water mark). Iterating yields the
 *   subscriptions as XPUB does (`[1, ...topic]`, `[0, ...topic]` when cancelled).
 * - REP: iterating yields each request's body; `send()` answers the request taken last.
 */

export type ZmtpListenerType = 'ROUTER' | 'PUB' | 'REP';

/** Bytes queued for a slow subscriber before PUB drops its messages. */
const PUB_HIGH_WATER_BYTES = 64 * 1024 * 1024;
/** Bytes queued for a ROUTER's or REP's peer before `send()` waits for it to drain. */
const SEND_HIGH_WATER_BYTES = 1024 * 1024;
/** Received messages kept for the reader before reading from peers pauses. */
const RECEIVE_HIGH_WATER = 1000;

interface Peer {
  connection: net.Socket;
  ready: boolean;
  routingId: Buffer;
  subscriptions: Buffer[];
}

interface Received {
  peer: Peer;
  frames: Buffer[];
  /** REP: the request's envelope (routing frames up to and including the empty delimiter). */
  envelope?: Buffer[];
}

export interface ZmtpListenerOptions {
  /** ROUTER: a send to an unknown routing id rejects (`EHOSTUNREACH`) instead of being dropped. */
  mandatory?: boolean;
}

export class ZmtpListener implements AsyncIterable<Buffer[]> {
  readonly #type: ZmtpListenerType;
  readonly #mandatory: boolean;
  readonly #servers: net.Server[] = [];
  readonly #peers = new Set<Peer>();
  readonly #routes = new Map<string, Peer>();
  readonly #inbox = new ZmtpInbox<Received>({
    highWater: RECEIVE_HIGH_WATER,
    pause: () => {
      for (const peer of this.#peers) peer.connection.pause();
    },
    resume: () => {
      for (const peer of this.#peers) if (peer.connection.isPaused()) peer.connection.resume();
    },
    take: (received) => this.#take(received),
  });
  /** REP: the request being answered. */
  #current: Received | undefined;
  #nextId = Math.floor(Math.random() * 0xffffffff);
  #closed = false;

  constructor(type: ZmtpListenerType, options: ZmtpListenerOptions = {}) {
    this.#type = type;
    this.#mandatory = options.mandatory ?? false;
  }

  /** `tcp://host:port` (port 0 or `*`: any free port; host `*`: every interface) or `ipc://path`; resolves with the port. */
  async bind(endpoint: string): Promise<number> {
    if (this.#closed) throw new Error('socket closed');
    const server = net.createServer((connection) => this.#accept(connection));
    this.#servers.push(server);
    const listen = (options: net.ListenOptions) =>
      new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(options, () => {
          server.off('error', reject);
          resolve();
        });
      });
    if (endpoint.startsWith('ipc://')) {
      const path = endpoint.slice('ipc://'.length);
      rmSync(path, { force: true }); // a stale socket file of an earlier process, as libzmq does
      await listen({ path });
      return Number(/-(\d+)$/.exec(path)?.[1] ?? 0);
    }
    const match = /^tcp:\/\/(.+):(\d+|\*)$/.exec(endpoint);
    if (!match) throw new Error(`not a ZeroMQ endpoint: ${endpoint}`);
    const host = (match[1] as string).replace(/^\[(.*)\]$/, '$1');
    const port = match[2] === '*' ? 0 : Number(match[2]);
    await listen(host === '*' ? { port } : { host, port });
    return (server.address() as net.AddressInfo).port;
  }

  /** ROUTER: `[routingId, ...frames]`; PUB: `[topic, ...frames]`; REP: the reply's frames. */
  async send(frames: Uint8Array[]): Promise<void> {
    if (this.#closed) throw new Error('socket closed');
    if (this.#type === 'PUB') return this.#publish(frames);
    if (this.#type === 'REP') {
      const request = this.#current;
      this.#current = undefined;
      if (!request || !this.#peers.has(request.peer)) return; // its peer went away
      return this.#write(request.peer, [...(request.envelope ?? []), ...frames]);
    }
    const [id, ...rest] = frames;
    const peer = id ? this.#routes.get(Buffer.from(id).toString('latin1')) : undefined;
    if (!peer) {
      if (!this.#mandatory) return;
      throw Object.assign(new Error('Host unreachable'), { code: 'EHOSTUNREACH' });
    }
    return this.#write(peer, rest);
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const server of this.#servers) server.close();
    for (const peer of this.#peers) peer.connection.destroy();
    this.#peers.clear();
    this.#routes.clear();
    this.#inbox.close();
  }

  [Symbol.asyncIterator](): AsyncIterator<Buffer[]> {
    return this.#inbox.iterator(() => this.close());
  }

  #take(received: Received): Buffer[] {
    if (this.#type === 'REP') this.#current = received;
    if (this.#type === 'ROUTER') return [received.peer.routingId, ...received.frames];
    return received.frames;
  }

  #accept(connection: net.Socket): void {
    if (this.#closed) {
      connection.destroy();
      return;
    }
    const peer: Peer = { connection, ready: false, routingId: Buffer.alloc(0), subscriptions: [] };
    this.#peers.add(peer);
    const decoder = new FrameDecoder();
    let greeted = false;
    connection.setNoDelay(true);
    connection.write(greeting());
    connection.on('data', (chunk: Buffer) => {
      try {
        decoder.push(chunk);
        if (!greeted) {
          const bytes = decoder.take(GREETING_LENGTH);
          if (!bytes) return;
          const problem = greetingProblem(bytes);
          if (problem) throw new Error(problem);
          greeted = true;
          connection.write(readyCommand({ 'Socket-Type': this.#type }));
        }
        for (let decoded = decoder.next(); decoded; decoded = decoder.next()) this.#handle(peer, decoded);
      } catch {
        connection.destroy(); // a peer that breaks the protocol is dropped, as libzmq does
      }
    });
    connection.on('error', () => {}); // 'close' follows
    connection.on('close', () => this.#forget(peer));
  }

  #forget(peer: Peer): void {
    this.#peers.delete(peer);
    const key = peer.routingId.toString('latin1');
    if (this.#routes.get(key) === peer) this.#routes.delete(key);
    if (this.#type === 'PUB') {
      for (const topic of peer.subscriptions)
        this.#inbox.push({ peer, frames: [Buffer.concat([Buffer.from([0]), topic])] });
    }
  }

  #handle(peer: Peer, decoded: Decoded): void {
    if (decoded.kind === 'command') {
      const name = commandName(decoded.body);
      if (name === 'READY' && !peer.ready) this.#ready(peer, readyProperties(decoded.body));
      else if (name === 'ERROR') throw new Error('the peer refused the handshake');
      else if (name === 'SUBSCRIBE' || name === 'CANCEL') {
        // ZMTP 3.1 sends subscriptions as commands: the topic follows the name.
        const topic = decoded.body.subarray(1 + name.length);
        this.#subscription(peer, name === 'SUBSCRIBE', topic);
      }
      return;
    }
    if (!peer.ready) throw new Error('a message before the handshake');
    const { frames } = decoded;
    if (this.#type === 'PUB') {
      // ZMTP 3.0: a subscription is a one-frame message starting with 1 (subscribe) or 0 (cancel).
      const first = frames[0];
      if (frames.length === 1 && first && (first[0] === 0 || first[0] === 1)) {
        this.#subscription(peer, first[0] === 1, first.subarray(1));
      }
      return;
    }
    if (this.#type === 'REP') {
      const delimiter = frames.findIndex((frame) => frame.length === 0);
      if (delimiter < 0) return; // not a request from a REQ or DEALER-with-envelope peer
      this.#inbox.push({ peer, envelope: frames.slice(0, delimiter + 1), frames: frames.slice(delimiter + 1) });
      return;
    }
    this.#inbox.push({ peer, frames });
  }

  #ready(peer: Peer, properties: Record<string, Buffer>): void {
    peer.ready = true;
    if (this.#type !== 'ROUTER') return;
    const identity = properties.Identity;
    if (identity && identity.length > 0) {
      peer.routingId = Buffer.from(identity);
    } else {
      this.#nextId = (this.#nextId + 1) >>> 0;
      peer.routingId = Buffer.alloc(5);
      peer.routingId.writeUInt32BE(this.#nextId, 1);
    }
    this.#routes.set(peer.routingId.toString('latin1'), peer);
  }

  #subscription(peer: Peer, subscribe: boolean, topic: Buffer): void {
    const at = peer.subscriptions.findIndex((existing) => existing.equals(topic));
    if (subscribe && at < 0) peer.subscriptions.push(Buffer.from(topic));
    else if (!subscribe && at >= 0) peer.subscriptions.splice(at, 1);
    else return;
    this.#inbox.push({ peer, frames: [Buffer.concat([Buffer.from([subscribe ? 1 : 0]), topic])] });
  }

  #publish(frames: Uint8Array[]): void {
    const topic = frames[0] ?? new Uint8Array(0);
    let buffers: Buffer[] | undefined;
    for (const peer of this.#peers) {
      if (!peer.ready || peer.connection.writableLength > PUB_HIGH_WATER_BYTES) continue;
      if (!peer.subscriptions.some((prefix) => startsWith(topic, prefix))) continue;
      buffers ??= encodeMessage(frames);
      writeAll(peer.connection, buffers);
    }
  }

  async #write(peer: Peer, frames: Uint8Array[]): Promise<void> {
    writeAll(peer.connection, encodeMessage(frames));
    if (peer.connection.writableLength > SEND_HIGH_WATER_BYTES && !peer.connection.destroyed) {
      await new Promise<void>((resolve) => {
        const done = () => {
          peer.connection.off('drain', done);
          peer.connection.off('close', done);
          resolve();
        };
        peer.connection.on('drain', done);
        peer.connection.on('close', done);
      });
    }
  }
}

function writeAll(connection: net.Socket, buffers: Buffer[]): void {
  connection.cork();
  for (const buffer of buffers) connection.write(buffer);
  connection.uncork();
}

function startsWith(topic: Uint8Array, prefix: Buffer): boolean {
  if (prefix.length > topic.length) return false;
  for (let i = 0; i < prefix.length; i++) if (topic[i] !== prefix[i]) return false;
  return true;
}
