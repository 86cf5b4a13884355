import type { RawMessage } from '../protocol/types.js';
import type { ConnectionInfo } from './types.js';

/** The request channels a frontend (or the server itself) opens to a kernel. */
export type RequestChannel = 'shell' | 'control' | 'stdin';

/** Why a message from the kernel was dropped. */
export type BadMessage = 'signature' | 'malformed';

/** One set of request channels under one routing id; replies come back to its `onMessage`. */
export interface ChannelSet {
  /** Sends (signed where the transport signs); queued while the transport (re)connects. */
  send(channel: RequestChannel, raw: RawMessage): void;
  close(): void;
}

/**
 * How the server talks to one running kernel: ZeroMQ sockets for a local kernel
 * (zmtp-transport.ts) or the gateway's channels WebSocket for a remote one
 * (gateway/transport.ts). Messages cross it as verified `RawMessage`s: signing, framing and
 * routing are the transport's.
 */
export interface KernelTransport {
  /** A local kernel's connection file (ports, key); undefined for a remote kernel. */
  readonly connection: ConnectionInfo | undefined;
  /** Told of every message dropped on receipt; set by the kernel that uses the transport. */
  onBadMessage: (kind: BadMessage) => void;
  /** Receives every iopub message until closed. */
  subscribe(onMessage: (raw: RawMessage) => void): { close(): void };
  /**
   * Opens `channels` under `routingId`: the kernel answers (and sends `input_request`s) to that
   * id, so a set reopened under the same id, by this server or a later one, gets what the kernel
   * sends it from then on.
   */
  open(
    routingId: string,
    channels: readonly RequestChannel[],
    onMessage: (channel: RequestChannel, raw: RawMessage) => void,
  ): ChannelSet;
  /** One heartbeat round trip: true when the kernel's event loop answered within `timeoutMs`. */
  heartbeat(timeoutMs: number): Promise<boolean>;
  /** Closes what the transport holds besides the sets and subscriptions it handed out. */
  close(): void;
}
