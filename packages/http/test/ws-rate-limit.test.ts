// needs: kernel
import { protocol } from '@nbserve/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { startServer, type TestServer } from '../../../testing/server.js';
import { TOKEN } from '../../../testing/token.js';
import { waitUntil } from '../../../testing/wait.js';

let fx: TestServer;

beforeAll(async () => {
  fx = await startServer({ floodKernels: true, iopubMsgRateLimit: 200, rateLimitWindow: 1 });
});
afterAll(async () => {
  await fx.close();
});

describe('IOPub rate limit (when configured)', () => {
  it('pauses a flood with a stderr notice, then delivers the idle status and the reply', async () => {
    const { id } = (await (await fx.fetch('api/kernels', { method: 'POST', json: { name: 'flood' } })).json()) as {
      id: string;
    };
    const ws = new WebSocket(`${fx.url.replace('http', 'ws')}api/kernels/${id}/channels?session_id=rl&token=${TOKEN}`);
    const received: protocol.ChannelMessage[] = [];
    ws.on('message', (data: Buffer, isBinary) =>
      received.push(protocol.decodeJsonFrame(isBinary ? data : data.toString(), isBinary)),
    );
    await new Promise((r) => ws.once('open', r));
    const request = protocol.createMessage(
      'execute_request',
      {
        code: 'flood 3000',
        silent: false,
        store_history: false,
        user_expressions: {},
        allow_stdin: false,
        stop_on_error: true,
      },
      { session: 'rl' },
    );
    ws.send(protocol.encodeJsonFrame('shell', request));
    const mine = () =>
      received.filter((r) => (r.msg.parent_header as protocol.MessageHeader).msg_id === request.header.msg_id);
    await waitUntil(
      () =>
        mine().some((r) => r.channel === 'shell') &&
        mine().some((r) => r.msg.header.msg_type === 'status' && r.msg.content.execution_state === 'idle'),
      { intervalMs: 50 },
    );
    const streams = mine().filter((r) => r.msg.header.msg_type === 'stream');
    const notices = streams.filter((r) => r.msg.content.name === 'stderr');
    // One notice per time the limit is crossed (a slow machine may dip below 80% and cross again).
    expect(notices.length).toBeGreaterThanOrEqual(1);
    for (const n of notices) expect(String(n.msg.content.text)).toMatch(/^IOPub message rate exceeded\./);
    expect(streams.length).toBeLessThan(3000);
    expect(mine().find((r) => r.channel === 'shell')?.msg.content.status).toBe('ok');
    ws.close();
  });
});
