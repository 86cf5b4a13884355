// needs: kernel
/**
 * Enterprise Gateway's ways, against the stub in testing/gateway-stub.ts (EG itself cannot be
 * installed here): environment forwarding and `?user=`, slow and refused starts, the JSON-only
 * framing behind v1 clients, REST interrupt/restart, culling on the gateway, reconnects and replay.
 */
import path from 'node:path';
import { KernelManager, type KernelMessage } from '@jupyterlab/services';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { type GatewayStub, STUB_LOGO, startGatewayStub } from '../../../testing/gateway-stub.js';
import { execute } from '../../../testing/kernel-cases.js';
import { startServer, type TestServer } from '../../../testing/server.js';
import { TOKEN } from '../../../testing/token.js';
import { waitFor } from '../../../testing/wait.js';

let stub: GatewayStub;
let fx: TestServer;
const savedEnv = { ...process.env };

beforeAll(async () => {
  stub = await startGatewayStub();
  // What a spawner puts in the server's environment: every KERNEL_* is forwarded, others only when named.
  Object.assign(process.env, {
    KERNEL_USERNAME: 'alice',
    KERNEL_NAMESPACE: 'team-a',
    EXTRA_VAR: 'yes',
    SECRET_VAR: 'no',
  });
  fx = await startServer({
    floodKernels: true,
    gatewayUrl: stub.url,
    gatewayAuthToken: stub.token,
    gatewayHeaders: { 'X-Team': 'a, b' },
    gatewayEnv: ['EXTRA_VAR'],
    cullIdleTimeout: 1,
    cullInterval: 1,
  });
}, 60_000);
afterAll(async () => {
  process.env = savedEnv;
  await fx?.close();
  await stub?.close();
});

async function startKernel(body: object = { name: 'python3' }): Promise<string> {
  const response = await fx.fetch('api/kernels', { method: 'POST', json: body });
  expect(response.status).toBe(201);
  return ((await response.json()) as { id: string }).id;
}

function remoteIdOf(id: string): string {
  return fx.app.services.kernels.get(id).process?.remote?.id as string;
}

async function eventually(check: () => Promise<boolean>, ms = 15_000): Promise<void> {
  await waitFor(check, { timeoutMs: ms, intervalMs: 100 });
}

function openChannel(
  id: string,
  sessionId: string,
): Promise<{ ws: WebSocket; messages: Array<Record<string, unknown>> }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${fx.url.replace('http', 'ws')}api/kernels/${id}/channels?session_id=${sessionId}`, {
      headers: { Authorization: `token ${TOKEN}` },
    });
    const messages: Array<Record<string, unknown>> = [];
    ws.on('message', (data) => messages.push(JSON.parse(String(data))));
    ws.once('open', () => resolve({ ws, messages }));
    ws.once('error', reject);
  });
}

describe('a stub Enterprise Gateway', () => {
  it('lists its kernelspecs for the user, and serves their resources', async () => {
    const listing = await (await fx.fetch('api/kernelspecs')).json();
    expect(listing.default).toBe('python3');
    expect(Object.keys(listing.kernelspecs)).toEqual(['python3']);
    expect(listing.kernelspecs.python3.spec.display_name).toBe('Python on Kubernetes');
    expect(listing.kernelspecs.python3.spec.metadata.process_proxy.class_name).toContain('KubernetesProcessProxy');
    expect(listing.kernelspecs.python3.resources).toEqual({ 'logo-64x64': '/kernelspecs/python3/logo-64x64.png' });
    expect(stub.requests.some((r) => r.url === '/api/kernelspecs?user=alice')).toBe(true);
    const logo = await fx.fetch('kernelspecs/python3/logo-64x64.png');
    expect(Buffer.from(await logo.arrayBuffer()).equals(STUB_LOGO)).toBe(true);
  });

  it('forwards KERNEL_* and named variables at start, plus the username, working dir and launch timeout', async () => {
    await fetchOk('api/contents/work', { type: 'directory' });
    const id = await startKernel({ name: 'python3', path: 'work/a.ipynb' });
    const env = stub.kernels.get(remoteIdOf(id))?.env;
    expect(env).toEqual({
      KERNEL_USERNAME: 'alice',
      KERNEL_NAMESPACE: 'team-a',
      EXTRA_VAR: 'yes',
      KERNEL_WORKING_DIR: path.join(fx.root, 'work'),
      KERNEL_LAUNCH_TIMEOUT: '40',
    });
    const start = stub.requests.find((r) => r.method === 'POST' && r.url === '/api/kernels');
    expect(start?.body).toMatchObject({ name: 'python3' });
    // The token and the extra header went with every request and every channels handshake.
    expect(stub.requests.every((r) => r.headers.authorization === `token ${stub.token}`)).toBe(true);
    expect(stub.requests.every((r) => r.headers['x-team'] === 'a, b')).toBe(true);
    expect(stub.requests.some((r) => r.method === 'UPGRADE')).toBe(true);
    expect((await fx.fetch(`api/kernels/${id}`, { method: 'DELETE' })).status).toBe(204);
    expect(stub.kernels.size).toBe(0);
  });

  it('speaks JSON to the gateway while v1 and JSON clients talk to nbserve', async () => {
    for (const jsonOnly of [false, true]) {
      const manager = new KernelManager({ serverSettings: fx.jupyterSettings({ jsonOnly }) });
      const kernel = await manager.startNew({ name: 'python3' });
      await kernel.info;
      expect((kernel as unknown as { _selectedProtocol: string })._selectedProtocol).toBe(
        jsonOnly ? '' : 'v1.kernel.websocket.jupyter.org',
      );
      const run = await execute(kernel, 'x = 1');
      expect(run.reply.content.status).toBe('ok');
      expect(run.of('stream')[0]?.content).toEqual({ name: 'stdout', text: 'ran x = 1\n' });
      const asked = await execute(kernel, 'input()', (msg) => {
        kernel.sendInputReply({ status: 'ok', value: 'bob' }, msg.header as KernelMessage.IInputRequestMsg['header']);
      });
      expect(asked.of('stream')[0]?.content).toEqual({ name: 'stdout', text: 'got bob\n' });
      await kernel.shutdown();
      manager.dispose();
    }
    expect(stub.frames.length).toBeGreaterThan(0);
    expect(stub.frames.every((f) => !f.binary && typeof f.message.channel === 'string')).toBe(true);
    expect(stub.frames.some((f) => f.message.channel === 'stdin')).toBe(true);
    // One v1 offer was refused, once: the gateway is remembered as JSON-only.
    expect(stub.requests.filter((r) => r.method === 'UPGRADE' && r.headers['sec-websocket-protocol']).length).toBe(1);
  });

  it('interrupts and restarts through the REST API, and leaves culling to the gateway', async () => {
    const id = await startKernel();
    const remoteId = remoteIdOf(id);
    expect((await fx.fetch(`api/kernels/${id}/interrupt`, { method: 'POST' })).status).toBe(204);
    const restarted = await fx.fetch(`api/kernels/${id}/restart`, { method: 'POST' });
    expect(restarted.status).toBe(200);
    expect((await restarted.json()).id).toBe(id);
    const actions = stub.requests.filter((r) => r.method === 'POST').map((r) => r.url);
    expect(actions).toEqual(
      expect.arrayContaining([`/api/kernels/${remoteId}/interrupt`, `/api/kernels/${remoteId}/restart`]),
    );
    // --cull-idle-timeout 1 would have culled a local kernel by now.
    await new Promise((r) => setTimeout(r, 2500));
    expect((await fx.fetch(`api/kernels/${id}`)).status).toBe(200);
    // The gateway culls it: nbserve drops it (and its session) once the gateway says it is gone.
    stub.cull(remoteId);
    await eventually(async () => (await fx.fetch(`api/kernels/${id}`)).status === 404);
  });

  it('reconnects to the gateway under the same session, and replays to a client what it missed', async () => {
    const id = await startKernel();
    const remoteId = remoteIdOf(id);
    const first = await openChannel(id, 'client-1');
    expect((await (await fx.fetch(`api/kernels/${id}`)).json()).connections).toBe(1);
    stub.dropChannels(remoteId);
    await eventually(async () => (stub.kernels.get(remoteId)?.sessions.length ?? 0) === 2);
    const sessions = stub.kernels.get(remoteId)?.sessions ?? [];
    expect(sessions[1]).toBe(sessions[0]);
    expect(stub.kernels.get(remoteId)?.sockets.size).toBe(1);
    // Messages flow again after the reconnect.
    const probe = await openChannel(id, 'probe');
    await eventually(async () =>
      probe.messages.some((m) => (m.header as { msg_type?: string }).msg_type === 'kernel_info_reply'),
    );
    probe.ws.close();

    first.ws.close();
    await eventually(async () => (await (await fx.fetch(`api/kernels/${id}`)).json()).connections === 0);
    stub.emit(remoteId, 'iopub', 'stream', { name: 'stdout', text: 'while you were away\n' });
    await new Promise((r) => setTimeout(r, 300));
    const second = await openChannel(id, 'client-1');
    await eventually(async () =>
      second.messages.some((m) => (m.content as { text?: string }).text === 'while you were away\n'),
    );
    expect((await (await fx.fetch(`api/kernels/${id}`)).json()).connections).toBe(1);
    second.ws.close();
    await fx.fetch(`api/kernels/${id}`, { method: 'DELETE' });
  });

  it('waits for a slow start while contents are served, and passes a refusal on', async () => {
    stub.startDelayMs = 3000;
    const began = Date.now();
    const starting = fx.fetch('api/kernels', { method: 'POST', json: { name: 'python3' } });
    const contents = await fx.fetch('api/contents');
    expect(contents.status).toBe(200);
    expect(Date.now() - began).toBeLessThan(2500);
    const started = await starting;
    expect(started.status).toBe(201);
    expect(Date.now() - began).toBeGreaterThanOrEqual(3000);
    stub.startDelayMs = 0;
    await fx.fetch(`api/kernels/${(await started.json()).id}`, { method: 'DELETE' });

    stub.authorizedUsers = ['bob'];
    const refused = await fx.fetch('api/kernels', { method: 'POST', json: { name: 'python3' } });
    stub.authorizedUsers = [];
    expect(refused.status).toBe(403);
    expect((await refused.json()).message).toContain("User 'alice' is not authorized");
  });
});

async function fetchOk(apiPath: string, body: object): Promise<void> {
  const response = await fx.fetch(apiPath, { method: 'PUT', json: body });
  expect(response.ok).toBe(true);
}

describe('a gateway that is slow to start kernels', () => {
  it('fails the start with 503 naming the gateway once the launch timeout is over', async () => {
    const slow = await startGatewayStub();
    slow.startDelayMs = 10_000;
    const server = await startServer({
      floodKernels: true,
      gatewayUrl: slow.url,
      gatewayAuthToken: slow.token,
      gatewayRequestTimeout: 2,
    });
    try {
      const began = Date.now();
      const response = await server.fetch('api/kernels', { method: 'POST', json: { name: 'python3' } });
      expect(response.status).toBe(503);
      expect((await response.json()).message).toBe(`Gateway ${slow.url} did not answer within 3 s`);
      expect(Date.now() - began).toBeLessThan(6000);
      const start = slow.requests.find((r) => r.method === 'POST');
      expect(start?.body).toMatchObject({ env: { KERNEL_LAUNCH_TIMEOUT: '1' } });
    } finally {
      await server.close();
      await slow.close();
    }
  });
});
