import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { KERNEL_SOCKET_OPTIONS, zmq } from '../src/kernels/zmq.js';

describe('the server zeromq context', () => {
  it('copies received messages out of the I/O batch buffer (ZMQ_ZERO_COPY_RECV off)', () => {
    const context = zmq().context as unknown as { getBoolOption(option: number): boolean };
    expect(context.getBoolOption(10)).toBe(false);
  });

  it('delivers frames of every size intact, below, at and above the batch and zero-copy sizes', async () => {
    const { Router, Dealer } = zmq();
    const router = new Router({ linger: 0 });
    await router.bind('tcp://127.0.0.1:*');
    const dealer = new Dealer({ ...KERNEL_SOCKET_OPTIONS, routingId: 'client' });
    dealer.connect(router.lastEndpoint as string);
    try {
      // 33 bytes is libzmq's largest inline message; zeromq.js copies frames up to 128 bytes;
      // libzmq reads in 8 KiB batches.
      const sizes = [0, 1, 33, 34, 128, 129, 500, 8191, 8192, 8193, 100_000, 3_000_000];
      const sent = sizes.map((n) => randomBytes(n));
      // many small messages in flight at once share batch buffers on the way in
      for (let round = 0; round < 50; round++) await dealer.send(sent);
      for (let round = 0; round < 50; round++) {
        const [identity, ...frames] = await router.receive();
        expect(identity?.toString()).toBe('client');
        expect(frames.map((f) => f.length)).toEqual(sizes);
        for (const [i, frame] of frames.entries()) expect(Buffer.compare(frame, sent[i] as Buffer)).toBe(0);
      }
    } finally {
      dealer.close();
      router.close();
    }
  }, 60_000);
});
