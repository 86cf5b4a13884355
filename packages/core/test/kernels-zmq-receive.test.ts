import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import * as zmq from 'zeromq';
import { ZmtpListener } from '../src/kernels/zmtp-listener.js';
import { ZmtpSocket } from '../src/kernels/zmtp-socket.js';
import { KERNEL_SOCKET_OPTIONS } from '../src/kernels/zmtp-transport.js';

// 33 bytes is libzmq's largest inline message; zeromq.js copies frames up to 128 bytes; libzmq
// reads in 8 KiB batches.
const SIZES = [0, 1, 33, 34, 128, 129, 500, 8191, 8192, 8193, 100_000, 3_000_000];
const TOTAL = SIZES.reduce((sum, n) => sum + n, 0);

/** The first `n` messages of a socket. */
async function take(socket: AsyncIterable<Buffer[]>, n: number): Promise<Buffer[][]> {
  const out: Buffer[][] = [];
  const iterator = socket[Symbol.asyncIterator]();
  while (out.length < n) {
    const next = await iterator.next();
    if (next.done) break;
    out.push(next.value);
  }
  return out;
}

describe("what the server's kernel sockets receive", () => {
  it('copies each received message out of the read buffers into one buffer of its own size', async () => {
    const router = new zmq.Router({ linger: 0 });
    await router.bind('tcp://127.0.0.1:*');
    const dealer = new ZmtpSocket('DEALER', { ...KERNEL_SOCKET_OPTIONS, routingId: 'client' });
    dealer.connect(router.lastEndpoint as string);
    try {
      await dealer.send([Buffer.from('hello')]);
      const [identity] = await router.receive();
      const sent = [randomBytes(40), randomBytes(100)];
      // many small messages in one read: none may pin the others' bytes
      for (let i = 0; i < 20; i++) await router.send([identity as Buffer, ...sent]);
      for (const message of await take(dealer, 20)) {
        expect(message.every((frame) => frame.buffer.byteLength === 140)).toBe(true);
      }
    } finally {
      dealer.close();
      router.close();
    }
  });

  it('delivers frames of every size intact, below, at and above the batch and zero-copy sizes', async () => {
    const router = new ZmtpListener('ROUTER');
    const port = await router.bind('tcp://127.0.0.1:0');
    const dealer = new zmq.Dealer({ linger: 0, routingId: 'client' });
    dealer.connect(`tcp://127.0.0.1:${port}`);
    try {
      const sent = sizesOnce();
      // many small messages in flight at once share batch buffers on the way in
      for (let round = 0; round < 50; round++) await dealer.send(sent);
      for (const [identity, ...frames] of await take(router, 50)) {
        expect(identity?.toString()).toBe('client');
        expect(frames.map((f) => f.length)).toEqual(SIZES);
        for (const [i, frame] of frames.entries()) expect(Buffer.compare(frame, sent[i] as Buffer)).toBe(0);
        expect(frames.every((frame) => frame.buffer.byteLength === TOTAL)).toBe(true);
      }
    } finally {
      dealer.close();
      router.close();
    }
  }, 60_000);
});

function sizesOnce(): Buffer[] {
  return SIZES.map((n) => randomBytes(n));
}
