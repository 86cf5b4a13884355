// needs: kernel
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { Worker } from 'node:worker_threads';
import { protocol } from '@nbserve/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { createKernelHarness } from '../../../testing/kernels.js';
import { waitFor } from '../../../testing/wait.js';
import { ChannelsHub } from '../src/ws/channels-hub.js';

/**
 * The fan-out with small limits behind a bare `ws` server: a slow reader must not stall the
 * kernel or other clients, memory stays bounded, and the slow client is cut off (1013) and can
 * reconnect to get what was buffered.
 *
 * The fast client reads on its own thread, as a browser would: on the server's thread its reads
 * would wait behind the server's writes, and on a loaded machine it fell 9 MB behind and was cut
 * off as slow.
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

/** Reads on a worker thread; counts the flood's stream messages and reports at idle or close. */
const FAST_READER = `
const { parentPort, workerData } = require('node:worker_threads');
const WebSocket = require(workerData.ws);
const ws = new WebSocket(workerData.url);
let streams = 0;
ws.on('open', () => parentPort.postMessage({ open: true }));
ws.on('message', (data) => {
  const text = data.toString('utf8');
  if (!text.includes(workerData.msgId)) return;
  if (text.includes('"msg_type":"stream"')) streams++;
  else if (text.includes('"execution_state":"idle"')) parentPort.postMessage({ idle: true, streams });
});
ws.on('close', (code) => parentPort.postMessage({ closed: code, streams }));
parentPort.on('message', (frame) => (frame === 'close' ? ws.close() : ws.send(frame)));
`;

interface FastReport {
  open?: true;
  idle?: true;
  closed?: number;
  streams?: number;
}

function fastReader(msgId: string): { worker: Worker; next: () => Promise<FastReport> } {
  const worker = new Worker(FAST_READER, {
    eval: true,
    workerData: {
      ws: createRequire(import.meta.url).resolve('ws'),
      url: `ws://127.0.0.1:${port}/?session_id=fast`,
      msgId,
    },
  });
  const reports: FastReport[] = [];
  let waiting: ((report: FastReport) => void) | undefined;
  worker.on('message', (report: FastReport) => {
    if (waiting) {
      waiting(report);
      waiting = undefined;
    } else reports.push(report);
  });
  const next = () => {
    const queued = reports.shift();
    return queued ? Promise.resolve(queued) : new Promise<FastReport>((resolve) => (waiting = resolve));
  };
  return { worker, next };
}

describe('back-pressure', () => {
  it('disconnects a client that stops reading, keeps others whole, and replays the tail on reconnect', async () => {
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
    const fast = fastReader(request.header.msg_id);
    expect(await fast.next()).toEqual({ open: true });
    const slow = await connect('slow');
    const slowClosed = new Promise<number>((resolve) => slow.ws.once('close', (code) => resolve(code)));
    // The slow client stops reading from its TCP socket.
    (slow.ws as unknown as { _socket: { pause(): void } })._socket.pause();
    fast.worker.postMessage(protocol.encodeJsonFrame('shell', request));
    // Every message reached the fast client, and it was never cut off.
    expect(await fast.next()).toEqual({ idle: true, streams: 40_000 });
    // The slow one was cut off rather than buffered without bound.
    (slow.ws as unknown as { _socket: { resume(): void } })._socket.resume();
    expect(await slowClosed).toBe(1013);
    const kernel = h.manager.get(kernelId);
    await waitFor(() => kernel.connections <= 1, { what: 'the slow client dropped' });
    expect(kernel.connections).toBe(1);
    // Reconnecting: the replay buffer holds the newest output, within its bound.
    const back = await connect('slow');
    await waitFor(() => back.texts.some((t) => t.includes('"text":"39999')), {
      what: 'the replay up to the last line',
    });
    const replayed = back.texts.filter((t) => t.includes('"msg_type":"stream"'));
    expect(replayed.length).toBeGreaterThan(0);
    expect(replayed.join('').length).toBeLessThan(400 * 1024);
    expect(replayed.at(-1)).toContain('"text":"39999');
    fast.worker.postMessage('close');
    expect(await fast.next()).toMatchObject({ closed: 1005 });
    await fast.worker.terminate();
    back.ws.close();
  });
});
