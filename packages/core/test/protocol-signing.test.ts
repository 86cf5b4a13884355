import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { protocol } from '../src/index.js';

const { Signer, createMessage, toRaw, fromRaw, encodeWire, decodeWire, DELIMITER, isoDate, peekMsgType } = protocol;

describe('protocol: headers', () => {
  it('creates a 5.3 header with a unique msg_id and a microsecond Z date', () => {
    const a = protocol.createHeader('execute_request', { session: 's1', username: 'alice' });
    const b = protocol.createHeader('execute_request', { session: 's1' });
    expect(a).toMatchObject({ session: 's1', username: 'alice', msg_type: 'execute_request', version: '5.3' });
    expect(a.msg_id).not.toBe(b.msg_id);
    expect(a.date).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    expect(isoDate(new Date('2024-05-01T12:00:00.123Z'))).toBe('2024-05-01T12:00:00.123000Z');
  });

  it('sets the parent header and empty metadata', () => {
    const req = createMessage('kernel_info_request', {}, { session: 'c' });
    const reply = createMessage('kernel_info_reply', { status: 'ok' }, { session: 'k', parent: req.header });
    expect(reply.parent_header).toEqual(req.header);
    expect(reply.metadata).toEqual({});
    expect(req.parent_header).toEqual({});
  });

  it('peeks msg_type without a full parse, and falls back for odd spacing', () => {
    expect(peekMsgType(Buffer.from('{"msg_id":"x","msg_type":"status"}'))).toBe('status');
    expect(peekMsgType(Buffer.from('{"msg_id": "x", "msg_type" : "stream"}'))).toBe('stream');
    expect(peekMsgType(Buffer.from('{"msg_type":"a\\"b"}'))).toBe('a"b');
    expect(peekMsgType(Buffer.from('not json'))).toBe('');
  });
});

describe('protocol: HMAC signing', () => {
  const msg = createMessage('execute_request', { code: '1+1' }, { session: 'abc' });
  const raw = toRaw(msg);

  it('signs header+parent+metadata+content with HMAC-SHA256 as lowercase hex', () => {
    const signer = new Signer('secret-key');
    const expected = createHmac('sha256', 'secret-key')
      .update(raw.header)
      .update(raw.parentHeader)
      .update(raw.metadata)
      .update(raw.content)
      .digest('hex');
    expect(signer.sign(raw).toString()).toBe(expected);
    expect(signer.verify(Buffer.from(expected), raw)).toBe(true);
  });

  it('rejects a tampered message, a wrong key, and a wrong-length signature', () => {
    const signer = new Signer('secret-key');
    const sig = signer.sign(raw);
    const tampered = { ...raw, content: Buffer.from('{"code":"2+2"}') };
    expect(signer.verify(sig, tampered)).toBe(false);
    expect(new Signer('other').verify(sig, raw)).toBe(false);
    expect(signer.verify(sig.subarray(0, 10), raw)).toBe(false);
    expect(signer.verify(Buffer.alloc(0), raw)).toBe(false);
  });

  it('ignores buffers when signing', () => {
    const signer = new Signer('k');
    const withBuffers = { ...raw, buffers: [Buffer.from([1, 2, 3])] };
    expect(signer.sign(withBuffers)).toEqual(signer.sign(raw));
  });

  it("matches Node's HMAC for every scheme, short and long keys, small and large messages in any order", () => {
    const schemes = {
      'hmac-sha256': 'sha256',
      'hmac-sha384': 'sha384',
      'hmac-sha512': 'sha512',
      'hmac-sha1': 'sha1',
      'hmac-md5': 'md5',
    };
    const keys = ['k', 'a0436f6c-1916-498b-8eb9-e81ab9368e84', 'x'.repeat(64), 'y'.repeat(129), 'ключ'];
    // 70,000 bytes is past the reused buffer's limit (the streaming path); 3,000 makes it grow.
    const contents = [10, 3000, 70_000, 200, 3000].map((n) => Buffer.from(JSON.stringify({ text: 'é'.repeat(n) })));
    for (const [scheme, algorithm] of Object.entries(schemes)) {
      for (const key of keys) {
        const signer = new Signer(key, scheme);
        for (const content of contents) {
          const message = { ...raw, content };
          const expected = createHmac(algorithm, key)
            .update(raw.header)
            .update(raw.parentHeader)
            .update(raw.metadata)
            .update(content)
            .digest('hex');
          expect(signer.sign(message).toString()).toBe(expected);
          expect(signer.verify(Buffer.from(expected), message)).toBe(true);
        }
      }
    }
  });

  it('disables signing with an empty key and refuses unknown schemes', () => {
    const signer = new Signer('');
    expect(signer.sign(raw).length).toBe(0);
    expect(signer.verify(Buffer.from('anything'), raw)).toBe(true);
    expect(() => new Signer('k', 'rot13')).toThrow(/Unsupported signature scheme/);
    expect(new Signer('k', 'hmac-sha512').sign(raw).length).toBe(128);
  });
});

describe('protocol: ZeroMQ multipart', () => {
  it('round-trips identities, parts and buffers through encode/decode', () => {
    const signer = new Signer('key');
    const msg = createMessage('comm_msg', { data: {} }, { session: 's' });
    msg.buffers = [Buffer.from([0, 1, 2]), Buffer.from('xyz')];
    const frames = encodeWire(toRaw(msg), signer, [Buffer.from('peer-1')]);
    expect(Buffer.from(frames[1] as Uint8Array).equals(DELIMITER)).toBe(true);
    const decoded = decodeWire(frames);
    expect(decoded.identities.map((b) => Buffer.from(b).toString())).toEqual(['peer-1']);
    expect(signer.verify(decoded.signature, decoded.raw)).toBe(true);
    const back = fromRaw(decoded.raw);
    expect(back.header).toEqual(msg.header);
    expect(back.content).toEqual({ data: {} });
    expect(back.buffers.map((b) => Buffer.from(b).toString('hex'))).toEqual(['000102', '78797a']);
  });

  it('treats iopub topics as identities and rejects frames without delimiter or with missing parts', () => {
    const frames = encodeWire(toRaw(createMessage('status', {}, { session: 's' })), new Signer('k'), [
      Buffer.from('kernel.x.status'),
    ]);
    expect(decodeWire(frames).identities).toHaveLength(1);
    expect(() => decodeWire([Buffer.from('a'), Buffer.from('b')])).toThrow(/delimiter/);
    expect(() => decodeWire([DELIMITER, Buffer.from(''), Buffer.from('{}')])).toThrow(/fewer than 5/);
  });
});
