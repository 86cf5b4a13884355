/** The Jupyter messaging protocol version nbserve speaks (clients and kernels accept any 5.x). */
export const PROTOCOL_VERSION = '5.3';

/** The channels a client can address through the server. `hb` is not a message channel. */
export type Channel = 'shell' | 'control' | 'stdin' | 'iopub';
export const CHANNELS: readonly Channel[] = ['shell', 'control', 'stdin', 'iopub'];

export function isChannel(value: unknown): value is Channel {
  return value === 'shell' || value === 'control' || value === 'stdin' || value === 'iopub';
}

export interface MessageHeader {
  msg_id: string;
  session: string;
  username: string;
  date: string;
  msg_type: string;
  version: string;
  [extra: string]: unknown;
}

/** A message with its JSON parts parsed. `parent_header` is `{}` when there is no parent. */
export interface JupyterMessage<C = Record<string, unknown>> {
  header: MessageHeader;
  parent_header: MessageHeader | Record<string, never>;
  metadata: Record<string, unknown>;
  content: C;
  buffers: Uint8Array[];
}

/**
 * A message whose four JSON parts are kept as the serialized bytes that travel on the wire.
 * The forwarding hot path moves these between ZeroMQ and WebSocket frames without re-parsing.
 */
export interface RawMessage {
  header: Uint8Array;
  parentHeader: Uint8Array;
  metadata: Uint8Array;
  content: Uint8Array;
  buffers: Uint8Array[];
}

/** Execution states a kernel reports in iopub `status` messages (plus server-side ones). */
export type ExecutionState = 'starting' | 'idle' | 'busy' | 'restarting' | 'dead' | 'terminating' | 'autorestarting';
