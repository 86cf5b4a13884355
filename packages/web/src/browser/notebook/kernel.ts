import { api, type KernelModel, type SessionModel } from '../lib/api.js';
import { pageConfig } from '../lib/config.js';
import { decodeFrame, type KernelMessage, makeMessage, uuid } from './messages.js';

export type KernelStatus =
  | 'starting'
  | 'idle'
  | 'busy'
  | 'restarting'
  | 'dead'
  | 'disconnected'
  | 'connecting'
  | 'no kernel';

/** Handlers for the replies and iopub messages caused by one request. */
export interface RequestHandlers {
  onIOPub?(msg: KernelMessage): void;
  onReply?(msg: KernelMessage): void;
  onStdin?(msg: KernelMessage): void;
  /** Called once both the shell reply and the iopub `idle` have arrived. */
  onDone?(): void;
  /** The request has no reply (comm messages): it is done at its `idle`. */
  noReply?: boolean;
}

interface Pending extends RequestHandlers {
  replied: boolean;
  idle: boolean;
  /** Sent by an earlier page whose session this page took over (see resume.ts). */
  adopted?: boolean;
  /** An adopted request whose idle came but whose reply may never come (session forgotten). */
  graceTimer?: ReturnType<typeof setTimeout>;
}

/** Requests an earlier page left running, with the handlers of the cells they belong to. */
export interface Adoption {
  session: string;
  requests: Map<string, RequestHandlers & { onOrphaned?(): void }>;
}

const MAX_BACKOFF_MS = 10_000;
/** How long an adopted request waits for its reply after its idle (a reply may have been lost). */
const REPLY_GRACE_MS = 1500;
/** Time for a replay to arrive before the page decides adopted requests are lost. */
const REPLAY_SETTLE_MS = 1000;

/**
 * The page's link to its kernel: a notebook session on the server plus one WebSocket in the
 * default JSON framing. The client session id is fixed for the page's lifetime, so after a
 * dropped connection the server replays what the kernel sent meanwhile, and replies still find
 * their cells through the parent msg_id.
 */
export class KernelConnection {
  /** This page's `session_id`; taken over from a closed page when it resumes its requests. */
  clientSession = uuid();
  session: SessionModel | undefined;
  status: KernelStatus = 'connecting';
  languageInfo: Record<string, unknown> = {};
  private ws: WebSocket | undefined;
  private readonly pending = new Map<string, Pending & { onOrphaned?(): void }>();
  private orphanCheck: ReturnType<typeof setTimeout> | undefined;
  private readonly outbox: string[] = [];
  private reconnectAttempts = 0;
  private reconnectTimer: ReturnType<typeof setTimeout> | undefined;
  private closed = false;
  private restarting = false;
  /** Status changes (idle/busy/…/disconnected). */
  onStatus: (status: KernelStatus) => void = () => {};
  /** IOPub messages nobody asked for (e.g. from another client of the same kernel). */
  onUnhandledIOPub: (msg: KernelMessage) => void = () => {};
  onKernelInfo: (info: Record<string, unknown>) => void = () => {};
  /** The kernel's comm messages (`comm_open`, `comm_msg`, `comm_close`), whoever caused them (widgets/host.ts). */
  onComm: (msg: KernelMessage) => void = () => {};
  /** The WebSocket to the kernel is open (again). */
  onConnect: () => void = () => {};

  get kernelId(): string | undefined {
    return this.session?.kernel.id;
  }

  /**
   * Creates (or joins) the notebook's session on the server and connects to its kernel. `adopt`
   * may hand over the session id and running requests a closed page left for that kernel: the
   * server then replays what arrived for them while no page was connected.
   */
  async start(
    path: string,
    kernelName: string | undefined,
    adopt?: (kernelId: string) => Promise<Adoption | undefined>,
  ): Promise<void> {
    this.setStatus('starting');
    this.session = await api<SessionModel>('api/sessions', {
      method: 'POST',
      body: { path, name: path.split('/').pop(), type: 'notebook', kernel: kernelName ? { name: kernelName } : {} },
    });
    const adoption = await adopt?.(this.session.kernel.id).catch(() => undefined);
    if (adoption) {
      this.clientSession = adoption.session;
      for (const [id, handlers] of adoption.requests)
        this.pending.set(id, { ...handlers, replied: false, idle: false, adopted: true });
    }
    this.connect();
  }

  /** A fresh session id (another page took this one over); what was in flight is not ours any more. */
  renewSession(): void {
    this.clientSession = uuid();
    this.pending.clear();
    this.reconnectNow();
  }

  async changeKernel(name: string): Promise<void> {
    if (!this.session) return;
    this.setStatus('starting');
    this.session = await api<SessionModel>(`api/sessions/${this.session.id}`, {
      method: 'PATCH',
      body: { kernel: { name } },
    });
    this.reconnectNow();
  }

  async rename(path: string): Promise<void> {
    if (!this.session) return;
    this.session = await api<SessionModel>(`api/sessions/${this.session.id}`, {
      method: 'PATCH',
      body: { path, name: path.split('/').pop() },
    });
  }

  async interrupt(): Promise<void> {
    if (this.kernelId) await api(`api/kernels/${this.kernelId}/interrupt`, { method: 'POST' });
  }

  /**
   * Restarts the kernel. Until the new kernel is up, status messages of the old one (its
   * shutdown) are ignored and new requests wait in the outbox, so nothing is sent into the gap.
   */
  async restart(): Promise<void> {
    if (!this.kernelId) return;
    this.restarting = true;
    this.setStatus('restarting');
    this.pending.clear();
    try {
      await api(`api/kernels/${this.kernelId}/restart`, { method: 'POST' });
    } catch (error) {
      // The server says why (e.g. the kernel died while starting): show its real state.
      this.outbox.splice(0);
      const kernel = await api<{ execution_state?: string }>(`api/kernels/${this.kernelId}`).catch(() => undefined);
      this.setStatus((kernel?.execution_state as KernelStatus | undefined) ?? 'dead');
      throw error;
    } finally {
      this.restarting = false;
    }
    this.requestKernelInfo();
    this.flushOutbox();
  }

  private flushOutbox(): void {
    if (this.ws?.readyState !== WebSocket.OPEN) return;
    for (const frame of this.outbox.splice(0)) this.ws.send(frame);
  }

  send(msg: KernelMessage, handlers: RequestHandlers = {}): string {
    this.pending.set(msg.header.msg_id, { ...handlers, replied: false, idle: false });
    const frame = JSON.stringify(msg);
    if (this.ws?.readyState === WebSocket.OPEN && !this.restarting) this.ws.send(frame);
    else this.outbox.push(frame);
    return msg.header.msg_id;
  }

  request(
    channel: 'shell' | 'control' | 'stdin',
    type: string,
    content: Record<string, unknown>,
    handlers: RequestHandlers = {},
  ): string {
    return this.send(makeMessage(channel, type, content, this.clientSession), handlers);
  }

  /** Sends a shell request and resolves with its reply content. */
  ask(type: string, content: Record<string, unknown>, timeoutMs = 10_000): Promise<Record<string, unknown>> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${type} timed out`)), timeoutMs);
      this.request('shell', type, content, {
        onReply: (msg) => {
          clearTimeout(timer);
          resolve(msg.content);
        },
      });
    });
  }

  replyInput(value: string, parent: KernelMessage): void {
    const msg = makeMessage('stdin', 'input_reply', { value }, this.clientSession, parent.header);
    this.ws?.send(JSON.stringify(msg));
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.reconnectTimer);
    clearTimeout(this.orphanCheck);
    this.ws?.close();
  }

  private requestKernelInfo(): void {
    this.request(
      'shell',
      'kernel_info_request',
      {},
      {
        onReply: (msg) => {
          this.languageInfo = (msg.content.language_info as Record<string, unknown>) ?? {};
          this.onKernelInfo(msg.content);
        },
      },
    );
  }

  private reconnectNow(): void {
    this.ws?.close();
    this.ws = undefined;
    this.connect();
  }

  private connect(): void {
    if (this.closed || !this.kernelId) return;
    const { baseUrl } = pageConfig();
    const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
    const wsUrl = `${proto}//${location.host}${baseUrl}api/kernels/${this.kernelId}/channels?session_id=${this.clientSession}`;
    const ws = new WebSocket(wsUrl);
    ws.binaryType = 'arraybuffer';
    this.ws = ws;
    if (this.status !== 'starting' && this.status !== 'restarting') this.setStatus('connecting');
    ws.onopen = () => {
      this.reconnectAttempts = 0;
      if (!this.restarting) this.flushOutbox();
      this.requestKernelInfo();
      void this.syncStatus();
      this.scheduleOrphanCheck();
      this.onConnect();
    };
    ws.onmessage = (event) => {
      const msg = decodeFrame(event.data as string | ArrayBuffer);
      if (msg) this.dispatch(msg);
    };
    ws.onclose = () => {
      if (this.ws !== ws) return; // replaced on purpose
      this.ws = undefined;
      if (this.closed) return;
      this.setStatus('disconnected');
      this.scheduleReconnect();
    };
  }

  /**
   * A kernel busy with a long cell answers kernel_info only after it, and a replay starts after
   * the last status the page saw: take the status from the server until the kernel says more.
   */
  private async syncStatus(): Promise<void> {
    const id = this.kernelId;
    const kernel = id ? await api<KernelModel>(`api/kernels/${id}`).catch(() => undefined) : undefined;
    const state = kernel?.execution_state;
    if ((state === 'busy' || state === 'idle') && (this.status === 'connecting' || this.status === 'starting'))
      this.setStatus(state);
  }

  private scheduleOrphanCheck(): void {
    if (![...this.pending.values()].some((p) => p.adopted)) return;
    clearTimeout(this.orphanCheck);
    this.orphanCheck = setTimeout(() => void this.checkOrphans(), REPLAY_SETTLE_MS);
  }

  /**
   * Adopted requests whose outputs will never come: the kernel is idle, the replay has arrived,
   * and they have not finished (the server had forgotten the session, e.g. after its age bound).
   * While the kernel is busy they may still be running; the check runs again at its next idle.
   */
  private async checkOrphans(): Promise<void> {
    const id = this.kernelId;
    if (!id || !this.ws) return;
    const kernel = await api<KernelModel>(`api/kernels/${id}`).catch(() => undefined);
    if (kernel?.execution_state !== 'idle') return;
    for (const [msgId, pending] of this.pending) {
      if (!pending.adopted || pending.idle) continue;
      this.pending.delete(msgId);
      if (pending.onOrphaned) pending.onOrphaned();
      else pending.onDone?.();
    }
  }

  private scheduleReconnect(): void {
    const delay = Math.min(MAX_BACKOFF_MS, 250 * 2 ** this.reconnectAttempts);
    this.reconnectAttempts++;
    clearTimeout(this.reconnectTimer);
    this.reconnectTimer = setTimeout(() => {
      // The kernel may have been replaced server-side (e.g. restarted from another tab).
      void this.refreshSession().finally(() => this.connect());
    }, delay);
  }

  private async refreshSession(): Promise<void> {
    if (!this.session) return;
    try {
      this.session = await api<SessionModel>(`api/sessions/${this.session.id}`);
    } catch {
      // Keep the old kernel id; the next attempt tries again.
    }
  }

  private dispatch(msg: KernelMessage): void {
    const parentId = msg.parent_header?.msg_id;
    const pending = parentId ? this.pending.get(parentId) : undefined;
    if (msg.channel === 'iopub' && msg.header.msg_type === 'status') {
      const state = msg.content.execution_state as KernelStatus;
      if (this.restarting && !pending) return; // the old kernel shutting down
      // Status from our own requests and server-synthesized ones (restarting/dead) count;
      // the server's "nudge" requests also produce busy/idle pairs, which is harmless.
      if (state) this.setStatus(state === 'starting' ? 'starting' : state);
      if (pending && state === 'idle') {
        pending.idle = true;
        this.finish(parentId as string, pending);
      }
      if (state === 'idle') this.scheduleOrphanCheck();
      return;
    }
    if (msg.channel === 'iopub' && msg.header.msg_type.startsWith('comm_')) {
      this.onComm(msg);
      return;
    }
    if (!pending) {
      if (msg.channel === 'iopub') this.onUnhandledIOPub(msg);
      return;
    }
    if (msg.channel === 'iopub') pending.onIOPub?.(msg);
    else if (msg.channel === 'stdin') pending.onStdin?.(msg);
    else if (msg.channel === 'shell' || msg.channel === 'control') {
      pending.replied = true;
      pending.onReply?.(msg);
      this.finish(parentId as string, pending);
    }
  }

  private finish(id: string, pending: Pending): void {
    if (pending.replied && pending.idle) {
      clearTimeout(pending.graceTimer);
      this.pending.delete(id);
      pending.onDone?.();
    } else if (pending.adopted && pending.idle && pending.graceTimer === undefined) {
      // Its reply went to the closed page's shell socket; if the server had forgotten that
      // session the reply is gone, but the idle (iopub reaches every client) says it is over.
      pending.graceTimer = setTimeout(() => {
        if (this.pending.get(id) !== pending) return;
        this.pending.delete(id);
        pending.onDone?.();
      }, REPLY_GRACE_MS);
    } else if ((pending.replied && !pending.onIOPub) || (pending.idle && pending.noReply)) {
      // Requests without iopub interest (complete, inspect) are done at the reply.
      this.pending.delete(id);
      pending.onDone?.();
    }
  }

  private setStatus(status: KernelStatus): void {
    if (this.status === status) return;
    this.status = status;
    this.onStatus(status);
  }
}
