// needs: kernel
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../../testing/server.js';
import { TOKEN } from '../../../testing/token.js';
import { waitFor } from '../../../testing/wait.js';

const IDLE_TIMEOUT_S = 1;
let fx: TestServer;

beforeAll(async () => {
  // Culling as `--cull-idle-timeout=1 --no-cull-connected`, with passes run by the test itself.
  fx = await startServer({
    floodKernels: true,
    cullIdleTimeout: IDLE_TIMEOUT_S,
    cullInterval: 0,
    cullConnected: false,
  });
});
afterAll(async () => {
  await fx.close();
});

async function connections(kernelId: string): Promise<number> {
  return ((await (await fx.fetch(`api/kernels/${kernelId}`)).json()) as { connections: number }).connections;
}

/**
 * A kernel WebSocket client written at the byte level, so it can do what a client whose event
 * loop stopped does (Notebook 6's own tests close this way): send its close frame, then neither
 * read the server's answer nor close TCP.
 */
async function stallingClient(kernelId: string): Promise<{ closeAndStall(): void; socket: Socket }> {
  const socket = connect(fx.port, '127.0.0.1');
  await once(socket, 'connect');
  socket.write(
    [
      `GET /api/kernels/${kernelId}/channels HTTP/1.1`,
      `Host: 127.0.0.1:${fx.port}`,
      'Upgrade: websocket',
      'Connection: Upgrade',
      `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}`,
      'Sec-WebSocket-Version: 13',
      `Authorization: token ${TOKEN}`,
      '',
      '',
    ].join('\r\n'),
  );
  let head = '';
  socket.on('data', (chunk: Buffer) => {
    head += chunk.toString('latin1');
  });
  await waitFor(async () => head.includes('\r\n\r\n'), { timeoutMs: 10_000 });
  expect(head.startsWith('HTTP/1.1 101')).toBe(true);
  return {
    socket,
    closeAndStall() {
      socket.removeAllListeners('data');
      socket.pause();
      // A masked close frame with status 1000.
      const mask = randomBytes(4);
      const payload = Buffer.from([0x03, 0xe8]).map((byte, i) => byte ^ (mask[i % 4] as number));
      socket.write(Buffer.concat([Buffer.from([0x88, 0x80 | payload.length]), mask, payload]));
    },
  };
}

describe('a kernel WebSocket whose client sent its close frame', () => {
  it('stops counting at once, though the client never closes TCP', async () => {
    const kernel = (await (await fx.fetch('api/kernels', { method: 'POST', json: { name: 'flood' } })).json()) as {
      id: string;
    };
    const client = await stallingClient(kernel.id);
    try {
      await waitFor(async () => (await connections(kernel.id)) === 1, { timeoutMs: 10_000 });
      client.closeAndStall();
      // `ws` alone kept the connection for its 30 s close timeout.
      await waitFor(async () => (await connections(kernel.id)) === 0, { timeoutMs: 5_000 });
    } finally {
      client.socket.destroy();
      await fx.fetch(`api/kernels/${kernel.id}`, { method: 'DELETE' });
    }
  });

  it('lets an idle kernel be culled under --no-cull-connected once its last client left', async () => {
    const kernels = fx.app.services.kernels;
    const kernel = (await (await fx.fetch('api/kernels', { method: 'POST', json: { name: 'flood' } })).json()) as {
      id: string;
    };
    // A kernel still starting is never culled: wait until it is idle.
    await waitFor(async () => kernels.get(kernel.id).executionState === 'idle', { timeoutMs: 60_000 });
    const client = await stallingClient(kernel.id);
    try {
      await waitFor(async () => (await connections(kernel.id)) === 1, { timeoutMs: 10_000 });
      await waitFor(async () => Date.now() - kernels.get(kernel.id).lastActivity.getTime() > IDLE_TIMEOUT_S * 1000, {
        timeoutMs: 5_000,
      });
      expect(await kernels.cullIdle()).toEqual([]);
      client.closeAndStall();
      await waitFor(async () => (await connections(kernel.id)) === 0, { timeoutMs: 5_000 });
      expect(await kernels.cullIdle()).toEqual([kernel.id]);
      expect((await fx.fetch(`api/kernels/${kernel.id}`)).status).toBe(404);
    } finally {
      client.socket.destroy();
    }
  });
});
