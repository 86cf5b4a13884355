import { isUtf8 } from 'node:buffer';
import * as v from 'valibot';
import { badRequest } from '../errors.js';
import { isObject } from '../util/is-object.js';
import { describeIssues } from '../util/validation-issues.js';
import { allocFrame } from './frame-slab.js';
import { parsePart, peekStringField, toRaw } from './json-parts.js';
import { messagePartSpans, type PartName } from './json-spans.js';
import { type Channel, isChannel, type JupyterMessage, type MessageHeader, type RawMessage } from './types.js';

/**
 * The default kernel WebSocket framing: a text frame holding the message as JSON with a
 * `channel` key (and, outbound, the header's `msg_id` and `msg_type` copied to the top level), or, when the message carries binary buffers, a binary frame:
 * `u32be nbufs, u32be offsets[nbufs], JSON, buffer_0, …` (nbufs = 1 + number of buffers).
 */

const HeaderSchema = v.looseObject({
  msg_id: v.string(),
  msg_type: v.pipe(v.string(), v.minLength(1)),
  session: v.optional(v.string()),
  username: v.optional(v.string()),
  date: v.optional(v.string()),
  version: v.optional(v.string()),
});

const MessageSchema = v.looseObject({
  channel: v.optional(v.string()),
  header: HeaderSchema,
  parent_header: v.optional(v.nullable(v.record(v.string(), v.unknown()))),
  metadata: v.optional(v.nullable(v.record(v.string(), v.unknown()))),
  content: v.optional(v.nullable(v.record(v.string(), v.unknown()))),
  buffers: v.optional(v.array(v.unknown())),
});

export interface ChannelMessage {
  channel: Channel;
  msg: JupyterMessage;
}

const HEADER_STRINGS = ['session', 'username', 'date', 'version'] as const;
const isPart = (value: unknown) => value === undefined || value === null || isObject(value);

/**
 * The usual well-formed message, checked by hand without the copies the schema makes (the
 * message is serialized again right after); null for anything else, which the schema then judges.
 * Accepts only what MessageSchema accepts, and gives the same message.
 */
function plainMessage(value: unknown, buffers: Uint8Array[]): ChannelMessage | null {
  if (!isObject(value)) return null;
  const { header, channel } = value;
  if (!isObject(header) || typeof header.msg_id !== 'string' || typeof header.msg_type !== 'string') return null;
  if (header.msg_type === '') return null;
  for (const key of HEADER_STRINGS) if (header[key] !== undefined && typeof header[key] !== 'string') return null;
  if (!isPart(value.parent_header) || !isPart(value.metadata) || !isPart(value.content)) return null;
  if (value.buffers !== undefined && !Array.isArray(value.buffers)) return null;
  const name = channel ?? 'shell';
  if (!isChannel(name)) return null;
  return {
    channel: name,
    msg: {
      header: header as unknown as MessageHeader,
      parent_header: (value.parent_header ?? {}) as MessageHeader,
      metadata: (value.metadata ?? {}) as Record<string, unknown>,
      content: (value.content ?? {}) as Record<string, unknown>,
      buffers,
    },
  };
}

function toMessage(value: unknown, buffers: Uint8Array[]): ChannelMessage {
  const plain = plainMessage(value, buffers);
  if (plain) return plain;
  const parsed = v.safeParse(MessageSchema, value);
  if (!parsed.success) {
    throw badRequest(`Invalid kernel message: ${describeIssues(parsed.issues)}`, 'bad message');
  }
  const m = parsed.output;
  // Upstream assumes `shell` when the channel is missing.
  const channel = m.channel ?? 'shell';
  if (!isChannel(channel)) throw badRequest(`No such channel: ${String(channel)}`, 'bad message');
  return {
    channel,
    msg: {
      header: m.header as MessageHeader,
      parent_header: (m.parent_header ?? {}) as MessageHeader,
      metadata: m.metadata ?? {},
      content: m.content ?? {},
      buffers,
    },
  };
}

/** Decodes a client frame of the JSON framing (text or binary with buffers). */
export function decodeJsonFrame(data: string | Uint8Array, isBinary: boolean): ChannelMessage {
  if (!isBinary) {
    const text =
      typeof data === 'string' ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('utf8');
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw badRequest('WebSocket frame is not valid JSON', 'bad frame');
    }
    return toMessage(value, []);
  }
  const frame =
    typeof data === 'string' ? Buffer.from(data, 'utf8') : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  if (frame.length < 8) throw badRequest('Binary WebSocket frame too short', 'bad frame');
  const nbufs = frame.readUInt32BE(0);
  if (nbufs < 1 || 4 * (nbufs + 1) > frame.length)
    throw badRequest('Binary WebSocket frame has a bad offset count', 'bad frame');
  const offsets: number[] = [];
  for (let i = 0; i < nbufs; i++) offsets.push(frame.readUInt32BE(4 * (i + 1)));
  offsets.push(frame.length);
  for (let i = 0; i < nbufs; i++) {
    const a = offsets[i] as number;
    const b = offsets[i + 1] as number;
    if (a < 4 * (nbufs + 1) || b < a || b > frame.length) {
      throw badRequest('Binary WebSocket frame has bad offsets', 'bad frame');
    }
  }
  let value: unknown;
  try {
    // Strict UTF-8: a raw invalid byte must not reach the kernel as U+FFFD.
    value = parsePart(frame.subarray(offsets[0], offsets[1]));
  } catch {
    throw badRequest('WebSocket frame is not valid UTF-8 JSON', 'bad frame');
  }
  const buffers: Uint8Array[] = [];
  for (let i = 1; i < nbufs; i++) buffers.push(frame.subarray(offsets[i], offsets[i + 1]));
  return toMessage(value, buffers);
}

/** A decoded client frame with its parts as bytes for the kernel, and the header's msg_type. */
export interface RawChannelMessage {
  channel: Channel;
  raw: RawMessage;
  msgType: string;
}

const EMPTY_PART = Buffer.from('{}');

/**
 * Decodes a client frame of the JSON framing straight to the bytes the kernel gets. A text frame
 * is parsed once to check it; its four parts then go to the kernel as the client wrote them
 * (slices of the frame) rather than serialized again from the parsed values. Anything unusual
 * takes the general path, with the same result as `toRaw(decodeJsonFrame(...).msg)`.
 */
export function decodeJsonFrameRaw(data: Uint8Array, isBinary: boolean): RawChannelMessage {
  if (!isBinary) {
    const bytes = Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    // the slices go to the kernel as they are: no invalid byte may pass as U+FFFD in the parse
    if (!isUtf8(bytes)) throw badRequest('WebSocket frame is not valid UTF-8', 'bad frame');
    let value: unknown;
    try {
      value = JSON.parse(bytes.toString('utf8'));
    } catch {
      throw badRequest('WebSocket frame is not valid JSON', 'bad frame');
    }
    const plain = plainMessage(value, []);
    const spans = plain ? messagePartSpans(bytes) : undefined;
    if (plain && spans && isObject(value)) {
      // null or absent parts are `{}`, as upstream; an object part is its slice of the frame
      const part = (name: PartName): Uint8Array | undefined => {
        const span = spans[name];
        if (value[name] === undefined || value[name] === null) return EMPTY_PART;
        return span ? bytes.subarray(span[0], span[1]) : undefined;
      };
      const header = part('header');
      const parentHeader = part('parent_header');
      const metadata = part('metadata');
      const content = part('content');
      if (header && parentHeader && metadata && content) {
        const raw = { header, parentHeader, metadata, content, buffers: [] };
        return { channel: plain.channel, raw, msgType: plain.msg.header.msg_type };
      }
    }
    const { channel, msg } = toMessage(value, []);
    return { channel, raw: toRaw(msg), msgType: msg.header.msg_type };
  }
  const { channel, msg } = decodeJsonFrame(data, true);
  return { channel, raw: toRaw(msg), msgType: msg.header.msg_type };
}

const OPEN_CHANNEL: Record<Channel, Buffer> = {
  shell: Buffer.from('{"channel":"shell","header":'),
  control: Buffer.from('{"channel":"control","header":'),
  stdin: Buffer.from('{"channel":"stdin","header":'),
  iopub: Buffer.from('{"channel":"iopub","header":'),
};
const MSG_ID = Buffer.from(',"msg_id":');
const MSG_TYPE = Buffer.from(',"msg_type":');
const PARENT = Buffer.from(',"parent_header":');
const METADATA = Buffer.from(',"metadata":');
const CONTENT = Buffer.from(',"content":');
const CLOSE_BUFFERS = Buffer.from(',"buffers":[]}');
const CLOSE = Buffer.from('}');

/**
 * A header's string field as a JSON token. jupyter_client's `Session.msg` copies `msg_id` and
 * `msg_type` to the top level of every message, so jupyter_server's JSON frames carry them there
 * as well (https://jupyter-client.readthedocs.io/en/stable/messaging.html#general-message-format)
 * and clients and scripts read them.
 */
function headerField(header: Uint8Array, field: 'msg_id' | 'msg_type'): Buffer {
  return Buffer.from(JSON.stringify(peekStringField(header, field)));
}

/**
 * Encodes a message for the JSON framing by splicing its already-serialized JSON parts
 * (no parse/stringify). Returns a string for a text frame, or a Buffer for the binary framing
 * when the message has buffers.
 */
export function encodeJsonFrameRaw(channel: Channel, raw: RawMessage): string | Buffer {
  const { data, binary } = encodeJsonFrameBytes(channel, raw);
  return binary ? data : data.toString('utf8');
}

/**
 * Same as encodeJsonFrameRaw, but always bytes: the UTF-8 JSON for a text frame (`binary`
 * false), which a WebSocket can send without decoding and re-encoding the text.
 */
export function encodeJsonFrameBytes(channel: Channel, raw: RawMessage): { data: Buffer; binary: boolean } {
  const hasBuffers = raw.buffers.length > 0;
  const pieces = [
    OPEN_CHANNEL[channel],
    raw.header,
    MSG_ID,
    headerField(raw.header, 'msg_id'),
    MSG_TYPE,
    headerField(raw.header, 'msg_type'),
    PARENT,
    raw.parentHeader,
    METADATA,
    raw.metadata,
    CONTENT,
    raw.content,
    hasBuffers ? CLOSE : CLOSE_BUFFERS,
  ];
  let total = 0;
  for (const piece of pieces) total += piece.length;
  const json = allocFrame(total);
  let at = 0;
  for (const piece of pieces) {
    json.set(piece, at);
    at += piece.length;
  }
  if (!hasBuffers) return { data: json, binary: false };
  const nbufs = 1 + raw.buffers.length;
  const head = Buffer.alloc(4 * (nbufs + 1));
  head.writeUInt32BE(nbufs, 0);
  let offset = head.length;
  head.writeUInt32BE(offset, 4);
  offset += json.length;
  raw.buffers.forEach((b, i) => {
    head.writeUInt32BE(offset, 4 * (i + 2));
    offset += b.length;
  });
  return { data: Buffer.concat([head, json, ...raw.buffers]), binary: true };
}

/** Encodes a parsed message for the JSON framing. */
export function encodeJsonFrame(channel: Channel, msg: JupyterMessage<unknown>): string | Buffer {
  return encodeJsonFrameRaw(channel, toRaw(msg));
}
