import { api, type SessionModel } from '../lib/api.js';
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
}

interface Pending extends RequestHandlers {
  replied: boolean;
  idle: boolean;
}

const MAX_BACKOFF_MS = 10_000;

/**
 * The page's link to its kernel: a notebook session on the server plus one WebSocket in the
 * default JSON framing. The client session id is fixed for the page's lifetime, so after a
 * dropped connection the server replays what the kernel sent meanwhile, and replies still find
 * their cells through the parent msg_id.
 */
export class KernelConnection {
  readonly clientSession = uuid();
  session: SessionModel | undefined;
  status: KernelStatus = 'connecting';
  languageInfo: Record<string, unknown> = {};
  private ws: WebSocket | undefined;
  private readonly pending = new Map<string, Pending>();
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

  get kernelId(): string | undefined {
    return this.session?.kernel.id;
  }

  /** Creates (or joins) the notebook's session on the server and connects to its kernel. */
  async start(path: string, kernelName: string | undefined): Promise<void> {
    this.setStatus('starting');
    this.session = await api<SessionModel>('api/sessions', {
      method: 'POST',
      body: { path, name: path.split('/').pop(), type: 'notebook', kernel: kernelName ? { name: kernelName } : {} },
    });
    this.connect();
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
      this.pending.delete(id);
      pending.onDone?.();
    } else if (pending.replied && !pending.onIOPub) {
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
