/**
 * nbserve as a gateway client of a second nbserve: the project's `@jupyterlab/services` kernel
 * cases pass through it, and each server counts its own connections.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { describeJupyterlabKernelCases, kernelPidByConnectionFile } from '../../../testing/kernel-cases.js';
import { type KernelServerFixture, startKernelServer, TOKEN } from './kernels-fixture.js';

let gateway: KernelServerFixture;
let fx: KernelServerFixture;

beforeAll(async () => {
  gateway = await startKernelServer();
  fx = await startKernelServer({ gatewayUrl: gateway.baseUrl, gatewayAuthToken: TOKEN });
}, 120_000);
afterAll(async () => {
  await fx?.cleanup();
  await gateway?.cleanup();
}, 60_000);

function remoteIdOf(id: string): string {
  return fx.server.app.services.kernels.get(id).process?.remote?.id as string;
}

describe('a second nbserve as the gateway', () => {
  it("lists the gateway's kernelspecs and serves their resources", async () => {
    const mine = await (await fx.api('GET', 'api/kernelspecs')).json();
    const theirs = await (await gateway.api('GET', 'api/kernelspecs')).json();
    expect(Object.keys(mine.kernelspecs).sort()).toEqual(Object.keys(theirs.kernelspecs).sort());
    expect(mine.default).toBe(theirs.default);
    const logo = await fx.api('GET', 'kernelspecs/python3/logo-svg.svg');
    expect(logo.status).toBe(200);
    expect(logo.headers.get('content-type')).toBe('image/svg+xml');
    expect(await logo.text()).toBe(await (await gateway.api('GET', 'kernelspecs/python3/logo-svg.svg')).text());
  });

  it('counts connections on each side: its own clients here, its one channel there', async () => {
    const { id } = await (await fx.api('POST', 'api/kernels', { name: 'javascript' })).json();
    const remoteId = remoteIdOf(id);
    const open = () =>
      new Promise<WebSocket>((resolve, reject) => {
        const ws = new WebSocket(
          `${fx.baseUrl.replace('http', 'ws')}api/kernels/${id}/channels?session_id=${Math.random()}`,
          {
            headers: { Authorization: `token ${TOKEN}` },
          },
        );
        ws.once('open', () => resolve(ws));
        ws.once('error', reject);
      });
    const sockets = [await open(), await open()];
    const model = async (server: KernelServerFixture, kernelId: string) =>
      (await (await server.api('GET', `api/kernels/${kernelId}`)).json()) as { connections: number };
    expect((await model(fx, id)).connections).toBe(2);
    expect((await model(gateway, remoteId)).connections).toBe(1);
    for (const ws of sockets) ws.close();
    const deadline = Date.now() + 10_000;
    while ((await model(fx, id)).connections !== 0 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    expect((await model(fx, id)).connections).toBe(0);
    expect((await model(gateway, remoteId)).connections).toBe(1);
    expect((await fx.api('DELETE', `api/kernels/${id}`)).status).toBe(204);
    expect((await gateway.api('GET', `api/kernels/${remoteId}`)).status).toBe(404);
  });

  it('drops a kernel the gateway shut down by itself', async () => {
    const { id } = await (await fx.api('POST', 'api/kernels', { name: 'javascript' })).json();
    expect((await gateway.api('DELETE', `api/kernels/${remoteIdOf(id)}`)).status).toBe(204);
    // The gateway closes the channel; the reconnect is answered 404: the kernel is gone.
    let status = 200;
    const deadline = Date.now() + 20_000;
    while (status !== 404 && Date.now() < deadline) {
      status = (await fx.api('GET', `api/kernels/${id}`)).status;
      if (status !== 404) await new Promise((r) => setTimeout(r, 100));
    }
    expect(status).toBe(404);
  });
});

describeJupyterlabKernelCases('nbserve as the gateway', () => ({
  settings: (options) => fx.settings(options),
  api: (method, path, body) => fx.api(method, path, body),
  killKernelProcess: async (id) => {
    process.kill(kernelPidByConnectionFile(remoteIdOf(id)), 'SIGKILL');
  },
  sessionNameInEnv: false,
}));
