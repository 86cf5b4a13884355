import { protocol } from '@nbserve/core';
import { describe, expect, it } from 'vitest';
import { IopubRateLimiter } from '../src/ws/rate-limit.js';
import { ReplayBuffer } from '../src/ws/replay-buffer.js';

const msg = (type: string, content: object, parent?: protocol.MessageHeader) =>
  protocol.toRaw(protocol.createMessage(type, content, { session: 'k', parent }));

describe('ReplayBuffer', () => {
  it('replays in order and drops the oldest past the byte bound, counting drops', () => {
    const one = msg('stream', { name: 'stdout', text: 'x'.repeat(100) });
    const size = one.header.length + one.parentHeader.length + one.metadata.length + one.content.length;
    const buffer = new ReplayBuffer(size * 3 + 10, 60_000);
    const sent = Array.from({ length: 5 }, (_, i) => msg('stream', { name: 'stdout', text: String(i).repeat(100) }));
    for (const raw of sent) buffer.push('iopub', raw);
    expect(buffer.size).toBe(3);
    expect(buffer.dropped).toBe(2);
    expect(buffer.bytes).toBeLessThanOrEqual(size * 3 + 10);
    const out = buffer.drain();
    expect(out.map((e) => (protocol.fromRaw(e.raw).content as { text: string }).text[0])).toEqual(['2', '3', '4']);
    expect(buffer.size).toBe(0);
    expect(buffer.bytes).toBe(0);
  });

  it('drops messages older than the age bound and anything larger than the whole buffer', () => {
    let now = 1000;
    const buffer = new ReplayBuffer(10_000, 5_000, () => now);
    buffer.push('iopub', msg('stream', { text: 'old' }));
    now += 4_000;
    buffer.push('shell', msg('execute_reply', { status: 'ok' }));
    now += 2_000;
    buffer.push('iopub', msg('stream', { text: 'x'.repeat(20_000) }));
    const out = buffer.drain();
    expect(out.map((e) => e.channel)).toEqual(['shell']);
    expect(buffer.dropped).toBe(2);
  });

  it('stays bounded over many messages', () => {
    const buffer = new ReplayBuffer(50_000, 60_000);
    for (let i = 0; i < 20_000; i++) buffer.push('iopub', msg('stream', { text: `line ${i}` }));
    expect(buffer.bytes).toBeLessThanOrEqual(50_000);
    const out = buffer.drain();
    expect((protocol.fromRaw(out.at(-1)?.raw as protocol.RawMessage).content as { text: string }).text).toBe(
      'line 19999',
    );
    expect(out.length + buffer.dropped).toBe(20_000);
  });
});

describe('IopubRateLimiter', () => {
  it('is off by default (0 = unlimited)', () => {
    const limiter = new IopubRateLimiter({ msgRate: 0, dataRate: 0, windowSeconds: 3 });
    expect(limiter.enabled).toBe(false);
  });

  it('sends one stderr notice naming the option, drops while over, resumes below 80% and resets on idle', () => {
    let now = 0;
    const limiter = new IopubRateLimiter({ msgRate: 10, dataRate: 0, windowSeconds: 1 }, () => now);
    const parent = protocol.createHeader('execute_request', { session: 'client' });
    const verdicts: string[] = [];
    let notice: protocol.RawMessage | undefined;
    for (let i = 0; i < 15; i++) {
      const v = limiter.check(msg('stream', { name: 'stdout', text: 'x' }, parent), 'stream', 'server');
      verdicts.push(v.action);
      if (v.action === 'notice') notice = v.notice;
    }
    expect(verdicts.slice(0, 10).every((v) => v === 'send')).toBe(true);
    expect(verdicts[10]).toBe('notice');
    expect(verdicts.slice(11).every((v) => v === 'drop')).toBe(true);
    const parsed = protocol.fromRaw(notice as protocol.RawMessage);
    expect(parsed.content).toMatchObject({ name: 'stderr' });
    expect(String(parsed.content.text)).toMatch(/^IOPub message rate exceeded\./);
    expect(String(parsed.content.text)).toContain('--iopub-msg-rate-limit');
    expect((parsed.parent_header as protocol.MessageHeader).msg_id).toBe(parent.msg_id);
    // status is never limited; execute_input neither.
    expect(limiter.check(msg('execute_input', {}), 'execute_input', 's').action).toBe('send');
    // After the window passes, the rate is below 80%: output resumes.
    now += 1500;
    expect(limiter.check(msg('stream', { text: 'y' }), 'stream', 's').action).toBe('send');
    // An idle status resets counters.
    for (let i = 0; i < 9; i++) limiter.check(msg('stream', { text: 'z' }), 'stream', 's');
    expect(limiter.check(msg('status', { execution_state: 'idle' }), 'status', 's').action).toBe('send');
    expect(limiter.check(msg('stream', { text: 'after idle' }), 'stream', 's').action).toBe('send');
  });

  it('limits stream bytes per second with the data limit', () => {
    const limiter = new IopubRateLimiter({ msgRate: 0, dataRate: 1000, windowSeconds: 1 }, () => 0);
    const big = msg('stream', { name: 'stdout', text: 'x'.repeat(400) });
    expect(limiter.check(big, 'stream', 's').action).toBe('send');
    expect(limiter.check(big, 'stream', 's').action).toBe('send');
    const third = limiter.check(big, 'stream', 's');
    expect(third.action).toBe('notice');
    if (third.action === 'notice')
      expect(String(protocol.fromRaw(third.notice).content.text)).toMatch(/^IOPub data rate exceeded/);
    // display_data does not count towards the data rate.
    expect(
      limiter.check(msg('display_data', { data: { 'text/plain': 'x'.repeat(5000) } }), 'display_data', 's').action,
    ).toBe('drop');
  });
});
