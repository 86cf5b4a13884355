// needs: kernel
/**
 * nbserve as a gateway client of a second nbserve: the project's `@jupyterlab/services` kernel
 * cases pass through it, and each server counts its own connections.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { describeJupyterlabKernelCases, kernelPidByConnectionFile } from '../../../testing/kernel-cases.js';
import { startServer, type TestServer } from '../../../testing/server.js';
import { TOKEN } from '../../../testing/token.js';
import { waitFor } from '../../../testing/wait.js';

let gateway: TestServer;
let fx: TestServer;

beforeAll(async () => {
  gateway = await startServer({ floodKernels: true });
  fx = await startServer({ floodKernels: true, gatewayUrl: gateway.url, gatewayAuthToken: TOKEN });
}, 120_000);
afterAll(async () => {
  await fx?.close();
  await gateway?.close();
}, 60_000);

function remoteIdOf(id: string): string {
  return fx.app.services.kernels.get(id).process?.remote?.id as string;
}

describe('a second nbserve as the gateway', () => {
  it("lists the gateway's kernelspecs and serves their resources", async () => {
    const mine = await (await fx.fetch('api/kernelspecs')).json();
    const theirs = await (await gateway.fetch('api/kernelspecs')).json();
    expect(Object.keys(mine.kernelspecs).sort()).toEqual(Object.keys(theirs.kernelspecs).sort());
    expect(mine.default).toBe(theirs.default);
    const logo = await fx.fetch('kernelspecs/python3/logo-svg.svg');
    expect(logo.status).toBe(200);
    expect(logo.headers.get('content-type')).toBe('image/svg+xml');
    expect(await logo.text()).toBe(await (await gateway.fetch('kernelspecs/python3/logo-svg.svg')).text());
  });

  it('counts connections on each side: its own clients here, its one channel there', async () => {
    const { id } = await (await fx.fetch('api/kernels', { method: 'POST', json: { name: 'javascript' } })).json();
    const remoteId = remoteIdOf(id);
    const open = () =>
      new Promise<WebSocket>((resolve, reject) => {
        const ws = new WebSocket(
          `${fx.url.replace('http', 'ws')}api/kernels/${id}/channels?session_id=${Math.random()}`,
          {
            headers: { Authorization: `token ${TOKEN}` },
          },
        );
        ws.once('open', () => resolve(ws));
        ws.once('error', reject);
      });
    const sockets = [await open(), await open()];
    const model = async (server: TestServer, kernelId: string) =>
      (await (await server.fetch(`api/kernels/${kernelId}`)).json()) as { connections: number };
    expect((await model(fx, id)).connections).toBe(2);
    expect((await model(gateway, remoteId)).connections).toBe(1);
    for (const ws of sockets) ws.close();
    await waitFor(async () => (await model(fx, id)).connections === 0, { timeoutMs: 10_000, intervalMs: 50 }).catch(
      () => {},
    );
    expect((await model(fx, id)).connections).toBe(0);
    expect((await model(gateway, remoteId)).connections).toBe(1);
    expect((await fx.fetch(`api/kernels/${id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await gateway.fetch(`api/kernels/${remoteId}`)).status).toBe(404);
  });

  it('drops a kernel the gateway shut down by itself', async () => {
    const { id } = await (await fx.fetch('api/kernels', { method: 'POST', json: { name: 'javascript' } })).json();
    expect((await gateway.fetch(`api/kernels/${remoteIdOf(id)}`, { method: 'DELETE' })).status).toBe(204);
    // The gateway closes the channel; the reconnect is answered 404: the kernel is gone.
    let status = 200;
    const gone = async () => {
      status = (await fx.fetch(`api/kernels/${id}`)).status;
      return status === 404;
    };
    await waitFor(gone, { timeoutMs: 20_000, intervalMs: 100 }).catch(() => {});
    expect(status).toBe(404);
  });
});

describeJupyterlabKernelCases('nbserve as the gateway', () => ({
  server: fx,
  killKernelProcess: async (id) => {
    process.kill(kernelPidByConnectionFile(remoteIdOf(id)), 'SIGKILL');
  },
  sessionNameInEnv: false,
}));
