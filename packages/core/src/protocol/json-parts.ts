import type { JupyterMessage, MessageHeader, RawMessage } from './types.js';

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

/** Serializes the four JSON parts of a message to wire bytes. */
export function toRaw(msg: JupyterMessage<unknown>): RawMessage {
  return {
    header: encoder.encode(JSON.stringify(msg.header)),
    parentHeader: encoder.encode(JSON.stringify(msg.parent_header ?? {})),
    metadata: encoder.encode(JSON.stringify(msg.metadata ?? {})),
    content: encoder.encode(JSON.stringify(msg.content ?? {})),
    buffers: msg.buffers ?? [],
  };
}

/** Parses the four JSON parts. Throws a SyntaxError/TypeError if a part is not UTF-8 JSON. */
export function fromRaw<C = Record<string, unknown>>(raw: RawMessage): JupyterMessage<C> {
  return {
    header: parsePart(raw.header) as MessageHeader,
    parent_header: parsePart(raw.parentHeader) as MessageHeader,
    metadata: parsePart(raw.metadata) as Record<string, unknown>,
    content: parsePart(raw.content) as C,
    buffers: raw.buffers,
  };
}

export function parsePart(bytes: Uint8Array): unknown {
  return JSON.parse(decoder.decode(bytes));
}

/**
 * Reads `"msg_type"` from a serialized header without parsing all of it. Falls back to a full
 * parse when the fast scan does not find a plain string value. Returns '' when unreadable.
 */
export function peekMsgType(header: Uint8Array): string {
  return peekStringField(header, 'msg_type');
}

/** Same fast scan for any top-level string field of a small JSON object (`msg_id`, `session`). */
export function peekStringField(json: Uint8Array, field: string): string {
  // Search the bytes in place: no string is made of the whole part on the hot path.
  const bytes = Buffer.isBuffer(json) ? json : Buffer.from(json.buffer, json.byteOffset, json.byteLength);
  const key = `"${field}"`;
  let at = bytes.indexOf(key, 0, 'latin1');
  if (at >= 0) {
    at += key.length;
    while (bytes[at] === 0x20 || bytes[at] === 0x3a) at++;
    if (bytes[at] === 0x22) {
      const end = bytes.indexOf(0x22, at + 1);
      if (end > at) {
        const value = bytes.toString('latin1', at + 1, end);
        if (!value.includes('\\') && /^[\x20-\x7e]*$/.test(value)) return value;
      }
    }
  }
  try {
    const parsed = parsePart(json) as Record<string, unknown>;
    const value = parsed?.[field];
    return typeof value === 'string' ? value : '';
  } catch {
    return '';
  }
}
