import { badRequest } from '../errors.js';
import { allocFrame } from './frame-slab.js';
import { type Channel, isChannel, type RawMessage } from './types.js';

/** The WebSocket subprotocol name of the v1 binary framing. */
export const V1_SUBPROTOCOL = 'v1.kernel.websocket.jupyter.org';

/**
 * `v1.kernel.websocket.jupyter.org` framing (binary frames only):
 * `u64le n, u64le offsets[n], channel, header, parent_header, metadata, content, buffer_0, …`
 * where offsets[0] is the start of the channel and offsets[i+1] the end of item i.
 */

const CHANNEL_BYTES: Record<Channel, Buffer> = {
  shell: Buffer.from('shell'),
  control: Buffer.from('control'),
  stdin: Buffer.from('stdin'),
  iopub: Buffer.from('iopub'),
};

/** u64 little-endian without BigInt (hot path); frames never reach 2^53 bytes. */
function writeU64(frame: Buffer, value: number, at: number): void {
  frame.writeUInt32LE(value % 0x1_0000_0000, at);
  frame.writeUInt32LE(Math.floor(value / 0x1_0000_0000), at + 4);
}

/** Builds a v1 frame from already-serialized parts: one allocation, no JSON work. */
export function encodeV1Frame(channel: Channel, raw: RawMessage): Buffer {
  const items: Uint8Array[] = [
    CHANNEL_BYTES[channel],
    raw.header,
    raw.parentHeader,
    raw.metadata,
    raw.content,
    ...raw.buffers,
  ];
  const n = items.length + 1;
  const headLen = 8 * (1 + n);
  let total = headLen;
  for (const item of items) total += item.length;
  const frame = allocFrame(total);
  writeU64(frame, n, 0);
  let offset = headLen;
  writeU64(frame, offset, 8);
  for (let i = 0; i < items.length; i++) {
    const item = items[i] as Uint8Array;
    frame.set(item, offset);
    offset += item.length;
    writeU64(frame, offset, 8 * (i + 2));
  }
  return frame;
}

export interface V1Frame {
  channel: Channel;
  raw: RawMessage;
}

function readOffset(frame: Buffer, at: number): number {
  const value = frame.readBigUInt64LE(at);
  if (value > BigInt(frame.length)) throw badRequest('v1 frame offset beyond the frame', 'bad frame');
  return Number(value);
}

/**
 * Decodes a client v1 frame. The JSON parts are returned as views into the frame, unparsed;
 * the caller validates what it needs. Throws bad-request on any structural problem.
 */
export function decodeV1Frame(data: Uint8Array): V1Frame {
  const frame = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  if (frame.length < 8) throw badRequest('v1 frame too short', 'bad frame');
  const nBig = frame.readBigUInt64LE(0);
  // channel + 4 JSON parts → at least 6 offsets.
  if (nBig < 6n || 8n * (1n + nBig) > BigInt(frame.length))
    throw badRequest('v1 frame has a bad offset count', 'bad frame');
  const n = Number(nBig);
  const offsets: number[] = [];
  for (let i = 0; i < n; i++) offsets.push(readOffset(frame, 8 * (i + 1)));
  if (offsets[0] !== 8 * (1 + n)) throw badRequest('v1 frame has a bad first offset', 'bad frame');
  for (let i = 1; i < n; i++) {
    if ((offsets[i] as number) < (offsets[i - 1] as number)) throw badRequest('v1 frame offsets decrease', 'bad frame');
  }
  const item = (i: number) => frame.subarray(offsets[i], offsets[i + 1]);
  const channel = item(0).toString('utf8');
  if (!isChannel(channel)) throw badRequest(`No such channel: ${channel.slice(0, 40)}`, 'bad message');
  const buffers: Uint8Array[] = [];
  for (let i = 5; i < n - 1; i++) buffers.push(item(i));
  return {
    channel,
    raw: { header: item(1), parentHeader: item(2), metadata: item(3), content: item(4), buffers },
  };
}
