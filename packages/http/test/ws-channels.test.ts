// needs: kernel
import { readdirSync } from 'node:fs';
import { protocol } from '@nbserve/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { requestOverSocket } from '../../../testing/http-client.js';
import { startServer, type TestServer } from '../../../testing/server.js';
import { TOKEN } from '../../../testing/token.js';
import { waitFor } from '../../../testing/wait.js';

let fx: TestServer;
let kernelId: string;

beforeAll(async () => {
  fx = await startServer({ floodKernels: true, kernelBufferMaxAge: 60 });
  const res = await fx.fetch('api/kernels', { method: 'POST', json: { name: 'flood' } });
  kernelId = ((await res.json()) as { id: string }).id;
});
afterAll(async () => {
  await fx.close();
});

type Received = { channel: string; msg: protocol.JupyterMessage };

/** A raw WebSocket client of the channels endpoint that decodes both framings. */
class Client {
  readonly received: Received[] = [];
  /** The JSON framing's text frames as they came. */
  readonly texts: string[] = [];
  readonly ws: WebSocket;
  readonly opened: Promise<void>;
  readonly session: string;
  constructor(
    id: string,
    options: { session?: string; v1?: boolean; headers?: Record<string, string>; token?: boolean } = {},
  ) {
    this.session = options.session ?? protocol.newMsgId();
    const url = `${fx.url.replace('http', 'ws')}api/kernels/${id}/channels?session_id=${this.session}${options.token === false ? '' : `&token=${TOKEN}`}`;
    this.ws = new WebSocket(url, options.v1 ? [protocol.V1_SUBPROTOCOL] : [], { headers: options.headers ?? {} });
    this.ws.on('message', (data: Buffer, isBinary) => {
      if (this.ws.protocol === protocol.V1_SUBPROTOCOL) {
        const { channel, raw } = protocol.decodeV1Frame(data);
        this.received.push({ channel, msg: protocol.fromRaw(raw) });
      } else {
        if (!isBinary) this.texts.push(data.toString('utf8'));
        const decoded = protocol.decodeJsonFrame(isBinary ? data : data.toString('utf8'), isBinary);
        this.received.push(decoded);
      }
    });
    this.opened = new Promise((resolve, reject) => {
      this.ws.once('open', () => resolve());
      this.ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
      this.ws.once('error', reject);
    });
  }

  send(channel: protocol.Channel, msgType: string, content: Record<string, unknown>): protocol.JupyterMessage {
    const msg = protocol.createMessage(msgType, content, { session: this.session });
    if (this.ws.protocol === protocol.V1_SUBPROTOCOL)
      this.ws.send(protocol.encodeV1Frame(channel, protocol.toRaw(msg)));
    else this.ws.send(protocol.encodeJsonFrame(channel, msg));
    return msg;
  }

  execute(code: string): protocol.JupyterMessage {
    return this.send('shell', 'execute_request', {
      code,
      silent: false,
      store_history: true,
      user_expressions: {},
      allow_stdin: false,
      stop_on_error: true,
    });
  }

  of(parentId: string): Received[] {
    return this.received.filter((r) => (r.msg.parent_header as protocol.MessageHeader).msg_id === parentId);
  }

  async until(predicate: () => boolean, ms = 20_000): Promise<void> {
    await waitFor(predicate, { timeoutMs: ms, intervalMs: 20 });
  }

  async finished(parentId: string, ms?: number): Promise<Received[]> {
    await this.until(() => {
      const mine = this.of(parentId);
      return (
        mine.some((r) => r.channel === 'shell') &&
        mine.some((r) => r.msg.header.msg_type === 'status' && r.msg.content.execution_state === 'idle')
      );
    }, ms);
    return this.of(parentId);
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      if (this.ws.readyState === WebSocket.CLOSED) return resolve();
      this.ws.once('close', () => resolve());
      this.ws.close();
    });
  }
}

describe('channels WebSocket', () => {
  it('sends a kernel_info_reply on connect and counts connections', async () => {
    const c = new Client(kernelId, { v1: true });
    await c.opened;
    await c.until(() => c.received.some((r) => r.msg.header.msg_type === 'kernel_info_reply'));
    const model = (await (await fx.fetch(`api/kernels/${kernelId}`)).json()) as { connections: number };
    expect(model.connections).toBe(1);
    const status = (await (await fx.fetch('api/status')).json()) as { connections: number; kernels: number };
    expect(status).toMatchObject({ connections: 1, kernels: 1 });
    await c.close();
    await c.until(() => fx.app.services.kernels.get(kernelId).connections === 0);
  });

  it('fans iopub out to every client and routes replies to the asking client only', async () => {
    const a = new Client(kernelId, { v1: true });
    const b = new Client(kernelId);
    await Promise.all([a.opened, b.opened]);
    const request = a.execute('flood 50');
    const mine = await a.finished(request.header.msg_id);
    expect(mine.filter((r) => r.msg.header.msg_type === 'stream')).toHaveLength(50);
    expect(mine.find((r) => r.channel === 'shell')?.msg.header.msg_type).toBe('execute_reply');
    await b.until(() => b.of(request.header.msg_id).filter((r) => r.msg.header.msg_type === 'stream').length === 50);
    // b's own reply comes after anything the server would have sent b for a's earlier request
    const own = b.execute('flood 1');
    await b.finished(own.header.msg_id);
    expect(b.of(request.header.msg_id).some((r) => r.channel === 'shell')).toBe(false);
    await Promise.all([a.close(), b.close()]);
  });

  it('delivers every message of a flood to several clients of both framings', async () => {
    const clients = [new Client(kernelId, { v1: true }), new Client(kernelId), new Client(kernelId, { v1: true })];
    await Promise.all(clients.map((c) => c.opened));
    const [sender] = clients as [Client, ...Client[]];
    for (const code of ['flood 20000 40', 'display 5000']) {
      const request = sender.execute(code);
      const expected = code.startsWith('flood') ? 20000 : 5000;
      const type = code.startsWith('flood') ? 'stream' : 'display_data';
      for (const c of clients) {
        await c.until(
          () => c.of(request.header.msg_id).filter((r) => r.msg.header.msg_type === type).length === expected,
          60_000,
        );
      }
      await sender.finished(request.header.msg_id);
    }
    await Promise.all(clients.map((c) => c.close()));
  });

  it('replays what a session missed while disconnected, in order', async () => {
    const session = protocol.newMsgId();
    const first = new Client(kernelId, { session });
    await first.opened;
    const other = new Client(kernelId);
    await other.opened;
    await first.close();
    await first.until(() => fx.app.services.kernels.get(kernelId).connections === 1);
    const request = other.execute('flood 20');
    await other.finished(request.header.msg_id);
    const again = new Client(kernelId, { session, v1: true });
    await again.opened;
    await again.until(
      () => again.of(request.header.msg_id).filter((r) => r.msg.header.msg_type === 'stream').length === 20,
    );
    const texts = again
      .of(request.header.msg_id)
      .filter((r) => r.msg.header.msg_type === 'stream')
      .map((r) => r.msg.content.text);
    expect(texts).toEqual(Array.from({ length: 20 }, (_, i) => `${i}\n`));
    await Promise.all([again.close(), other.close()]);
  });

  it('keeps at most 16 disconnected sessions per kernel for replay', async () => {
    for (let i = 0; i < 20; i++) {
      const c = new Client(kernelId, { session: `churn-${i}` });
      await c.opened;
      await c.close();
    }
    const hub = fx.app.services.channels;
    await waitFor(() => hub.detachedSessions(kernelId) >= 16, { what: 'the closed sessions detached' });
    expect(hub.detachedSessions(kernelId)).toBe(16);
    // The newest ones are those kept: reconnecting the last one still replays.
    const last = new Client(kernelId, { session: 'churn-19' });
    await last.opened;
    expect(hub.detachedSessions(kernelId)).toBe(15);
    await last.close();
  });

  it('a newer socket with the same session_id replaces the older one', async () => {
    const session = protocol.newMsgId();
    const older = new Client(kernelId, { session });
    await older.opened;
    const closed = new Promise<number>((resolve) => older.ws.once('close', (code) => resolve(code)));
    const newer = new Client(kernelId, { session });
    await newer.opened;
    expect(await closed).toBe(1000);
    expect(fx.app.services.kernels.get(kernelId).connections).toBe(1);
    await newer.close();
  });

  it('drops bad frames, bad channels and iopub sends, counts them, and keeps serving', async () => {
    const json = new Client(kernelId);
    const v1 = new Client(kernelId, { v1: true });
    await Promise.all([json.opened, v1.opened]);
    const before = fx.app.services.channels.badFrames(kernelId);
    json.ws.send('{not json');
    json.ws.send(JSON.stringify({ channel: 'nope', header: { msg_id: 'x', msg_type: 'execute_request' } }));
    json.ws.send(JSON.stringify({ channel: 'shell', header: { msg_id: 'x' } }));
    json.ws.send(Buffer.from([0, 0, 0, 9, 1, 2, 3, 4]), { binary: true });
    json.send('iopub', 'stream', { name: 'stdout', text: 'spoof' });
    v1.ws.send('text is not v1');
    v1.ws.send(Buffer.alloc(12));
    const wrongChannel = protocol.encodeV1Frame(
      'shell',
      protocol.toRaw(protocol.createMessage('x', {}, { session: 's' })),
    );
    wrongChannel.write('hbeat', 56);
    v1.ws.send(wrongChannel);
    const notJson = Buffer.from(
      protocol.encodeV1Frame('shell', {
        header: Buffer.from('{"msg_type":'),
        parentHeader: Buffer.from('{}'),
        metadata: Buffer.from('{}'),
        content: Buffer.from('{}'),
        buffers: [],
      }),
    );
    v1.ws.send(notJson);
    await json.until(() => fx.app.services.channels.badFrames(kernelId) - before === 9);
    expect(fx.logger.lines.some((w) => w.includes('dropped a WebSocket frame'))).toBe(true);
    // Both sockets are still open and working.
    const r1 = json.execute('ok-json');
    const r2 = v1.execute('ok-v1');
    expect((await json.finished(r1.header.msg_id)).some((r) => r.msg.header.msg_type === 'execute_result')).toBe(true);
    expect((await v1.finished(r2.header.msg_id)).some((r) => r.msg.header.msg_type === 'execute_result')).toBe(true);
    expect(json.received.some((r) => r.msg.content.text === 'spoof')).toBe(false);
    await Promise.all([json.close(), v1.close()]);
  });

  it('refuses invalid UTF-8: a text frame closes the socket (1007), binary JSON parts are dropped', async () => {
    const text = new Client(kernelId);
    await text.opened;
    const closed = new Promise<number>((resolve) => text.ws.once('close', (code) => resolve(code)));
    text.ws.send(Buffer.from('{"channel":"shell","header":{"msg_id":"\xff"}}', 'latin1'), { binary: false });
    expect(await closed).toBe(1007);

    const json = new Client(kernelId);
    const v1 = new Client(kernelId, { v1: true });
    await Promise.all([json.opened, v1.opened]);
    const before = fx.app.services.channels.badFrames(kernelId);
    // The JSON framing with a buffer: [count, offsets..., JSON, buffer]; the JSON holds a raw 0xFF.
    const msg = protocol.createMessage('execute_request', { code: 'BAD', silent: false }, { session: json.session });
    const body = Buffer.from(JSON.stringify({ channel: 'shell', ...msg, buffers: undefined }));
    body[body.indexOf('BAD')] = 0xff;
    const head = Buffer.alloc(12);
    head.writeUInt32BE(2, 0);
    head.writeUInt32BE(12, 4);
    head.writeUInt32BE(12 + body.length, 8);
    json.ws.send(Buffer.concat([head, body, Buffer.from([1, 2, 3])]), { binary: true });
    const raw = protocol.toRaw(protocol.createMessage('execute_request', { code: 'BAD' }, { session: v1.session }));
    const content = Buffer.from(raw.content);
    content[content.indexOf('BAD')] = 0xff;
    v1.ws.send(protocol.encodeV1Frame('shell', { ...raw, content }));
    await json.until(() => fx.app.services.channels.badFrames(kernelId) - before === 2);
    const ok = json.execute('still-ok');
    expect((await json.finished(ok.header.msg_id)).some((r) => r.msg.header.msg_type === 'execute_result')).toBe(true);
    await Promise.all([json.close(), v1.close()]);
  });

  it('drops and counts kernel messages whose signature does not verify', async () => {
    const c = new Client(kernelId, { v1: true });
    await c.opened;
    const kernel = fx.app.services.kernels.get(kernelId);
    const before = kernel.badSignatures;
    const request = c.execute('badsig');
    const mine = await c.finished(request.header.msg_id);
    const texts = mine.filter((r) => r.msg.header.msg_type === 'stream').map((r) => r.msg.content.text);
    expect(texts).toEqual(['genuine\n']);
    expect(kernel.badSignatures).toBe(before + 1);
    await c.close();
  });

  it('refuses upgrades: unknown kernel 404, no token 403, foreign Origin 403, malformed id 404', async () => {
    await expect(new Client('00000000-0000-0000-0000-000000000000').opened).rejects.toThrow('HTTP 404');
    await expect(new Client('not-a-kernel').opened).rejects.toThrow('HTTP 404');
    await expect(new Client(kernelId, { token: false }).opened).rejects.toThrow('HTTP 403');
    await expect(new Client(kernelId, { headers: { Origin: 'http://evil.example' } }).opened).rejects.toThrow(
      'HTTP 403',
    );
    const plain = await fx.fetch(`api/kernels/${kernelId}/channels`);
    expect(plain.status).toBe(400);
    expect(await plain.json()).toMatchObject({ message: expect.stringContaining('Upgrade'), reason: null });
  });

  it('a plain request that only carries `Upgrade: websocket` (no upgrade handshake) is a 400, not a 500', async () => {
    // Found by the API fuzzer: the header alone reached node-server's upgrade helper, which can
    // only answer 500 outside a real upgrade. The same holds for the older per-channel sockets.
    for (const path of [
      `api/kernels/${kernelId}/channels`,
      `api/kernels/${kernelId}/shell`,
      `kernels/${kernelId}/iopub`,
    ]) {
      const port = Number(new URL(fx.url).port);
      const res = await requestOverSocket(port, `/${path}`, {
        headers: { Upgrade: 'websocket', Authorization: `token ${TOKEN}` },
      });
      expect(res.status, path).toBe(400);
      expect(await res.json(), path).toMatchObject({ message: expect.stringContaining('Upgrade'), reason: null });
    }
  });

  it('tells clients restarting then works again when the kernel process is killed from outside', async () => {
    const c = new Client(kernelId, { v1: true });
    await c.opened;
    const kernel = fx.app.services.kernels.get(kernelId);
    const pid = kernel.process?.pid as number;
    process.kill(pid, 'SIGKILL');
    await c.until(() =>
      c.received.some((r) => r.msg.header.msg_type === 'status' && r.msg.content.execution_state === 'restarting'),
    );
    await c.until(() => kernel.executionState === 'idle' && kernel.process?.pid !== pid);
    const request = c.execute('after-restart');
    const mine = await c.finished(request.header.msg_id);
    expect(mine.find((r) => r.msg.header.msg_type === 'execute_result')?.msg.content.data).toEqual({
      'text/plain': 'after-restart',
    });
    // No leftovers of the old process in the runtime dir.
    expect(readdirSync(fx.runtimeDir).filter((f) => f.startsWith('kernel-'))).toEqual([`kernel-${kernelId}.json`]);
    await c.close();
  });
});

describe('channels WebSocket with the python3 kernel (ipykernel)', () => {
  it("JSON frames carry the header's msg_id and msg_type at the top level, as jupyter_server's do", async () => {
    const res = await fx.fetch('api/kernels', { method: 'POST', json: { name: 'python3' } });
    const { id } = (await res.json()) as { id: string };
    const c = new Client(id);
    await c.opened;
    const request = c.execute('print(6*7)');
    const mine = await c.finished(request.header.msg_id);
    expect(mine.find((r) => r.msg.header.msg_type === 'stream')?.msg.content.text).toBe('42\n');
    const frames = c.texts.map((t) => JSON.parse(t) as { msg_id: unknown; msg_type: unknown; header: object });
    expect(frames.length).toBeGreaterThanOrEqual(mine.length);
    for (const frame of frames)
      expect(frame).toMatchObject({ msg_id: expect.any(String), msg_type: expect.any(String) });
    for (const frame of frames) expect(frame.header).toMatchObject({ msg_id: frame.msg_id, msg_type: frame.msg_type });
    expect(frames.map((f) => f.msg_type)).toEqual(
      expect.arrayContaining(['status', 'execute_input', 'stream', 'execute_reply']),
    );
    await c.close();
    expect((await fx.fetch(`api/kernels/${id}`, { method: 'DELETE' })).status).toBe(204);
  });
});

describe('channels WebSocket of a kernel still starting', () => {
  for (const name of ['slow', 'python3']) {
    it(`a client connecting at once (${name}) gets its kernel_info_reply and loses nothing it sends`, async () => {
      const res = await fx.fetch('api/kernels', { method: 'POST', json: { name } });
      const model = (await res.json()) as { id: string; execution_state: string };
      expect(model.execution_state).toBe('starting');
      const c = new Client(model.id);
      await c.opened;
      const startingWhenSent = fx.app.services.kernels.get(model.id).executionState === 'starting';
      const code = name === 'python3' ? 'print(6*7)' : 'sent-while-starting';
      const request = c.execute(code);
      // `slow` reads no request for 3 s: the execute_request surely waited for the kernel.
      if (name === 'slow') expect(startingWhenSent).toBe(true);
      const mine = await c.finished(request.header.msg_id, 60_000);
      expect(c.received.some((r) => r.channel === 'shell' && r.msg.header.msg_type === 'kernel_info_reply')).toBe(true);
      if (name === 'python3')
        expect(mine.find((r) => r.msg.header.msg_type === 'stream')?.msg.content.text).toBe('42\n');
      else
        expect(mine.find((r) => r.msg.header.msg_type === 'execute_result')?.msg.content.data).toEqual({
          'text/plain': code,
        });
      await c.close();
      expect((await fx.fetch(`api/kernels/${model.id}`, { method: 'DELETE' })).status).toBe(204);
    });
  }
});
