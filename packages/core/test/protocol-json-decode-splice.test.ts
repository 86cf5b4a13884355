import { describe, expect, it } from 'vitest';
import { protocol } from '../src/index.js';

const { decodeJsonFrame, decodeJsonFrameRaw, fromRaw, toRaw } = protocol;

/**
 * Client frames of the JSON framing reach the kernel as slices of the frame (no re-serializing).
 * Whatever the text looks like, the kernel must get the same message the parse + stringify path
 * gives: equal parts once parsed, the same channel and msg_type, the same errors.
 */

const header = {
  msg_id: 'a3c9f1e0-1b2c-4d5e-8f90-123456789abc',
  username: 'us\u00e9r',
  session: 'b3c9f1e0',
  msg_type: 'execute_request',
  version: '5.3',
  date: '2026-11-26T06:00:00.000Z',
};
const content = { code: 'print("}{][\\"")  # \u00e9 🎉 \\', silent: false, store_history: true, user_expressions: {} };

function viaParse(text: string) {
  const { channel, msg } = decodeJsonFrame(Buffer.from(text), false);
  return { channel, raw: toRaw(msg), msgType: msg.header.msg_type };
}

function expectSameMessage(text: string) {
  const spliced = decodeJsonFrameRaw(Buffer.from(text), false);
  const reference = viaParse(text);
  expect(spliced.channel).toBe(reference.channel);
  expect(spliced.msgType).toBe(reference.msgType);
  expect(fromRaw(spliced.raw)).toEqual(fromRaw(reference.raw));
  return spliced;
}

describe('decodeJsonFrameRaw (JSON framing, client to kernel)', () => {
  it('forwards the parts as the client wrote them', () => {
    const text = JSON.stringify({
      channel: 'shell',
      header,
      parent_header: {},
      metadata: { a: [1, { b: '}' }] },
      content,
    });
    const { raw } = expectSameMessage(text);
    expect(Buffer.from(raw.header).toString()).toBe(JSON.stringify(header));
    expect(Buffer.from(raw.content).toString()).toBe(JSON.stringify(content));
    expect(Buffer.from(raw.metadata).toString()).toBe('{"a":[1,{"b":"}"}]}');
  });

  it('keeps spacing and number spelling inside a part (the kernel parses them alike)', () => {
    const text = `{ "header" : ${JSON.stringify(header, null, 2)} ,\n "parent_header":{ },"metadata" : {"n": 1.50e3, "big": 12345678901234567890},\t"content":${JSON.stringify(content)}, "channel" : "control" }`;
    const { raw, channel } = expectSameMessage(text);
    expect(channel).toBe('control');
    expect(Buffer.from(raw.metadata).toString()).toBe('{"n": 1.50e3, "big": 12345678901234567890}');
  });

  it('gives {} for null or missing parts, and takes the last of duplicate keys', () => {
    const missing = expectSameMessage(JSON.stringify({ header, content }));
    expect(Buffer.from(missing.raw.parentHeader).toString()).toBe('{}');
    expect(Buffer.from(missing.raw.metadata).toString()).toBe('{}');
    const nulls = expectSameMessage(JSON.stringify({ header, parent_header: null, metadata: null, content: null }));
    expect(Buffer.from(nulls.raw.content).toString()).toBe('{}');
    const dup = `{"header":${JSON.stringify({ ...header, msg_type: 'first' })},"content":{"x":1},"header":${JSON.stringify(header)},"content":{"x":2}}`;
    const last = expectSameMessage(dup);
    expect(last.msgType).toBe('execute_request');
    expect(fromRaw(last.raw).content).toEqual({ x: 2 });
  });

  it('handles escaped keys, strings with quotes and backslashes, and other top-level values', () => {
    expectSameMessage(`{"\\u0068eader":${JSON.stringify(header)},"content":{"k\\"ey":"v\\\\"}}`);
    expectSameMessage(
      `{"msg_id":"x","buffers":[],"extra":[{"a":"]"},true,null,-1.5e-3,"\\\\\\""],"header":${JSON.stringify(header)},"content":{}}`,
    );
    expectSameMessage(`{"content":{"s":"\\\\"},"header":${JSON.stringify(header)},"metadata":{"t":"a\\\\\\"b"}}`);
  });

  it('rejects what the parse path rejects', () => {
    const bad = [
      '{"header":',
      '[]',
      JSON.stringify({ header: { msg_type: 'x' } }),
      JSON.stringify({ header, content: [] }),
      JSON.stringify({ header, channel: 'nope' }),
    ];
    const outcome = (decode: () => unknown) => {
      try {
        return fromRaw((decode() as { raw: protocol.RawMessage }).raw);
      } catch (error) {
        return (error as Error).message;
      }
    };
    for (const text of bad) {
      expect(outcome(() => decodeJsonFrameRaw(Buffer.from(text), false))).toEqual(outcome(() => viaParse(text)));
    }
    expect(() => decodeJsonFrameRaw(Buffer.from('{"header":'), false)).toThrow('not valid JSON');
    const invalid = Buffer.concat([
      Buffer.from(`{"header":${JSON.stringify(header)},"content":{"s":"`),
      Buffer.from([0xff]),
      Buffer.from('"}}'),
    ]);
    expect(() => decodeJsonFrameRaw(invalid, false)).toThrow('not valid UTF-8');
    expect(() => decodeJsonFrameRaw(Buffer.from(JSON.stringify({ header, channel: 'nope' })), false)).toThrow();
  });

  it('decodes binary frames with buffers as before', () => {
    const json = Buffer.from(JSON.stringify({ channel: 'shell', header, content: { a: 1 } }));
    const buffer = Buffer.from([1, 2, 3]);
    const head = Buffer.alloc(12);
    head.writeUInt32BE(2, 0);
    head.writeUInt32BE(12, 4);
    head.writeUInt32BE(12 + json.length, 8);
    const decoded = decodeJsonFrameRaw(Buffer.concat([head, json, buffer]), true);
    expect(fromRaw(decoded.raw).content).toEqual({ a: 1 });
    expect(Buffer.from(decoded.raw.buffers[0] as Uint8Array)).toEqual(buffer);
  });
});
