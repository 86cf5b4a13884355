import type { AddressInfo } from 'node:net';
import { protocol } from '@nbserve/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { createKernelHarness } from '../../../testing/kernels.js';
import { ChannelsHub } from '../src/ws/channels-hub.js';

/**
 * The fan-out with small limits behind a bare `ws` server: a slow reader must not stall the
 * kernel or other clients, memory stays bounded, and the slow client is cut off (1013) and can
 * reconnect to get what was buffered.
 */
let h: Awaited<ReturnType<typeof createKernelHarness>>;
let hub: ChannelsHub;
let wss: WebSocketServer;
let port: number;
let kernelId: string;

beforeAll(async () => {
  h = await createKernelHarness();
  hub = new ChannelsHub(h.manager, {
    pingIntervalMs: 0,
    highWaterBytes: 1024 * 1024,
    overflowBytes: 8 * 1024 * 1024,
    rateLimit: { msgRate: 0, dataRate: 0, windowSeconds: 3 },
    replayMaxBytes: 256 * 1024,
    replayMaxAgeMs: 60_000,
    warn: () => {},
  });
  wss = new WebSocketServer({ port: 0, handleProtocols: () => false });
  await new Promise((r) => wss.once('listening', r));
  port = (wss.address() as AddressInfo).port;
  wss.on('connection', (ws, req) => {
    const url = new URL(req.url ?? '/', 'http://x');
    hub.connect(kernelId, ws, url.searchParams.get('session_id') ?? undefined);
  });
  kernelId = (await h.manager.start({ name: 'flood' })).id;
});
afterAll(async () => {
  hub.close();
  wss.close();
  await h.dispose();
});

function connect(session: string): Promise<{ ws: WebSocket; texts: string[] }> {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/?session_id=${session}`);
  const texts: string[] = [];
  ws.on('message', (data: Buffer) => texts.push(data.toString('utf8')));
  return new Promise((resolve) => ws.once('open', () => resolve({ ws, texts })));
}

describe('back-pressure', () => {
  it('disconnects a client that stops reading, keeps others whole, and replays the tail on reconnect', async () => {
    const fast = await connect('fast');
    const slow = await connect('slow');
    const slowClosed = new Promise<number>((resolve) => slow.ws.once('close', (code) => resolve(code)));
    // The slow client stops reading from its TCP socket.
    (slow.ws as unknown as { _socket: { pause(): void } })._socket.pause();
    const request = protocol.createMessage(
      'execute_request',
      {
        code: 'flood 40000 600',
        silent: false,
        store_history: false,
        user_expressions: {},
        allow_stdin: false,
        stop_on_error: true,
      },
      { session: 'fast' },
    );
    fast.ws.send(protocol.encodeJsonFrame('shell', request));
    const idle = () =>
      fast.texts.some(
        (t) => t.includes(request.header.msg_id) && t.includes('"execution_state":"idle"') && t.includes('"status"'),
      );
    const deadline = Date.now() + 50_000;
    while (!idle() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    const streams = fast.texts.filter((t) => t.includes('"msg_type":"stream"') && t.includes(request.header.msg_id));
    expect(streams).toHaveLength(40_000);
    // The slow one was cut off rather than buffered without bound.
    (slow.ws as unknown as { _socket: { resume(): void } })._socket.resume();
    expect(await slowClosed).toBe(1013);
    const kernel = h.manager.get(kernelId);
    await new Promise((r) => setTimeout(r, 100));
    expect(kernel.connections).toBe(1);
    // Reconnecting: the replay buffer holds the newest output, within its bound.
    const back = await connect('slow');
    await new Promise((r) => setTimeout(r, 500));
    const replayed = back.texts.filter((t) => t.includes('"msg_type":"stream"'));
    expect(replayed.length).toBeGreaterThan(0);
    expect(replayed.join('').length).toBeLessThan(400 * 1024);
    expect(replayed.at(-1)).toContain('"text":"39999');
    fast.ws.close();
    back.ws.close();
  });
});
