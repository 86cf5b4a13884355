import { describe, expect, it } from 'vitest';
import { ZmtpInbox } from '../src/kernels/zmtp-inbox.js';

/** An inbox of numbers whose reader gets `[n]` as one frame, recording its flow calls. */
function inbox(highWater: number) {
  const calls: string[] = [];
  const taken: number[] = [];
  const box = new ZmtpInbox<number>({
    highWater,
    pause: () => calls.push('pause'),
    resume: () => calls.push('resume'),
    take: (n) => {
      taken.push(n);
      return [Buffer.from(String(n))];
    },
  });
  let closed = 0;
  const iterator = box.iterator(() => {
    closed++;
    box.close();
  });
  const read = async () => {
    const result = await iterator.next();
    return result.done ? 'done' : Number(result.value[0]?.toString());
  };
  return { box, calls, taken, iterator, read, closed: () => closed };
}

describe('ZmtpInbox (the received messages of both ZeroMQ sides)', () => {
  it('keeps what nobody reads yet, pauses at the limit and resumes below half of it, in order', async () => {
    const { box, calls, taken, read } = inbox(4);
    for (let n = 0; n < 6; n++) box.push(n);
    expect(calls).toEqual(['pause', 'pause', 'pause']); // at 4, 5 and 6 kept
    expect(taken).toEqual([]); // a message is taken (a REP's request remembered) when read, not when kept
    expect([await read(), await read(), await read(), await read()]).toEqual([0, 1, 2, 3]);
    expect(calls.slice(3)).toEqual([]); // 5 down to 2 kept: not below half yet
    expect(await read()).toBe(4);
    expect(calls.slice(3)).toEqual(['resume']); // 1 kept: below half
    expect(await read()).toBe(5);
    expect(taken).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('hands a message straight to a waiting reader, resuming the peers while it waits', async () => {
    const { box, calls, taken, read } = inbox(4);
    const waiting = read();
    expect(calls).toEqual(['resume']);
    box.push(7);
    expect(await waiting).toBe(7);
    expect(taken).toEqual([7]);
  });

  it('with no limit never pauses', async () => {
    const { box, calls, read } = inbox(0);
    for (let n = 0; n < 3000; n++) box.push(n);
    expect(calls).toEqual([]);
    for (let n = 0; n < 3000; n++) expect(await read()).toBe(n);
  });

  it('ends on close: a waiting reader gets done, what was kept is dropped, later messages are not kept', async () => {
    const { box, read } = inbox(4);
    const waiting = read();
    box.close();
    expect(await waiting).toBe('done');
    box.push(1);
    expect(await read()).toBe('done');

    const other = inbox(4);
    other.box.push(1);
    other.box.close();
    expect(await other.read()).toBe('done');
  });

  it("a reader that breaks off closes the socket (the iterator's return)", async () => {
    const { box, iterator, read, closed } = inbox(4);
    box.push(1);
    expect(await iterator.return?.()).toEqual({ done: true, value: undefined });
    expect(closed()).toBe(1);
    expect(await read()).toBe('done');
  });
});
