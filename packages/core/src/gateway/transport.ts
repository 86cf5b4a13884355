import { randomBytes } from 'node:crypto';
import type { BadMessage, ChannelSet, KernelTransport, RequestChannel } from '../kernels/transport.js';
import { createMessage } from '../protocol/header.js';
import { parsePart, peekMsgType, peekStringField, toRaw } from '../protocol/json-parts.js';
import type { Channel, RawMessage } from '../protocol/types.js';

/** Requests remembered for routing their replies; the oldest are forgotten beyond this. */
const MAX_ROUTES = 10_000;

/** Nudges after a gateway's restart: first after this, doubling up to the next, for at most the last. */
const NUDGE_FIRST_MS = 500;
const NUDGE_MAX_MS = 2000;
const NUDGE_FOR_MS = 120_000;

/** Where the transport's messages go: the gateway's channels WebSocket. */
export interface GatewayUplink {
  send(channel: Channel, raw: RawMessage): void;
}

type Receiver = (channel: RequestChannel, raw: RawMessage) => void;

/**
 * A kernel on a gateway, spoken to over the one channels WebSocket this server keeps to it (no
 * ZeroMQ on this side). The gateway answers every request on that socket; a reply (and an
 * `input_request`) goes to the channel set whose request it answers, found by the parent's
 * `msg_id`, as a kernel's ROUTER would route it by routing id.
 */
export class GatewayTransport implements KernelTransport {
  readonly connection = undefined;
  onBadMessage: (kind: BadMessage) => void = () => {};
  readonly #uplink: GatewayUplink;
  readonly #subscribers = new Set<(raw: RawMessage) => void>();
  /** Request msg_id -> the receiver of the set that sent it. */
  readonly #routes = new Map<string, Receiver>();
  #closed = false;
  /** kernel_info requests of the transport's own after a gateway restart (their replies go nowhere). */
  readonly #nudges = new Set<string>();
  #nudgeTimer: NodeJS.Timeout | undefined;
  readonly #session = randomBytes(16).toString('hex');

  constructor(uplink: GatewayUplink) {
    this.#uplink = uplink;
  }

  /** A message from the gateway: iopub to every subscriber, anything else to the set that asked. */
  deliver(channel: Channel, raw: RawMessage): void {
    if (this.#closed) return;
    if (channel === 'iopub') {
      // Every iopub message passes here: the parent is looked at only while nudging.
      if (this.#nudges.size > 0 && this.#nudges.has(peekStringField(raw.parentHeader, 'msg_id'))) this.#stopNudging();
      else if (isRestartingStatus(raw)) this.#nudgeAfterRestart();
      for (const subscriber of this.#subscribers) subscriber(raw);
      return;
    }
    const parentId = peekStringField(raw.parentHeader, 'msg_id');
    const receiver = this.#routes.get(parentId);
    if (!receiver) return; // a reply to a request of a closed set or of another server
    // A shell or control request has exactly one reply, after its stdin traffic.
    if (channel !== 'stdin' && peekMsgType(raw.header).endsWith('_reply')) this.#routes.delete(parentId);
    receiver(channel, raw);
  }

  subscribe(onMessage: (raw: RawMessage) => void): { close(): void } {
    const subscriber = (raw: RawMessage) => onMessage(raw);
    this.#subscribers.add(subscriber);
    return { close: () => this.#subscribers.delete(subscriber) };
  }

  open(_routingId: string, channels: readonly RequestChannel[], onMessage: Receiver): ChannelSet {
    let open = true;
    const receiver: Receiver = (channel, raw) => {
      if (open) onMessage(channel, raw);
    };
    return {
      send: (channel, raw) => {
        if (!open || this.#closed || !channels.includes(channel)) return;
        if (channel !== 'stdin') this.#remember(peekStringField(raw.header, 'msg_id'), receiver);
        this.#uplink.send(channel, raw);
      },
      close: () => {
        open = false;
      },
    };
  }

  /** The gateway watches its kernel's heartbeat itself: the kernel is alive while it is there. */
  async heartbeat(): Promise<boolean> {
    return !this.#closed;
  }

  #remember(msgId: string, receiver: Receiver): void {
    if (msgId === '') return;
    if (this.#routes.size >= MAX_ROUTES) {
      const oldest = this.#routes.keys().next().value;
      if (oldest !== undefined) this.#routes.delete(oldest);
    }
    this.#routes.set(msgId, receiver);
  }

  /**
   * A gateway that restarted its kernel (jupyter_server's restarter after the process died) sends
   * `restarting`, then whatever the new kernel publishes; but its own subscription to the new
   * kernel joins late, so the `idle` for a client's first kernel_info can be lost and the client
   * waits for it forever. As jupyter_server does for a new connection: ask kernel_info until
   * iopub answers one of those requests (its busy/idle then reach every client).
   */
  #nudgeAfterRestart(): void {
    this.#stopNudging();
    const until = Date.now() + NUDGE_FOR_MS;
    let wait = NUDGE_FIRST_MS;
    const nudge = () => {
      if (this.#closed || Date.now() > until) return this.#stopNudging();
      const request = createMessage('kernel_info_request', {}, { session: this.#session });
      this.#nudges.add(request.header.msg_id);
      this.#uplink.send('shell', toRaw(request));
      this.#nudgeTimer = setTimeout(nudge, wait).unref();
      wait = Math.min(2 * wait, NUDGE_MAX_MS);
    };
    nudge();
  }

  #stopNudging(): void {
    clearTimeout(this.#nudgeTimer);
    this.#nudgeTimer = undefined;
    this.#nudges.clear();
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#stopNudging();
    this.#subscribers.clear();
    this.#routes.clear();
  }
}

function isRestartingStatus(raw: RawMessage): boolean {
  if (peekMsgType(raw.header) !== 'status') return false;
  try {
    return (parsePart(raw.content) as { execution_state?: unknown }).execution_state === 'restarting';
  } catch {
    return false;
  }
}
