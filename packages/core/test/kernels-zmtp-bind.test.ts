import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import * as zmq from 'zeromq';
import { makeTempDir } from '../../../testing/temp.js';
import { within } from '../../../testing/wait.js';
import { ZmtpListener } from '../src/kernels/zmtp-listener.js';
import { ZmtpSocket } from '../src/kernels/zmtp-socket.js';

/**
 * The bind side of nbserve's ZeroMQ (ROUTER, PUB, REP, as the built-in kernel binds them) against
 * libzmq's clients (zeromq.js), and the REQ the server sends heartbeats with against libzmq's REP.
 */
const closers: (() => void)[] = [];
afterEach(() => {
  for (const close of closers.splice(0)) close();
});

function track<T extends { close(): void }>(socket: T): T {
  closers.push(() => socket.close());
  return socket;
}

/** The next message of an async-iterable socket, failing after `ms`. */
async function next(socket: AsyncIterable<Buffer[]>, ms = 5000): Promise<Buffer[]> {
  const result = await within(socket[Symbol.asyncIterator]().next(), ms, 'a message');
  if (result.done) throw new Error('socket closed');
  return result.value;
}

const SIZES = [0, 1, 33, 255, 256, 8192, 100_000, 3_000_000];

describe('the JavaScript ZeroMQ ROUTER', () => {
  it("receives a libzmq DEALER's messages under its routing id and routes replies back, any frame size", async () => {
    const router = track(new ZmtpListener('ROUTER'));
    const port = await router.bind('tcp://127.0.0.1:0');
    const dealer = track(new zmq.Dealer({ routingId: 'client-a', linger: 0 }));
    dealer.connect(`tcp://127.0.0.1:${port}`);
    const sent = SIZES.map((n) => randomBytes(n));
    await dealer.send(sent);
    const [identity, ...frames] = await next(router);
    expect(identity?.toString()).toBe('client-a');
    expect(frames.map((f) => f.length)).toEqual(SIZES);
    for (const [i, frame] of frames.entries()) expect(Buffer.compare(frame, sent[i] as Buffer)).toBe(0);
    await router.send([Buffer.from('client-a'), ...sent]);
    const reply = await dealer.receive();
    expect(reply.map((f) => f.length)).toEqual(SIZES);
    for (const [i, frame] of reply.entries()) expect(Buffer.compare(frame, sent[i] as Buffer)).toBe(0);
  });

  it('names a peer without an identity itself, drops what goes to unknown ids, or rejects them when mandatory', async () => {
    const router = track(new ZmtpListener('ROUTER'));
    const mandatory = track(new ZmtpListener('ROUTER', { mandatory: true }));
    const port = await router.bind('tcp://127.0.0.1:*');
    await mandatory.bind('tcp://127.0.0.1:0');
    const dealer = track(new zmq.Dealer({ linger: 0 }));
    dealer.connect(`tcp://127.0.0.1:${port}`);
    await dealer.send('hello');
    const [identity, body] = await next(router);
    expect(identity?.length).toBe(5);
    expect(body?.toString()).toBe('hello');
    await router.send([identity as Buffer, Buffer.from('back')]);
    expect((await dealer.receive()).map(String)).toEqual(['back']);
    await expect(router.send([Buffer.from('nobody'), Buffer.from('x')])).resolves.toBeUndefined();
    await expect(mandatory.send([Buffer.from('nobody'), Buffer.from('x')])).rejects.toMatchObject({
      code: 'EHOSTUNREACH',
    });
  });

  it('hands a routing id over to a newer connection (a server reconnecting with the same id)', async () => {
    const router = track(new ZmtpListener('ROUTER'));
    const port = await router.bind('tcp://127.0.0.1:0');
    const first = track(new ZmtpSocket('DEALER', { routingId: 'same' }));
    first.connect(`tcp://127.0.0.1:${port}`);
    await first.send([Buffer.from('one')]);
    expect((await next(router)).map(String)).toEqual(['same', 'one']);
    first.close();
    const second = track(new ZmtpSocket('DEALER', { routingId: 'same' }));
    second.connect(`tcp://127.0.0.1:${port}`);
    await second.send([Buffer.from('two')]);
    expect((await next(router)).map(String)).toEqual(['same', 'two']);
    await router.send([Buffer.from('same'), Buffer.from('for the newer one')]);
    expect((await next(second)).map(String)).toEqual(['for the newer one']);
  });

  it('binds an ipc endpoint', async () => {
    const dir = await makeTempDir();
    const router = track(new ZmtpListener('ROUTER'));
    const file = path.join(dir, 'kernel-7');
    expect(await router.bind(`ipc://${file}`)).toBe(7);
    const dealer = track(new zmq.Dealer({ routingId: 'ipc', linger: 0 }));
    dealer.connect(`ipc://${file}`);
    await dealer.send('over ipc');
    expect((await next(router)).map(String)).toEqual(['ipc', 'over ipc']);
  });
});

describe('the JavaScript ZeroMQ PUB', () => {
  it("shows libzmq SUBs' subscriptions as XPUB does and sends each only what matches its prefix", async () => {
    const pub = track(new ZmtpListener('PUB'));
    const port = await pub.bind('tcp://127.0.0.1:0');
    const all = track(new zmq.Subscriber({ linger: 0 }));
    const some = track(new zmq.Subscriber({ linger: 0 }));
    all.subscribe('');
    some.subscribe('kernel.a');
    all.connect(`tcp://127.0.0.1:${port}`);
    some.connect(`tcp://127.0.0.1:${port}`);
    const subscriptions = [(await next(pub))[0], (await next(pub))[0]].map((f) => f?.toString('latin1'));
    expect(subscriptions.sort()).toEqual(['\u0001', '\u0001kernel.a']);
    await pub.send([Buffer.from('kernel.b.status'), Buffer.from('to all only')]);
    await pub.send([Buffer.from('kernel.a.status'), Buffer.from('to both')]);
    expect((await all.receive()).map(String)).toEqual(['kernel.b.status', 'to all only']);
    expect((await all.receive()).map(String)).toEqual(['kernel.a.status', 'to both']);
    expect((await some.receive()).map(String)).toEqual(['kernel.a.status', 'to both']);
  });

  it("reaches the server's own SUB", async () => {
    const pub = track(new ZmtpListener('PUB'));
    const port = await pub.bind('tcp://127.0.0.1:0');
    const sub = track(new ZmtpSocket('SUB'));
    sub.subscribe();
    sub.connect(`tcp://127.0.0.1:${port}`);
    expect((await next(pub)).map((f) => [...f])).toEqual([[1]]);
    await pub.send([Buffer.from('topic'), Buffer.from('body')]);
    expect((await next(sub)).map(String)).toEqual(['topic', 'body']);
  });
});

describe('the heartbeat: REQ and REP', () => {
  it("echoes a libzmq REQ's pings on the JavaScript REP", async () => {
    const rep = track(new ZmtpListener('REP'));
    const port = await rep.bind('tcp://127.0.0.1:0');
    void (async () => {
      for await (const frames of rep) await rep.send(frames);
    })();
    const req = track(new zmq.Request({ linger: 0 }));
    req.connect(`tcp://127.0.0.1:${port}`);
    for (const ping of ['one', 'two']) {
      await req.send(ping);
      expect((await req.receive()).map(String)).toEqual([ping]);
    }
  });

  it("gets the JavaScript REQ's pings echoed by libzmq's REP", async () => {
    const rep = track(new zmq.Reply({ linger: 0 }));
    await rep.bind('tcp://127.0.0.1:*');
    void (async () => {
      for await (const frames of rep) await rep.send(frames);
    })().catch(() => {});
    const req = track(new ZmtpSocket('REQ'));
    req.connect(rep.lastEndpoint as string);
    await req.send([Buffer.from('ping')]);
    expect((await next(req)).map(String)).toEqual(['ping']);
  });
});
