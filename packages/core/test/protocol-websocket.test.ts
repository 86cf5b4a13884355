import { describe, expect, it } from 'vitest';
import { isNbserveError, protocol } from '../src/index.js';

const {
  createMessage,
  toRaw,
  fromRaw,
  encodeV1Frame,
  decodeV1Frame,
  encodeJsonFrame,
  encodeJsonFrameRaw,
  decodeJsonFrame,
} = protocol;

const empty = Buffer.from('{}');
const emptyRaw = { header: empty, parentHeader: empty, metadata: empty, content: empty, buffers: [] };

function expectBadFrame(fn: () => unknown, pattern: RegExp) {
  try {
    fn();
  } catch (e) {
    expect(isNbserveError(e) && e.kind === 'bad-request').toBe(true);
    expect(String((e as Error).message)).toMatch(pattern);
    return;
  }
  throw new Error('expected a bad-request error');
}

describe('protocol: v1.kernel.websocket.jupyter.org framing', () => {
  it('matches the reference worked example byte for byte', () => {
    const frame = encodeV1Frame('shell', emptyRaw);
    expect(frame.length).toBe(69);
    expect(frame.readBigUInt64LE(0)).toBe(6n);
    const offsets = [1, 2, 3, 4, 5, 6].map((i) => Number(frame.readBigUInt64LE(8 * i)));
    expect(offsets).toEqual([56, 61, 63, 65, 67, 69]);
    expect(frame.subarray(56).toString()).toBe('shell{}{}{}{}');
  });

  it('round-trips parts and buffers without re-serializing', () => {
    const msg = createMessage('comm_msg', { data: { x: 1 } }, { session: 's' });
    msg.buffers = [Buffer.from([9, 8, 7]), Buffer.alloc(0)];
    const raw = toRaw(msg);
    const decoded = decodeV1Frame(encodeV1Frame('iopub', raw));
    expect(decoded.channel).toBe('iopub');
    expect(Buffer.from(decoded.raw.header).equals(Buffer.from(raw.header))).toBe(true);
    expect(fromRaw(decoded.raw).content).toEqual({ data: { x: 1 } });
    expect(decoded.raw.buffers.map((b) => Buffer.from(b).toString('hex'))).toEqual(['090807', '']);
  });

  it('decodes what @jupyterlab/services encodes', async () => {
    const { serialize, deserialize } = await import('@jupyterlab/services/lib/kernel/serialize.js');
    const msg = createMessage('execute_request', { code: '1+1' }, { session: 's' });
    const bytes = serialize({ ...msg, channel: 'shell' } as never, 'v1.kernel.websocket.jupyter.org') as ArrayBuffer;
    const decoded = decodeV1Frame(new Uint8Array(bytes));
    expect(decoded.channel).toBe('shell');
    expect(fromRaw(decoded.raw).header).toEqual(msg.header);
    const ours = encodeV1Frame('iopub', toRaw(msg));
    const theirs = deserialize(
      ours.buffer.slice(ours.byteOffset, ours.byteOffset + ours.length) as ArrayBuffer,
      'v1.kernel.websocket.jupyter.org',
    );
    expect(theirs.channel).toBe('iopub');
    expect(theirs.content).toEqual({ code: '1+1' });
  });

  it('rejects malformed frames with bad-request', () => {
    expectBadFrame(() => decodeV1Frame(Buffer.alloc(3)), /too short/);
    const good = encodeV1Frame('shell', emptyRaw);
    const badCount = Buffer.from(good);
    badCount.writeBigUInt64LE(1000n, 0);
    expectBadFrame(() => decodeV1Frame(badCount), /offset count/);
    const beyond = Buffer.from(good);
    beyond.writeBigUInt64LE(5000n, 8 * 3);
    expectBadFrame(() => decodeV1Frame(beyond), /beyond/);
    const decreasing = Buffer.from(good);
    decreasing.writeBigUInt64LE(57n, 8 * 3);
    expectBadFrame(() => decodeV1Frame(decreasing), /decrease/);
    const wrongChannel = Buffer.from(good);
    wrongChannel.write('nope!', 56);
    expectBadFrame(() => decodeV1Frame(wrongChannel), /No such channel/);
  });
});

describe('protocol: JSON framing', () => {
  it('splices raw parts into a text frame that parses to the message', () => {
    const msg = createMessage('execute_result', { data: { 'text/plain': '2' } }, { session: 'k' });
    const text = encodeJsonFrameRaw('iopub', toRaw(msg));
    expect(typeof text).toBe('string');
    expect(JSON.parse(text as string)).toEqual({
      channel: 'iopub',
      header: msg.header,
      msg_id: msg.header.msg_id,
      msg_type: 'execute_result',
      parent_header: {},
      metadata: {},
      content: { data: { 'text/plain': '2' } },
      buffers: [],
    });
  });

  it('uses the binary offset framing for buffers, interoperable with @jupyterlab/services', async () => {
    const { serialize, deserialize } = await import('@jupyterlab/services/lib/kernel/serialize.js');
    const msg = createMessage('comm_msg', { data: {} }, { session: 'k' });
    msg.buffers = [new Uint8Array([1, 2]), new Uint8Array([3])];
    const frame = encodeJsonFrame('iopub', msg) as Buffer;
    expect(Buffer.isBuffer(frame)).toBe(true);
    expect(frame.readUInt32BE(0)).toBe(3);
    const theirs = deserialize(frame.buffer.slice(frame.byteOffset, frame.byteOffset + frame.length) as ArrayBuffer);
    expect(theirs.header.msg_id).toBe(msg.header.msg_id);
    expect(theirs).toMatchObject({ msg_id: msg.header.msg_id, msg_type: 'comm_msg' });
    expect(theirs.buffers?.map((b) => Array.from(new Uint8Array((b as DataView).buffer)))).toEqual([[1, 2], [3]]);

    const back = serialize({ ...msg, channel: 'shell' } as never) as ArrayBuffer;
    const decoded = decodeJsonFrame(new Uint8Array(back), true);
    expect(decoded.channel).toBe('shell');
    expect(decoded.msg.buffers.map((b) => Array.from(b))).toEqual([[1, 2], [3]]);
  });

  it('copies a header that needs escaping or lacks the fields to the top level as valid JSON', () => {
    const odd = (header: string) =>
      JSON.parse(encodeJsonFrameRaw('shell', { ...emptyRaw, header: Buffer.from(header) }) as string);
    expect(odd('{"msg_type": "a\\"b", "msg_id": "\\u00e9-1"}')).toMatchObject({ msg_id: 'é-1', msg_type: 'a"b' });
    expect(odd('{}')).toMatchObject({ msg_id: '', msg_type: '' });
  });

  it('decodes text frames, defaulting to shell, and rejects bad ones', () => {
    const msg = createMessage('execute_request', { code: 'x' }, { session: 'c' });
    const { channel, buffers: _b, ...rest } = { channel: undefined, ...msg };
    expect(channel).toBeUndefined();
    expect(decodeJsonFrame(JSON.stringify(rest), false).channel).toBe('shell');
    expect(decodeJsonFrame(JSON.stringify({ ...rest, channel: 'control' }), false).channel).toBe('control');
    expectBadFrame(() => decodeJsonFrame('{nope', false), /not valid JSON/);
    expectBadFrame(() => decodeJsonFrame('[]', false), /Invalid kernel message/);
    expectBadFrame(() => decodeJsonFrame(JSON.stringify({ header: { msg_id: 'x' } }), false), /msg_type/);
    expectBadFrame(() => decodeJsonFrame(JSON.stringify({ ...rest, channel: 'hb' }), false), /No such channel/);
    expectBadFrame(() => decodeJsonFrame(Buffer.from([0, 0, 0]), true), /too short/);
    expectBadFrame(() => decodeJsonFrame(Buffer.from([0, 0, 0, 9, 0, 0, 0, 8]), true), /offset count/);
  });

  it('decodes usual and unusual messages alike: missing or null parts are {}, odd fields are judged', () => {
    const header = { msg_id: 'm', msg_type: 'execute_request', session: 's', extra: [1] };
    const usual = decodeJsonFrame(
      Buffer.from(JSON.stringify({ header, parent_header: null, content: { code: 'pass' }, channel: 'shell' })),
      false,
    );
    expect(usual).toEqual({
      channel: 'shell',
      msg: { header, parent_header: {}, metadata: {}, content: { code: 'pass' }, buffers: [] },
    });
    // what the hand check does not take goes through the schema, with its verdict
    expect(decodeJsonFrame(JSON.stringify({ header, content: [] }), false).msg.content).toEqual({});
    expectBadFrame(() => decodeJsonFrame(JSON.stringify({ header: { ...header, session: 1 } }), false), /session/);
    expectBadFrame(() => decodeJsonFrame(JSON.stringify({ header: { ...header, msg_type: '' } }), false), /msg_type/);
    expectBadFrame(() => decodeJsonFrame(JSON.stringify({ header, content: 'x' }), false), /content/);
    expectBadFrame(() => decodeJsonFrame(JSON.stringify({ header, channel: 3 }), false), /channel/);
  });
});
