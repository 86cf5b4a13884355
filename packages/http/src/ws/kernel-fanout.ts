import { randomUUID } from 'node:crypto';
import { CELL_EXECUTOR_SESSION, type Kernel, type KernelClient, protocol } from '@nbserve/core';
import type { WebSocket } from 'ws';
import type { Actor } from '../audit/actor.js';
import type { ExecuteListener } from '../audit/execute.js';
import { ChannelSocket, type ChannelSocketOptions, Outgoing, serverStatus } from './channel-socket.js';
import { type ChannelCodec, codecFor } from './codec.js';
import { ReplayBuffer } from './replay-buffer.js';

export interface FanoutOptions extends ChannelSocketOptions {
  /** Replay buffer bound per disconnected session, in bytes; 0 disables buffering. */
  replayMaxBytes: number;
  /** Replay buffer bound in age; a session gone longer than this is forgotten. */
  replayMaxAgeMs: number;
  /** Called for frames that cannot be decoded or are not allowed (logged, rate-limited upstream). */
  warn: (message: string) => void;
  /** Kernel traffic counts as server activity (`/api/status`); called at most once a second. */
  onActivity?: () => void;
  /** Sees every shell message a client sends, with who sent it (the audit log's `execute_request`s). */
  onExecute?: ExecuteListener;
}

/** Disconnected sessions kept for replay per kernel. */
const MAX_DETACHED_SESSIONS = 16;
/** What an adopted session keeps for the first socket at least (replies to a cell run across a restart). */
const ADOPTED_BUFFER_BYTES = 16 * 1024 * 1024;
const ADOPTED_BUFFER_MS = 10 * 60_000;

/**
 * A frontend, identified by its `session_id`: its own kernel sockets (so replies and stdin come
 * back to it alone), its current WebSocket if connected, and a replay buffer while it is not.
 */
class ClientSession {
  socket: ChannelSocket | undefined;
  buffer: ReplayBuffer | undefined;
  expiry: NodeJS.Timeout | undefined;

  constructor(
    readonly id: string,
    readonly client: KernelClient,
    readonly replayable: boolean,
    /** Its client was adopted with its kernel from an earlier server: until it reconnects, what it gets goes to every socket. */
    readonly adopted = false,
  ) {}

  deliver(message: Outgoing): void {
    if (this.socket) this.socket.deliver(message);
    else this.buffer?.push(message.channel, message.raw);
  }
}

/**
 * One per kernel with open channels: receives each iopub message once and fans it out to every
 * session (encoded once per framing), routes each session's replies to it alone, and turns
 * kernel lifecycle events into iopub `status` messages.
 */
export class KernelFanout {
  readonly kernel: Kernel;
  readonly #options: FanoutOptions;
  readonly #sessions = new Map<string, ClientSession>();
  readonly #unsubscribe: Array<() => void> = [];
  badFrames = 0;
  #warnedFrames = 0;
  #lastTouch = 0;

  constructor(kernel: Kernel, options: FanoutOptions) {
    this.kernel = kernel;
    this.#options = options;
    this.#unsubscribe.push(
      kernel.onIopub((raw, msgType) => {
        this.#touch();
        const message = new Outgoing('iopub', raw, msgType);
        for (const session of this.#sessions.values()) session.deliver(message);
      }),
      kernel.onLifecycle((event) => {
        if (event === 'restarted') return;
        const message = new Outgoing('iopub', serverStatus(event, kernel.session), 'status');
        for (const session of this.#sessions.values()) session.deliver(message);
        if (event === 'dead') setTimeout(() => this.dispose(), 100).unref();
      }),
    );
    this.#takeAdopted();
  }

  /**
   * The clients of a kernel adopted from an earlier server (`--persist-kernels`), reopened under
   * their routing ids: each becomes a detached session under its old `session_id`. What the kernel
   * still sends them (the output and reply of a cell run across the restart) goes to the frontend
   * that reconnects with that session id, and meanwhile to every socket of the kernel, or waits for
   * the first one.
   */
  #takeAdopted(): void {
    // The server's own cell runs resume in the cell executor, not here.
    for (const { client, received } of this.kernel.takeAdoptedClients((id) => id !== CELL_EXECUTOR_SESSION)) {
      const id = client.sessionId || randomUUID();
      if (this.#sessions.has(id)) {
        client.close();
        continue;
      }
      const session = new ClientSession(id, client, true, true);
      const maxBytes = Math.max(this.#options.replayMaxBytes, ADOPTED_BUFFER_BYTES);
      session.buffer = new ReplayBuffer(maxBytes, Math.max(this.#options.replayMaxAgeMs, ADOPTED_BUFFER_MS));
      for (const [channel, raw] of received) session.buffer.push(channel, raw);
      session.expiry = setTimeout(() => this.#forget(session), ADOPTED_BUFFER_MS);
      session.expiry.unref();
      client.onMessage = (channel, raw) => this.#deliverAdopted(session, new Outgoing(channel, raw, ''));
      this.#sessions.set(id, session);
    }
  }

  #deliverAdopted(session: ClientSession, message: Outgoing): void {
    if (session.socket) {
      session.socket.deliver(message);
      return;
    }
    let delivered = false;
    for (const other of this.#sessions.values()) {
      if (!other.socket) continue;
      other.socket.deliver(message);
      delivered = true;
    }
    if (!delivered) session.buffer?.push(message.channel, message.raw);
  }

  #touch(): void {
    const now = Date.now();
    if (now - this.#lastTouch < 1000) return;
    this.#lastTouch = now;
    this.#options.onActivity?.();
  }

  /** Sessions kept for replay while their WebSocket is away. */
  get detachedSessions(): number {
    let n = 0;
    for (const s of this.#sessions.values()) if (!s.socket) n++;
    return n;
  }

  /** Open WebSockets on this kernel. */
  get connections(): number {
    let n = 0;
    for (const s of this.#sessions.values()) if (s.socket) n++;
    return n;
  }

  /** Takes over a new WebSocket for `sessionId`; replaces an older socket of the same session. */
  attach(ws: WebSocket, sessionId: string | undefined, actor?: Actor): void {
    const codec = codecFor(ws.protocol);
    const replayable = sessionId !== undefined && sessionId !== '';
    const id = replayable ? sessionId : randomUUID();
    let session = this.#sessions.get(id);
    if (session?.socket) {
      // "Replacing stale connection", as upstream: the newest socket of a session wins.
      const old = session.socket;
      session.socket = undefined;
      old.onClose = () => {};
      old.close(1000, 'Replaced by a newer connection');
      this.kernel.connections = Math.max(0, this.kernel.connections - 1);
    }
    if (!session) {
      const client = this.kernel.createClient(undefined, id);
      session = new ClientSession(id, client, replayable);
      const s = session;
      client.onMessage = (channel, raw) => s.deliver(new Outgoing(channel, raw, ''));
      this.#sessions.set(id, session);
    }
    clearTimeout(session.expiry);
    session.expiry = undefined;
    const socket = new ChannelSocket(ws, codec, this.#options, this.kernel.session);
    session.socket = socket;
    this.kernel.connections++;
    this.kernel.noteActivity();
    const s = session;
    socket.onClose = () => this.#detach(s, socket);
    ws.on('message', (data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean) => {
      this.#receive(s, socket, codec, toBuffer(data), isBinary, actor);
    });

    // Replay what arrived while the session was away, then say hello with a kernel_info reply.
    const replay = session.buffer?.drain() ?? [];
    session.buffer = undefined;
    for (const { channel, raw } of replay) socket.deliver(new Outgoing(channel, raw, ''));
    // What adopted sessions received while no socket was connected goes to the first one.
    for (const other of this.#sessions.values()) {
      if (!other.adopted || other.socket || !other.buffer) continue;
      for (const { channel, raw } of other.buffer.drain()) socket.deliver(new Outgoing(channel, raw, ''));
    }
    const hello = protocol.createMessage('kernel_info_request', {}, { session: this.kernel.session });
    session.client.send('shell', protocol.toRaw(hello));
  }

  #receive(
    session: ClientSession,
    socket: ChannelSocket,
    codec: ChannelCodec,
    data: Buffer,
    isBinary: boolean,
    actor: Actor | undefined,
  ): void {
    if (socket.closed || session.socket !== socket) return;
    let decoded: ReturnType<ChannelCodec['decode']>;
    try {
      decoded = codec.decode(data, isBinary);
    } catch (error) {
      this.#badFrame((error as Error).message);
      return;
    }
    if (decoded.channel === 'iopub') {
      this.#badFrame('a client cannot send on the iopub channel');
      return;
    }
    this.#touch();
    if (actor && decoded.channel === 'shell') this.#options.onExecute?.(this.kernel.id, actor, decoded.raw);
    session.client.send(decoded.channel, decoded.raw);
  }

  #badFrame(why: string): void {
    this.badFrames++;
    // Log the first few, then every 1000th: a misbehaving client must not flood the log.
    if (this.#warnedFrames < 5 || this.badFrames % 1000 === 0) {
      this.#warnedFrames++;
      this.#options.warn(`Kernel ${this.kernel.id}: dropped a WebSocket frame (${why}); ${this.badFrames} so far`);
    }
  }

  #detach(session: ClientSession, socket: ChannelSocket): void {
    if (session.socket !== socket) return;
    session.socket = undefined;
    this.kernel.connections = Math.max(0, this.kernel.connections - 1);
    if (!session.replayable || this.#options.replayMaxBytes <= 0) {
      this.#forget(session);
      return;
    }
    session.buffer = new ReplayBuffer(this.#options.replayMaxBytes, this.#options.replayMaxAgeMs);
    session.expiry = setTimeout(() => this.#forget(session), this.#options.replayMaxAgeMs);
    session.expiry.unref();
    // A client that keeps reconnecting under new session ids must not pile up buffers: only the
    // most recently detached sessions are kept (Map order is attach order; oldest go first).
    let detached = 0;
    for (const s of this.#sessions.values()) if (!s.socket) detached++;
    for (const s of this.#sessions.values()) {
      if (detached <= MAX_DETACHED_SESSIONS) break;
      if (!s.socket && s !== session) {
        this.#forget(s);
        detached--;
      }
    }
  }

  #forget(session: ClientSession): void {
    if (session.socket) return;
    clearTimeout(session.expiry);
    session.client.close();
    this.#sessions.delete(session.id);
  }

  /** Closes every socket and client (kernel gone or server closing). */
  dispose(code = 1001, reason = 'Kernel shut down'): void {
    for (const off of this.#unsubscribe) off();
    this.#unsubscribe.length = 0;
    for (const session of this.#sessions.values()) {
      clearTimeout(session.expiry);
      const socket = session.socket;
      session.socket = undefined;
      if (socket) {
        socket.onClose = () => {};
        socket.close(code, reason);
      }
      session.client.close();
    }
    this.#sessions.clear();
    this.kernel.connections = 0;
  }
}

function toBuffer(data: Buffer | ArrayBuffer | Buffer[]): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}
