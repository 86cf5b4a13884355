import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import * as zmq from 'zeromq';
import { freePort } from '../../../testing/ports.js';
import { makeTempDir } from '../../../testing/temp.js';
import { waitFor } from '../../../testing/wait.js';
import { encodeMessage, FrameDecoder, GREETING_LENGTH, greeting, greetingProblem } from '../src/kernels/zmtp-frames.js';
import { ZmtpSocket } from '../src/kernels/zmtp-socket.js';

/** Real libzmq peers (zeromq.js), bound as a kernel binds its sockets. */
const RETRY = { reconnectInterval: 10, reconnectMaxInterval: 200 };

/** The next `n` messages of a socket. */
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

const SIZES = [0, 1, 33, 255, 256, 8191, 8192, 16_384, 65_536, 100_000, 3_000_000];

describe('the JavaScript ZeroMQ DEALER against libzmq', () => {
  it('queues what is sent before the peer is up, connects when it binds, and keeps order and identity', async () => {
    const port = await freePort();
    const dealer = new ZmtpSocket('DEALER', { ...RETRY, routingId: 'client-1' });
    dealer.connect(`tcp://127.0.0.1:${port}`);
    for (let i = 0; i < 20; i++) await dealer.send([Buffer.from(`early ${i}`)]);
    await waitFor(() => dealer.connectAttempts >= 3, { what: 'refused a few times meanwhile' });
    expect(dealer.connected).toBe(false);
    const router = new zmq.Router({ linger: 0 });
    await router.bind(`tcp://127.0.0.1:${port}`);
    try {
      for (let i = 0; i < 20; i++) {
        const [identity, body] = await router.receive();
        expect(identity?.toString()).toBe('client-1');
        expect(body?.toString()).toBe(`early ${i}`);
      }
      await router.send([Buffer.from('client-1'), Buffer.from('reply'), Buffer.from('two')]);
      const [reply] = await take(dealer, 1);
      expect(reply?.map(String)).toEqual(['reply', 'two']);
    } finally {
      dealer.close();
      router.close();
    }
  });

  it('carries frames of every size intact both ways, short and long frames, one buffer per message', async () => {
    const router = new zmq.Router({ linger: 0 });
    await router.bind('tcp://127.0.0.1:*');
    const dealer = new ZmtpSocket('DEALER', { ...RETRY, routingId: 'sizes' });
    dealer.connect(router.lastEndpoint as string);
    try {
      const sent = SIZES.map((n) => randomBytes(n));
      for (let round = 0; round < 5; round++) await dealer.send(sent);
      for (let round = 0; round < 5; round++) {
        const [, ...frames] = await router.receive();
        expect(frames.map((f) => f.length)).toEqual(SIZES);
        for (const [i, frame] of frames.entries()) expect(Buffer.compare(frame, sent[i] as Buffer)).toBe(0);
        await router.send([Buffer.from('sizes'), ...sent]);
      }
      for (const message of await take(dealer, 5)) {
        expect(message.map((f) => f.length)).toEqual(SIZES);
        for (const [i, frame] of message.entries()) expect(Buffer.compare(frame, sent[i] as Buffer)).toBe(0);
        // a kept frame holds its own message's bytes, not the connection's read buffers
        const total = SIZES.reduce((sum, n) => sum + n, 0);
        expect(message.every((frame) => frame.buffer.byteLength === total)).toBe(true);
      }
    } finally {
      dealer.close();
      router.close();
    }
  }, 60_000);

  it('reconnects to a peer that went away and came back on the same port', async () => {
    const port = await freePort();
    const endpoint = `tcp://127.0.0.1:${port}`;
    const dealer = new ZmtpSocket('DEALER', { ...RETRY, routingId: 'again' });
    dealer.connect(endpoint);
    let router = new zmq.Router({ linger: 0 });
    await router.bind(endpoint);
    try {
      await dealer.send([Buffer.from('before')]);
      expect((await router.receive())[1]?.toString()).toBe('before');
      router.close();
      await waitFor(() => !dealer.connected, { what: 'the lost connection noticed' });
      router = new zmq.Router({ linger: 0 });
      await router.bind(endpoint);
      // reconnected within the retry interval (at most 200 ms here), well before this limit
      await waitFor(() => dealer.connected, { timeoutMs: 5000, what: 'reconnected' });
      await dealer.send([Buffer.from('after')]);
      const [identity, body] = await router.receive();
      expect(identity?.toString()).toBe('again');
      expect(body?.toString()).toBe('after');
    } finally {
      dealer.close();
      router.close();
    }
  });

  it('connects over ipc:// too (a connection file with transport "ipc")', async () => {
    const dir = await makeTempDir('nbserve-zmtp-');
    const endpoint = `ipc://${path.join(dir, 'kernel')}-1`;
    const router = new zmq.Router({ linger: 0 });
    await router.bind(endpoint);
    const dealer = new ZmtpSocket('DEALER', { ...RETRY, routingId: 'ipc-client' });
    dealer.connect(endpoint);
    try {
      await dealer.send([Buffer.from('over ipc')]);
      const [identity, body] = await router.receive();
      expect([identity?.toString(), body?.toString()]).toEqual(['ipc-client', 'over ipc']);
    } finally {
      dealer.close();
      router.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a send waiting for a peer that stopped reading goes to the queue once that connection is lost', async () => {
    // a peer that answers the handshake and then reads nothing more
    const peers: net.Socket[] = [];
    const server = net.createServer((socket) => {
      peers.push(socket);
      socket.write(greeting());
      socket.write(Buffer.from([4, 6, 5, ...Buffer.from('READY')]));
      socket.pause();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as net.AddressInfo;
    const dealer = new ZmtpSocket('DEALER', RETRY);
    dealer.connect(`tcp://127.0.0.1:${port}`);
    await waitFor(() => dealer.connected, { what: 'handshake done: sends go to the connection' });
    try {
      let waiting: Promise<void> | undefined;
      for (let i = 0; i < 400 && !waiting; i++) {
        const send = dealer.send([Buffer.alloc(100_000)]);
        // a send with room resolves at once (in microtasks); one still pending a turn of the event loop later waits
        const settled = await Promise.race([send.then(() => true), new Promise((r) => setImmediate(r, false))]);
        if (!settled) waiting = send;
      }
      expect(waiting).toBeDefined(); // the connection's buffer filled up
      for (const peer of peers) peer.destroy();
      server.close();
      await waiting;
    } finally {
      dealer.close();
      server.close();
    }
  });

  it('ends its reader on close, refuses sends after it, and a SUB sends nothing', async () => {
    const dealer = new ZmtpSocket('DEALER', RETRY);
    dealer.connect(`tcp://127.0.0.1:${await freePort()}`);
    const reading = take(dealer, 1);
    dealer.close();
    expect(await reading).toEqual([]);
    await expect(dealer.send([Buffer.from('x')])).rejects.toThrow('closed');
    await expect(new ZmtpSocket('SUB').send([Buffer.from('x')])).rejects.toThrow('SUB');
    expect(() => new ZmtpSocket('DEALER').subscribe()).toThrow('SUB');
  });
});

describe('the JavaScript ZeroMQ SUB against libzmq', () => {
  it('subscribes on connecting, and a late reader loses nothing (no receive limit, as for iopub)', async () => {
    // no send limit on the PUB: at its default (1,000 queued) libzmq drops what its I/O thread has
    // not written yet, which a loaded machine reaches with 5,000 quick sends; a loss here is ours
    const pub = new zmq.Publisher({ linger: 0, sendHighWaterMark: 0 });
    await pub.bind('tcp://127.0.0.1:*');
    const sub = new ZmtpSocket('SUB', { ...RETRY, receiveHighWaterMark: 0 });
    sub.subscribe();
    sub.connect(pub.lastEndpoint as string);
    const iterator = sub[Symbol.asyncIterator]();
    try {
      // a PUB drops what it publishes before the subscription arrives: publish until one gets through
      const first = iterator.next();
      let seen = false;
      void first.then(() => {
        seen = true;
      });
      await waitFor(
        async () => {
          if (!seen) await pub.send([Buffer.from('topic'), Buffer.from('hello')]);
          return seen;
        },
        { timeoutMs: 20_000, intervalMs: 10, what: 'the subscription reaching the PUB' },
      );
      expect((await first).value?.map(String)).toEqual(['topic', 'hello']);
      await pub.send([Buffer.from('mark')]);
      while ((await iterator.next()).value?.[0]?.toString() !== 'mark');
      for (let i = 0; i < 5000; i++) await pub.send([Buffer.from('n'), Buffer.from(String(i))]);
      // all of them arrive and are kept while nobody reads
      await waitFor(() => sub.unread === 5000, { what: '5,000 unread messages kept' });
      const got = await take({ [Symbol.asyncIterator]: () => iterator }, 5000);
      expect(got.map((m) => Number(m[1]?.toString()))).toEqual([...Array(5000).keys()]);
    } finally {
      sub.close();
      pub.close();
    }
  }, 60_000);
});

describe('the JavaScript ZeroMQ DEALER with a receive limit', () => {
  it('stops reading at the limit and resumes as its reader catches up, losing nothing', async () => {
    const peer = new zmq.Dealer({ linger: 0, sendHighWaterMark: 10 });
    await peer.bind('tcp://127.0.0.1:*');
    const dealer = new ZmtpSocket('DEALER', { ...RETRY, receiveHighWaterMark: 50 });
    dealer.connect(peer.lastEndpoint as string);
    try {
      await dealer.send([Buffer.from('hi')]);
      expect((await peer.receive())[0]?.toString()).toBe('hi');
      let sent = 0;
      const sending = (async () => {
        // 10 KB each: 30 MB in all, more than the connection's buffers hold
        for (; sent < 3000; sent++) await peer.send([Buffer.from(String(sent)), Buffer.alloc(10_000)]);
      })();
      // Real time is what is tested: for 300 ms nobody reads, and the sender does not get through.
      await new Promise((resolve) => setTimeout(resolve, 300));
      // nobody has read: the peer is held back by its own high-water mark, our limit and the kernel's buffers
      expect(sent).toBeLessThan(3000);
      const got = await take(dealer, 3000);
      await sending;
      expect(got.map((m) => Number(m[0]?.toString()))).toEqual([...Array(3000).keys()]);
    } finally {
      dealer.close();
      peer.close();
    }
  }, 60_000);
});

describe('ZMTP frames', () => {
  it('decodes a stream cut at every byte into the same messages', () => {
    const messages = [
      [Buffer.from('a'), Buffer.alloc(0), randomBytes(300)],
      [randomBytes(70_000)],
      [Buffer.from('<IDS|MSG>'), randomBytes(40), Buffer.from('{}')],
    ];
    const stream = Buffer.concat(messages.flatMap((m) => encodeMessage(m)));
    for (const cut of [1, 2, 3, 7, 64, 1000, stream.length]) {
      const decoder = new FrameDecoder();
      const out: Buffer[][] = [];
      for (let at = 0; at < stream.length; at += cut) {
        decoder.push(stream.subarray(at, at + cut));
        for (let d = decoder.next(); d; d = decoder.next()) if (d.kind === 'message') out.push(d.frames);
      }
      expect(out.map((m) => m.map((f) => f.toString('hex')))).toEqual(
        messages.map((m) => m.map((f) => f.toString('hex'))),
      );
    }
  });

  it('refuses a command inside a message, an impossible size, and a peer that is not ZMTP 3 with NULL', () => {
    const inside = new FrameDecoder();
    inside.push(Buffer.from([1, 1, 0x61, 4, 1, 0x62]));
    expect(() => inside.next()).toThrow('command inside a message');
    const huge = new FrameDecoder();
    huge.push(Buffer.from([2, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]));
    expect(() => huge.next()).toThrow('frame');
    expect(greetingProblem(greeting())).toBeUndefined();
    const http = Buffer.alloc(GREETING_LENGTH, 0x20);
    expect(greetingProblem(http)).toBe('not a ZeroMQ peer');
    const old = greeting();
    old[10] = 2;
    expect(greetingProblem(old)).toMatch(/3\.0 or later/);
    const curve = greeting();
    curve.write('CURVE', 12, 'latin1');
    expect(greetingProblem(curve)).toMatch(/CURVE/);
  });
});
