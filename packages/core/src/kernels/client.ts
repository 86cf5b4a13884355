import { randomUUID } from 'node:crypto';
import type { RawMessage } from '../protocol/types.js';
import type { ChannelSet, KernelTransport, RequestChannel } from './transport.js';

export type ClientChannel = RequestChannel;

/** What a KernelClient needs from its kernel; implemented by Kernel. */
export interface ClientHost {
  /** Where clients connect; undefined until the kernel is ready (sends are queued meanwhile). */
  readonly clientTransport: KernelTransport | undefined;
  noteActivity(): void;
  reportListenerError(error: unknown): void;
  removeClient(client: KernelClient): void;
}

const MAX_QUEUED_WHILE_DETACHED = 1000;

/**
 * One frontend's private shell/control/stdin channels to a kernel. Shell and stdin share one
 * routing identity, so the kernel sends `input_request`s to the client whose code asked.
 * Replies therefore reach only the client that sent the request. Survives kernel restarts:
 * the kernel re-attaches it to the new process.
 */
export class KernelClient {
  readonly identity: string;
  /** The channels session (WebSocket `session_id`) this client serves; '' when none. */
  sessionId = '';
  /** Receives verified replies and stdin requests: the JSON parts as the kernel serialized them. */
  onMessage: (channel: ClientChannel, raw: RawMessage) => void = () => {};
  readonly #host: ClientHost;
  #channels: ChannelSet | undefined;
  #pending: Array<[ClientChannel, RawMessage]> = [];
  #closed = false;

  constructor(host: ClientHost, identity: string = randomUUID()) {
    this.#host = host;
    this.identity = identity;
    if (host.clientTransport) this.attach(host.clientTransport);
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Sends a message; queued (bounded) while the kernel is starting or restarting. */
  send(channel: ClientChannel, raw: RawMessage): void {
    if (this.#closed) return;
    this.#host.noteActivity();
    const channels = this.#channels;
    if (!channels) {
      if (this.#pending.length < MAX_QUEUED_WHILE_DETACHED) this.#pending.push([channel, raw]);
      return;
    }
    channels.send(channel, raw);
  }

  /** Opens the channels (again after a restart) to the kernel's current process. */
  attach(transport: KernelTransport): void {
    if (this.#closed) return;
    this.detach();
    // stdin first: the kernel's ROUTER drops an input_request for an identity it has not seen on
    // stdin yet, so that handshake should be under way before any request reaches shell.
    this.#channels = transport.open(this.identity, ['stdin', 'shell', 'control'], (channel, raw) =>
      this.#receive(channel, raw),
    );
    const pending = this.#pending;
    this.#pending = [];
    for (const [channel, raw] of pending) this.send(channel, raw);
  }

  /** Closes the channels (kernel going away or restarting). */
  detach(): void {
    const channels = this.#channels;
    if (!channels) return;
    this.#channels = undefined;
    channels.close();
  }

  close(): void {
    if (this.#closed) return;
    this.detach();
    this.#closed = true;
    this.#pending = [];
    this.#host.removeClient(this);
  }

  #receive(channel: ClientChannel, raw: RawMessage): void {
    this.#host.noteActivity();
    try {
      this.onMessage(channel, raw);
    } catch (error) {
      // A faulty consumer must not stop the channel's receive loop.
      this.#host.reportListenerError(error);
    }
  }
}
