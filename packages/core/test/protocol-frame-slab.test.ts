import { describe, expect, it } from 'vitest';
import { protocol } from '../src/index.js';
import { allocFrame } from '../src/protocol/frame-slab.js';

describe('protocol: frame slab', () => {
  it('hands out non-overlapping frames across slab boundaries; writing one never changes another', () => {
    const frames: Buffer[] = [];
    // ~200 KiB of small frames: crosses several 64 KiB slabs.
    for (let i = 0; i < 600; i++) {
      const frame = allocFrame(300 + (i % 50));
      frame.fill(i % 251);
      frames.push(frame);
    }
    frames.forEach((frame, i) => {
      expect(frame.length).toBe(300 + (i % 50));
      expect(frame.every((b) => b === i % 251)).toBe(true);
    });
  });

  it('gives large frames their own memory', () => {
    const big = allocFrame(100_000);
    expect(big.length).toBe(100_000);
    const small = allocFrame(10);
    expect(small.buffer).not.toBe(big.buffer);
  });

  it('frames encoded back to back stay intact while earlier ones are still queued', () => {
    const raw = (i: number) =>
      protocol.toRaw(protocol.createMessage('stream', { name: 'stdout', text: `line ${i}\n` }, { session: 's' }));
    const v1 = Array.from({ length: 500 }, (_, i) => protocol.encodeV1Frame('iopub', raw(i)));
    const json = Array.from({ length: 500 }, (_, i) => protocol.encodeJsonFrameBytes('iopub', raw(i)).data);
    v1.forEach((frame, i) => {
      expect(protocol.parsePart(protocol.decodeV1Frame(frame).raw.content)).toEqual({
        name: 'stdout',
        text: `line ${i}\n`,
      });
    });
    json.forEach((frame, i) => {
      expect(JSON.parse(frame.toString('utf8')).content).toEqual({ name: 'stdout', text: `line ${i}\n` });
    });
  });
});
