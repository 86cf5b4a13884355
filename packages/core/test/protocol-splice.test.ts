import { describe, expect, it } from 'vitest';
import { protocol } from '../src/index.js';

const { encodeJsonFrameBytes, encodeJsonFrame, encodeV1Frame, decodeV1Frame, peekMsgType, peekStringField, Signer } =
  protocol;

/**
 * The iopub hot path never parses a kernel message: it splices the kernel's serialized parts into
 * the WebSocket frame. These tests hold the spliced frame to what parse + stringify would send,
 * for parts serialized the way ipykernel does (Python's json.dumps: ", " and ": " separators,
 * ASCII-only with \uXXXX escapes) and the way Node does (raw UTF-8).
 */

/** Python's json.dumps(value) with its defaults (ensure_ascii, spaced separators). */
function pythonDumps(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    return JSON.stringify(value).replace(
      /[\u007f-\uffff]/g,
      (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
    );
  }
  if (Array.isArray(value)) return `[${value.map(pythonDumps).join(', ')}]`;
  return `{${Object.entries(value)
    .map(([k, v]) => `${pythonDumps(k)}: ${pythonDumps(v)}`)
    .join(', ')}}`;
}

const TRICKY_TEXTS = [
  'plain ascii\n',
  'quotes " and backslashes \\ and /slashes/',
  'controls \u0000\u0001\b\f\n\r\t\u001f end',
  'unicode é ü ñ 中文 日本語 한국어',
  'astral 🎉👩‍👩‍👧 𝔘𝔫𝔦𝔠𝔬𝔡𝔢',
  'separators \u2028 \u2029 and BOM \ufeff',
  'lone surrogate \ud800 kept escaped',
  '"msg_type": "fake" inside a value',
];

function parts(text: string, style: 'node' | 'python') {
  const dumps = style === 'python' ? pythonDumps : (v: unknown) => JSON.stringify(v);
  const header = {
    msg_id: 'a1b2c3d4-0000-4000-8000-000000000001',
    msg_type: 'stream',
    username: 'us\u00e9r',
    session: 'kernel-session',
    date: '2026-11-22T03:00:00.000000Z',
    version: '5.3',
  };
  const parent = { ...header, msg_id: 'parent-\u00e9', msg_type: 'execute_request', session: 'client' };
  const metadata = { note: text, nested: { list: [1, 2.5, -1, 1e300, true, false, null] } };
  const content = { name: 'stdout', text };
  const json = { header, msg_id: header.msg_id, msg_type: header.msg_type, parent_header: parent, metadata, content };
  const raw = {
    header: Buffer.from(dumps(header)),
    parentHeader: Buffer.from(dumps(parent)),
    metadata: Buffer.from(dumps(metadata)),
    content: Buffer.from(dumps(content)),
    buffers: [] as Uint8Array[],
  };
  return { json, raw };
}

describe('protocol: spliced JSON frames equal parse + stringify', () => {
  for (const style of ['node', 'python'] as const) {
    for (const text of TRICKY_TEXTS) {
      it(`text frame, ${style}-serialized parts: ${JSON.stringify(text).slice(0, 40)}`, () => {
        const { json, raw } = parts(text, style);
        const { data, binary } = encodeJsonFrameBytes('iopub', raw);
        expect(binary).toBe(false);
        // The frame is the UTF-8 text a client receives; it must decode without replacement chars.
        const frameText = new TextDecoder('utf-8', { fatal: true }).decode(data);
        const reference = JSON.stringify({ channel: 'iopub', ...json, buffers: [] });
        expect(JSON.parse(frameText)).toEqual(JSON.parse(reference));
        expect(JSON.stringify(JSON.parse(frameText))).toBe(reference);
        // Same bytes as the parse + stringify encoder once both are normalized.
        const parsed = encodeJsonFrame('iopub', { ...json, buffers: [] } as never) as string;
        expect(JSON.parse(parsed)).toEqual(JSON.parse(frameText));
      });
    }
  }

  it('binary framing with buffers: the JSON part parses to the message and buffers follow unchanged', () => {
    const { json, raw } = parts('with buffers 🎉 "q" \\', 'python');
    const buffers = [Buffer.from([0, 255, 1, 254]), Buffer.alloc(0), Buffer.from('{"not":"json"', 'utf8')];
    const { data, binary } = encodeJsonFrameBytes('shell', { ...raw, buffers });
    expect(binary).toBe(true);
    const nbufs = data.readUInt32BE(0);
    expect(nbufs).toBe(1 + buffers.length);
    const offsets = Array.from({ length: nbufs }, (_, i) => data.readUInt32BE(4 * (i + 1)));
    offsets.push(data.length);
    const message = JSON.parse(data.subarray(offsets[0], offsets[1]).toString('utf8'));
    expect(message).toEqual({ channel: 'shell', ...json });
    expect(message.buffers).toBeUndefined();
    buffers.forEach((b, i) => {
      expect(Buffer.compare(data.subarray(offsets[i + 1], offsets[i + 2]), b)).toBe(0);
    });
  });

  it('v1 frames carry the kernel bytes unchanged (signatures computed by the kernel stay valid)', () => {
    const { raw } = parts('v1 é 🎉 \\"', 'python');
    const signer = new Signer('secret-key');
    const signature = signer.sign(raw);
    const decoded = decodeV1Frame(encodeV1Frame('iopub', { ...raw, buffers: [Buffer.from([7])] }));
    expect(decoded.channel).toBe('iopub');
    expect(Buffer.from(decoded.raw.header).equals(raw.header)).toBe(true);
    expect(Buffer.from(decoded.raw.content).equals(raw.content)).toBe(true);
    expect(signer.verify(signature, decoded.raw)).toBe(true);
  });
});

describe('protocol: peeking header fields without parsing', () => {
  it('reads msg_type and msg_id from Node- and Python-spaced headers', () => {
    for (const style of ['node', 'python'] as const) {
      const { raw } = parts('x', style);
      expect(peekMsgType(raw.header)).toBe('stream');
      expect(peekStringField(raw.parentHeader, 'msg_type')).toBe('execute_request');
      expect(peekStringField(raw.header, 'msg_id')).toBe('a1b2c3d4-0000-4000-8000-000000000001');
    }
  });

  it('falls back to a full parse for escaped or non-ASCII values, and agrees with JSON.parse', () => {
    const { raw } = parts('x', 'python');
    // "parent-\u00e9" is written escaped by Python: the fast scan must not return the escape.
    expect(peekStringField(raw.parentHeader, 'msg_id')).toBe('parent-\u00e9');
    const nodeRaw = parts('x', 'node').raw;
    expect(peekStringField(nodeRaw.parentHeader, 'msg_id')).toBe('parent-\u00e9');
    expect(peekStringField(Buffer.from('{"msg_type": "a\\"b"}'), 'msg_type')).toBe('a"b');
  });

  it('does not take a key quoted inside a string value for the field', () => {
    const header = Buffer.from(JSON.stringify({ msg_id: '"msg_type": "fake"', msg_type: 'status' }));
    expect(peekMsgType(header)).toBe('status');
  });

  it('answers empty for unreadable headers instead of throwing', () => {
    expect(peekMsgType(Buffer.from('not json'))).toBe('');
    expect(peekMsgType(Buffer.from('{"msg_type": 5}'))).toBe('');
    expect(peekMsgType(Buffer.from([0xff, 0xfe]))).toBe('');
  });
});
