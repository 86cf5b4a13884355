import { randomUUID } from 'node:crypto';
import { internalError, timeoutError } from '../errors.js';
import type { KernelSpecEntry } from '../kernelspecs/spec.js';
import { createMessage, isoDate } from '../protocol/header.js';
import { parsePart, peekMsgType, peekStringField, toRaw } from '../protocol/json-parts.js';
import { Signer } from '../protocol/signing.js';
import type { ExecutionState, JupyterMessage, RawMessage } from '../protocol/types.js';
import { decodeWire, encodeWire } from '../protocol/wire.js';
import { type ClientHost, KernelClient } from './client.js';
import { endpoint } from './connection-file.js';
import { nextExecutionState } from './execution-state.js';
import type { KernelProcess } from './provisioner.js';
import { SocketWriter } from './socket-writer.js';
import type { ConnectionInfo, KernelModel } from './types.js';
import { KERNEL_SOCKET_OPTIONS, zmq } from './zmq.js';
import { ZmtpSocket } from './zmtp-socket.js';

/** Lifecycle notices the channels WebSocket turns into iopub `status` messages. */
export type KernelLifecycleEvent = 'restarting' | 'restarted' | 'dead';

/** Receives every verified iopub message once, as the kernel serialized it. */
export type IopubListener = (raw: RawMessage, msgType: string) => void;

/** How long a kernel that answered kernel_info may take to publish its `idle` status for it. */
const IDLE_GRACE_MS = 1000;

/** One running kernel: its process, the server's own sockets to it, its state and its clients. */
export class Kernel implements ClientHost {
  readonly id: string;
  readonly name: string;
  readonly spec: KernelSpecEntry;
  /** The working directory the kernel runs in (a pooled kernel's is set when it is taken). */
  cwd: string;
  /** Extra environment it was started with (e.g. JPY_SESSION_NAME), reused on restart. */
  env: Record<string, string>;
  /** The server's session id in headers of messages it sends itself. */
  readonly session = randomUUID();
  executionState: ExecutionState = 'starting';
  lastActivity: Date;
  /** Open WebSocket connections; maintained by the channels endpoint. */
  connections = 0;
  reason = '';
  /** Messages from the kernel dropped because their signature did not verify. */
  badSignatures = 0;
  /** Messages from the kernel dropped because they were not valid Jupyter wire messages. */
  malformedMessages = 0;

  #process: KernelProcess | undefined;
  #connection: ConnectionInfo | undefined;
  /** Clients' sockets connect only once the kernel is ready; until then what they send waits. */
  #clientsOpen = false;
  #signer: Signer | undefined;
  #iopub: ZmtpSocket | undefined;
  /** The server's own shell/control sockets, opened on demand (an idle kernel needs neither). */
  readonly #own: Partial<Record<'shell' | 'control', { socket: ZmtpSocket; writer: SocketWriter }>> = {};
  #sawIopub = false;
  /** msg_id of the request the latest iopub `idle` status answered, and who waits for the next one. */
  #lastIdleParent = '';
  #onIdle: (() => void) | undefined;
  readonly #waiters = new Map<string, (raw: RawMessage | undefined) => void>();
  readonly #clients = new Set<KernelClient>();
  readonly #iopubListeners = new Set<IopubListener>();
  readonly #lifecycleListeners = new Set<(event: KernelLifecycleEvent) => void>();
  readonly #now: () => Date;
  #warnedSignature = false;
  readonly #warn: (message: string) => void;

  constructor(options: {
    id: string;
    spec: KernelSpecEntry;
    cwd: string;
    env: Record<string, string>;
    now: () => Date;
    warn: (message: string) => void;
  }) {
    this.id = options.id;
    this.spec = options.spec;
    this.name = options.spec.name;
    this.cwd = options.cwd;
    this.env = options.env;
    this.#now = options.now;
    this.#warn = options.warn;
    this.lastActivity = options.now();
  }

  get process(): KernelProcess | undefined {
    return this.#process;
  }

  get connectionInfo(): ConnectionInfo | undefined {
    return this.#connection;
  }

  /** For clients: the connection once the kernel is ready (its iopub subscription live). */
  get clientConnection(): ConnectionInfo | undefined {
    return this.#clientsOpen ? this.#connection : undefined;
  }

  get signer(): Signer | undefined {
    return this.#signer;
  }

  model(): KernelModel {
    const model: KernelModel = {
      id: this.id,
      name: this.name,
      last_activity: isoDate(this.lastActivity),
      execution_state: this.executionState,
      connections: this.connections,
    };
    if (this.reason) model.reason = this.reason;
    return model;
  }

  /** Subscribes to iopub; returns the unsubscribe function. */
  onIopub(listener: IopubListener): () => void {
    this.#iopubListeners.add(listener);
    return () => this.#iopubListeners.delete(listener);
  }

  onLifecycle(listener: (event: KernelLifecycleEvent) => void): () => void {
    this.#lifecycleListeners.add(listener);
    return () => this.#lifecycleListeners.delete(listener);
  }

  /** A new frontend connection with its own shell/control/stdin sockets. */
  createClient(): KernelClient {
    const client = new KernelClient(this);
    this.#clients.add(client);
    return client;
  }

  removeClient(client: KernelClient): void {
    this.#clients.delete(client);
  }

  noteActivity(): void {
    this.lastActivity = this.#now();
  }

  countBadMessage(kind: 'signature' | 'malformed'): void {
    if (kind === 'signature') {
      this.badSignatures++;
      if (!this.#warnedSignature) {
        this.#warnedSignature = true;
        this.#warn(`Kernel ${this.id}: dropped a message with an invalid signature`);
      }
    } else {
      this.malformedMessages++;
    }
  }

  reportListenerError(error: unknown): void {
    this.#warn(`Kernel ${this.id}: message listener failed: ${(error as Error)?.message ?? String(error)}`);
  }

  emitLifecycle(event: KernelLifecycleEvent): void {
    for (const listener of this.#lifecycleListeners) {
      try {
        listener(event);
      } catch (error) {
        this.reportListenerError(error);
      }
    }
  }

  /** Takes over a freshly launched process, which has not published its connection yet. */
  adopt(process: KernelProcess): void {
    this.detach();
    this.#process = process;
    this.#connection = undefined;
    this.#signer = undefined;
  }

  /** Connects the server's iopub socket to the process's published ports; clients follow once ready. */
  connect(info: ConnectionInfo): void {
    this.#connection = info;
    this.#signer = new Signer(info.key, info.signature_scheme);
    this.#sawIopub = false;
    const iopub = new ZmtpSocket('SUB', { ...KERNEL_SOCKET_OPTIONS, receiveHighWaterMark: 0 });
    iopub.subscribe();
    iopub.connect(endpoint(info, info.iopub_port));
    this.#iopub = iopub;
    void this.#receiveIopub(iopub);
  }

  /** Closes clients' sockets until `openClients()`; what they send meanwhile waits, in order. */
  holdClients(): void {
    this.#clientsOpen = false;
    for (const client of this.#clients) client.detach();
  }

  /** Connects the clients (and those to come) to the current process; after `holdClients()`. */
  openClients(): void {
    const info = this.#connection;
    if (!info || this.#clientsOpen) return;
    this.#clientsOpen = true;
    for (const client of this.#clients) client.attach(info);
  }

  #ownSocket(channel: 'shell' | 'control'): SocketWriter | undefined {
    const existing = this.#own[channel];
    if (existing) return existing.writer;
    const info = this.#connection;
    if (!info) return undefined;
    const socket = new ZmtpSocket('DEALER', KERNEL_SOCKET_OPTIONS);
    socket.connect(endpoint(info, channel === 'shell' ? info.shell_port : info.control_port));
    const writer = new SocketWriter(socket);
    this.#own[channel] = { socket, writer };
    void this.#receiveReplies(socket);
    return writer;
  }

  closeOwnSocket(channel: 'shell' | 'control'): void {
    const own = this.#own[channel];
    if (!own) return;
    delete this.#own[channel];
    own.writer.close();
    own.socket.close();
  }

  /** Closes every socket to the current process (before a restart or after shutdown). */
  detach(): void {
    this.#clientsOpen = false;
    this.closeOwnSocket('shell');
    this.closeOwnSocket('control');
    this.#iopub?.close();
    this.#iopub = undefined;
    for (const client of this.#clients) client.detach();
  }

  /** Closes everything including clients; the kernel object is finished. */
  dispose(): void {
    this.detach();
    for (const client of [...this.#clients]) client.close();
    this.#iopubListeners.clear();
    this.#lifecycleListeners.clear();
    for (const resolve of [...this.#waiters.values()]) resolve(undefined);
    this.#waiters.clear();
  }

  /** Sends a request from the server itself on shell or control and waits for the reply. */
  async request(
    channel: 'shell' | 'control',
    msgType: string,
    content: object,
    timeoutMs: number,
  ): Promise<JupyterMessage | undefined> {
    const msg = createMessage(msgType, content, { session: this.session });
    const raw = toRaw(msg);
    const signer = this.#signer;
    const writer = this.#ownSocket(channel);
    if (!writer || !signer) return undefined;
    const reply = new Promise<RawMessage | undefined>((resolve) => {
      const timer = setTimeout(() => {
        this.#waiters.delete(msg.header.msg_id);
        resolve(undefined);
      }, timeoutMs);
      this.#waiters.set(msg.header.msg_id, (r) => {
        clearTimeout(timer);
        this.#waiters.delete(msg.header.msg_id);
        resolve(r);
      });
    });
    writer.write(encodeWire(raw, signer));
    const answer = await reply;
    if (!answer) return undefined;
    try {
      return {
        header: parsePart(answer.header),
        parent_header: parsePart(answer.parentHeader),
        metadata: parsePart(answer.metadata),
        content: parsePart(answer.content),
        buffers: answer.buffers,
      } as JupyterMessage;
    } catch {
      return undefined;
    }
  }

  /**
   * One heartbeat round trip (the kernel echoes raw bytes on its REP socket). True when the
   * echo came back within `timeoutMs`: the kernel's event loop is alive, not just its process.
   */
  async heartbeat(timeoutMs = 3000): Promise<boolean> {
    const info = this.#connection;
    if (!info) return false;
    const socket = new (zmq().Request)({ ...KERNEL_SOCKET_OPTIONS, receiveTimeout: timeoutMs, sendTimeout: timeoutMs });
    try {
      socket.connect(endpoint(info, info.hb_port));
      const ping = Buffer.from(randomUUID());
      await socket.send(ping);
      const [echo] = await socket.receive();
      return echo !== undefined && Buffer.compare(echo, ping) === 0;
    } catch {
      return false;
    } finally {
      socket.close();
    }
  }

  /**
   * Readiness: a `kernel_info_reply` and the `idle` status for that request (so the
   * subscription is live, no output is lost, and the kernel is quiet); from a kernel that
   * publishes no such status, at least one iopub message within a grace period. Nudges like
   * jupyter_server, but backs off while the kernel is silent (0.5, 1, 2, 2 ... s): a kernel that
   * is still starting answers every queued request at once when it comes up (each with
   * busy/idle on iopub), and the latest request is always still awaited then, so fewer nudges
   * cost no latency. 20 kernels starting at once on a loaded machine otherwise got a dozen
   * requests each.
   */
  async waitReady(timeoutMs: number): Promise<void> {
    const process = this.#process;
    const deadline = Date.now() + timeoutMs;
    let exited = false;
    const exit = process?.exited.then(() => {
      exited = true;
      return undefined;
    });
    let wait = 500;
    for (;;) {
      if (exited) throw internalError(`Kernel ${this.name} died while starting`, 'kernel start failed');
      const left = deadline - Date.now();
      if (left <= 0) {
        throw timeoutError(
          `Kernel ${this.name} did not answer kernel_info_request within ${Math.round(timeoutMs / 1000)} s`,
          'kernel start failed',
        );
      }
      const request = this.request('shell', 'kernel_info_request', {}, Math.min(wait, left));
      const reply = await (exit ? Promise.race([request, exit]) : request);
      if (reply?.header.msg_type === 'kernel_info_reply') {
        // Settled once it published idle for the request it answered: then nothing of the start
        // itself changes the kernel's model (last_activity) after the start returned it. With no
        // iopub message seen yet the subscription may not be live (its status lost): ask again soon.
        const grace = Math.max(0, Math.min(this.#sawIopub ? IDLE_GRACE_MS : 100, deadline - Date.now()));
        if ((await this.idleFor(reply.parent_header.msg_id, grace)) || this.#sawIopub) break;
      } else {
        wait = Math.min(2 * wait, 2000);
      }
    }
    if (this.executionState === 'starting' || this.executionState === 'restarting') this.executionState = 'idle';
    // Clients bring their own sockets; an idle kernel costs the server one SUB socket only.
    this.closeOwnSocket('shell');
    // Now what clients send (queued meanwhile) cannot produce output before iopub is live.
    // After a restart a gateway does in place, clients are still attached to the same bridge
    // ports: reopening their sockets under the same routing id would make the bridge's ROUTER
    // ignore the new connection (a duplicate identity), so attached clients are left alone.
    const info = this.#connection;
    if (info && this.#process === process && !this.#clientsOpen) {
      this.#clientsOpen = true;
      for (const client of this.#clients) client.attach(info);
    }
  }

  /** Waits up to `ms` for the kernel to publish `idle` for the request `msgId`. */
  async idleFor(msgId: string, ms: number): Promise<boolean> {
    const deadline = Date.now() + ms;
    while (this.#lastIdleParent !== msgId) {
      const left = deadline - Date.now();
      if (left <= 0) return false;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.#onIdle = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.#onIdle = undefined;
    }
    return true;
  }

  async #receiveReplies(socket: ZmtpSocket): Promise<void> {
    try {
      for await (const frames of socket) {
        const raw = this.#verified(frames);
        if (!raw) continue;
        const parentId = peekStringField(raw.parentHeader, 'msg_id');
        this.#waiters.get(parentId)?.(raw);
      }
    } catch {
      // closed
    }
  }

  #verified(frames: Uint8Array[]): RawMessage | undefined {
    const signer = this.#signer;
    if (!signer) return undefined;
    try {
      const wire = decodeWire(frames);
      if (signer.verify(wire.signature, wire.raw)) return wire.raw;
      this.countBadMessage('signature');
    } catch {
      this.countBadMessage('malformed');
    }
    return undefined;
  }

  async #receiveIopub(socket: ZmtpSocket): Promise<void> {
    try {
      for await (const frames of socket) {
        const raw = this.#verified(frames);
        if (!raw) continue;
        this.#sawIopub = true;
        this.lastActivity = this.#now();
        const msgType = peekMsgType(raw.header);
        if (msgType === 'status') this.#trackStatus(raw);
        for (const listener of this.#iopubListeners) {
          try {
            listener(raw, msgType);
          } catch (error) {
            this.reportListenerError(error);
          }
        }
      }
    } catch {
      // closed
    }
  }

  #trackStatus(raw: RawMessage): void {
    let state: unknown;
    try {
      state = (parsePart(raw.content) as { execution_state?: unknown }).execution_state;
    } catch {
      return;
    }
    if (typeof state !== 'string') return;
    if (state === 'idle') {
      this.#lastIdleParent = peekStringField(raw.parentHeader, 'msg_id');
      this.#onIdle?.();
    }
    // Until it is ready the kernel stays `starting` (or `restarting`): waitReady settles that.
    if (this.#clientsOpen) this.executionState = nextExecutionState(this.executionState, state, raw.parentHeader);
  }
}
