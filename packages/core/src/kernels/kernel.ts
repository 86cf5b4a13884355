import { randomUUID } from 'node:crypto';
import { internalError, timeoutError } from '../errors.js';
import type { KernelSpecEntry } from '../kernelspecs/spec.js';
import { createMessage, isoDate } from '../protocol/header.js';
import { parsePart, peekMsgType, peekStringField, toRaw } from '../protocol/json-parts.js';
import type { ExecutionState, JupyterMessage, RawMessage } from '../protocol/types.js';
import type { CellRun } from './cell-run.js';
import { type ClientChannel, type ClientHost, KernelClient } from './client.js';
import { nextExecutionState } from './execution-state.js';
import type { KernelProcess } from './provisioner.js';
import type { ChannelSet, KernelTransport } from './transport.js';
import type { ConnectionInfo, KernelModel } from './types.js';

/** Lifecycle notices the channels WebSocket turns into iopub `status` messages. */
export type KernelLifecycleEvent = 'restarting' | 'restarted' | 'dead';

/** Receives every verified iopub message once, as the kernel serialized it. */
export type IopubListener = (raw: RawMessage, msgType: string) => void;

/** Messages kept for an adopted client until a WebSocket takes it. */
const MAX_KEPT_FOR_ADOPTED = 1000;

/** How long a kernel that answered kernel_info may take to publish its `idle` status for it. */
const IDLE_GRACE_MS = 1000;

/** One running kernel: its process, the server's own channels to it, its state and its clients. */
export class Kernel implements ClientHost {
  /** Set once: a gateway kernel takes the gateway's id when it starts there (kernels/manager.ts). */
  id: string;
  readonly name: string;
  readonly spec: KernelSpecEntry;
  /** The working directory the kernel runs in (a pooled kernel's is set when it is taken). */
  cwd: string;
  /** Extra environment it was started with (e.g. JPY_SESSION_NAME), reused on restart. */
  env: Record<string, string>;
  /** The server's session id in headers of messages it sends itself. */
  readonly session: string;
  /** The routing id of the server's own shell/control channels (chosen here, so a later server can reuse it). */
  readonly routingId: string;
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
  #transport: KernelTransport | undefined;
  /** Clients' channels open only once the kernel is ready; until then what they send waits. */
  #clientsOpen = false;
  #iopub: { close(): void } | undefined;
  /** The server's own shell/control channels, opened on demand (an idle kernel needs neither). */
  readonly #own: Partial<Record<'shell' | 'control', ChannelSet>> = {};
  #sawIopub = false;
  /** msg_id of the request the latest iopub `idle` status answered, and who waits for the next one. */
  #lastIdleParent = '';
  #onIdle: (() => void) | undefined;
  readonly #waiters = new Map<string, (raw: RawMessage | undefined) => void>();
  readonly #clients = new Set<KernelClient>();
  readonly #adopted = new Map<KernelClient, Array<[ClientChannel, RawMessage]>>();
  /** The execute_request a cell is running in (by the kernel's busy/idle), if any, with the shared document's cell it writes to. */
  execution: { msgId: string; session: string; cell?: CellRun | undefined } | undefined;
  /** Cells of shared documents the server runs, by their execute_request's msg_id (collaboration/cell-executor.ts). */
  readonly cellRuns = new Map<string, CellRun>();
  /** Told when what a persisted kernel's record holds changes (clients, the running cell). */
  recordChanged: () => void = () => {};
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
    /** An adopted kernel's, from its record; new ones otherwise. */
    session?: string;
    routingId?: string;
    lastActivity?: Date;
  }) {
    this.id = options.id;
    this.session = options.session ?? randomUUID();
    this.routingId = options.routingId ?? randomUUID();
    this.spec = options.spec;
    this.name = options.spec.name;
    this.cwd = options.cwd;
    this.env = options.env;
    this.#now = options.now;
    this.#warn = options.warn;
    this.lastActivity = options.lastActivity ?? options.now();
  }

  get process(): KernelProcess | undefined {
    return this.#process;
  }

  /** A local kernel's connection file (ports, key), once connected. */
  get connectionInfo(): ConnectionInfo | undefined {
    return this.#transport?.connection;
  }

  /** The channels to the current process, once it published where they are. */
  get transport(): KernelTransport | undefined {
    return this.#transport;
  }

  /** For clients: the transport once the kernel is ready (its iopub subscription live). */
  get clientTransport(): KernelTransport | undefined {
    return this.#clientsOpen ? this.#transport : undefined;
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

  /**
   * A new frontend connection with its own shell/control/stdin channels, under `routingId` when
   * given; `sessionId` names the channels session it serves (kept in a persisted kernel's record).
   */
  createClient(routingId?: string, sessionId = ''): KernelClient {
    const client = new KernelClient(this, routingId);
    client.sessionId = sessionId;
    this.#clients.add(client);
    this.recordChanged();
    return client;
  }

  removeClient(client: KernelClient): void {
    this.#clients.delete(client);
    this.#adopted.delete(client);
    this.recordChanged();
  }

  /** Each client's routing id and channels session. */
  clientRecords(): { identity: string; sessionId: string }[] {
    return [...this.#clients].map((client) => ({ identity: client.identity, sessionId: client.sessionId }));
  }

  /**
   * Reopens the clients of a kernel adopted from an earlier server under their routing ids, so the
   * replies the kernel still owes them (a cell running across the restart) arrive here; what
   * arrives is kept (bounded) until a channels WebSocket takes the client (`takeAdoptedClients`).
   */
  adoptClients(records: readonly { identity: string; sessionId: string }[]): void {
    for (const { identity, sessionId } of records) {
      const client = this.createClient(identity, sessionId);
      const kept: Array<[ClientChannel, RawMessage]> = [];
      this.#adopted.set(client, kept);
      client.onMessage = (channel, raw) => {
        if (kept.length < MAX_KEPT_FOR_ADOPTED) kept.push([channel, raw]);
      };
    }
  }

  /** The adopted clients of the channels sessions `accept` takes, with what they received meanwhile. */
  takeAdoptedClients(
    accept: (sessionId: string) => boolean,
  ): { client: KernelClient; received: Array<[ClientChannel, RawMessage]> }[] {
    const taken = [...this.#adopted].filter(([client]) => accept(client.sessionId));
    for (const [client] of taken) this.#adopted.delete(client);
    return taken.map(([client, received]) => ({ client, received }));
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
    this.#transport = undefined;
  }

  /** Subscribes the server to the process's iopub; clients follow once ready. */
  connect(transport: KernelTransport): void {
    this.#transport = transport;
    transport.onBadMessage = (kind) => this.countBadMessage(kind);
    this.#sawIopub = false;
    this.#iopub = transport.subscribe((raw) => this.#onIopub(raw));
  }

  /** Closes clients' sockets until `openClients()`; what they send meanwhile waits, in order. */
  holdClients(): void {
    this.#clientsOpen = false;
    for (const client of this.#clients) client.detach();
  }

  /** Connects the clients (and those to come) to the current process; after `holdClients()`. */
  openClients(): void {
    const transport = this.#transport;
    if (!transport || this.#clientsOpen) return;
    this.#clientsOpen = true;
    for (const client of this.#clients) client.attach(transport);
  }

  #ownChannel(channel: 'shell' | 'control'): ChannelSet | undefined {
    const existing = this.#own[channel];
    if (existing) return existing;
    const transport = this.#transport;
    if (!transport) return undefined;
    const opened = transport.open(this.routingId, [channel], (_channel, raw) => {
      this.#waiters.get(peekStringField(raw.parentHeader, 'msg_id'))?.(raw);
    });
    this.#own[channel] = opened;
    return opened;
  }

  #closeOwnSocket(channel: 'shell' | 'control'): void {
    const own = this.#own[channel];
    if (!own) return;
    delete this.#own[channel];
    own.close();
  }

  /** Closes every socket to the current process (before a restart or after shutdown). */
  detach(): void {
    this.#clientsOpen = false;
    this.#closeOwnSocket('shell');
    this.#closeOwnSocket('control');
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
    const own = this.#ownChannel(channel);
    if (!own) return undefined;
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
    own.send(channel, raw);
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
    return (await this.#transport?.heartbeat(timeoutMs)) ?? false;
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
    // The server's own shell socket stays open while the process lives: reopened under the same
    // routing id just after closing, it can race the kernel's ROUTER, which ignores a peer whose id
    // is still in use (libzmq without ROUTER_HANDOVER), so the next request would never be read.
    // Now what clients send (queued meanwhile) cannot produce output before iopub is live.
    // After a restart a gateway does in place, clients are still attached: they are left alone.
    const transport = this.#transport;
    if (transport && this.#process === process && !this.#clientsOpen) {
      this.#clientsOpen = true;
      for (const client of this.#clients) client.attach(transport);
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

  #onIopub(raw: RawMessage): void {
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
      if (this.execution?.msgId === this.#lastIdleParent) {
        this.execution = undefined;
        this.recordChanged();
      }
    } else if (state === 'busy' && peekStringField(raw.parentHeader, 'msg_type') === 'execute_request') {
      const msgId = peekStringField(raw.parentHeader, 'msg_id');
      const cell = this.cellRuns.get(msgId);
      this.execution = { msgId, session: peekStringField(raw.parentHeader, 'session'), ...(cell ? { cell } : {}) };
      this.recordChanged();
    }
    // Until it is ready the kernel stays `starting` (or `restarting`): waitReady settles that.
    if (this.#clientsOpen) this.executionState = nextExecutionState(this.executionState, state, raw.parentHeader);
  }
}
