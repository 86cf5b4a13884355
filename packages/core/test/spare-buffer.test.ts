import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { SpareBuffer } from '../src/index.js';

const MB = 1024 * 1024;

describe('SpareBuffer', () => {
  it('hands a given-back buffer to the next big enough take, and only once', () => {
    const buffers = new SpareBuffer();
    const first = buffers.take(3 * MB);
    expect(first.byteLength).toBeGreaterThanOrEqual(3 * MB);
    expect(buffers.keptBytes).toBe(0);
    buffers.give(first.subarray(0, 2 * MB)); // a part gives back the whole buffer
    expect(buffers.keptBytes).toBe(first.buffer.byteLength);
    const again = buffers.take(2 * MB);
    expect(again.buffer).toBe(first.buffer);
    expect(buffers.keptBytes).toBe(0);
    const other = buffers.take(2 * MB); // the spare is out: fresh memory
    expect(other.buffer).not.toBe(first.buffer);
  });

  it('allocates for requests bigger than the spare and keeps the bigger of two buffers', () => {
    const buffers = new SpareBuffer();
    const small = buffers.take(2 * MB);
    const big = buffers.take(5 * MB);
    buffers.give(small);
    buffers.give(big);
    expect(buffers.keptBytes).toBe(big.buffer.byteLength);
    buffers.give(buffers.take(2 * MB)); // the big one, taken and given back
    buffers.give(small);
    expect(buffers.keptBytes).toBe(big.buffer.byteLength);
    expect(buffers.take(6 * MB).buffer).not.toBe(big.buffer);
  });

  it('keeps nothing small, nothing over its maximum, and nothing from Node’s shared pool', () => {
    const buffers = new SpareBuffer({ minBytes: 10, maxBytes: 4 * MB });
    const pooled = buffers.take(100); // below the 64 KiB floor: an ordinary (maybe pooled) Buffer
    buffers.give(pooled);
    expect(buffers.keptBytes).toBe(0);
    buffers.give(buffers.take(5 * MB));
    expect(buffers.keptBytes).toBe(0);
    const ok = buffers.take(128 * 1024);
    expect(ok.buffer.byteLength).toBe(128 * 1024); // its own memory
    buffers.give(ok);
    expect(buffers.keptBytes).toBe(128 * 1024);
  });

  it('drops the spare after its idle time', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    onTestFinished(() => {
      vi.useRealTimers();
    });
    const buffers = new SpareBuffer({ idleMs: 20 });
    buffers.give(buffers.take(2 * MB));
    expect(buffers.keptBytes).toBeGreaterThan(0);
    vi.advanceTimersByTime(19);
    expect(buffers.keptBytes).toBeGreaterThan(0);
    vi.advanceTimersByTime(41);
    expect(buffers.keptBytes).toBe(0);
  });

  it('with headroom, a fresh buffer fits a somewhat bigger next request (body read, then the save)', () => {
    const buffers = new SpareBuffer({ headroom: 0.25 });
    const body = buffers.take(4 * MB).subarray(0, 4 * MB);
    expect(body.buffer.byteLength).toBe(5 * MB);
    buffers.give(body);
    const serialized = buffers.take(4.5 * MB);
    expect(serialized.buffer).toBe(body.buffer);
    expect(new SpareBuffer({ headroom: 0.25, maxBytes: 4 * MB }).take(4 * MB).byteLength).toBe(4 * MB);
  });
});
