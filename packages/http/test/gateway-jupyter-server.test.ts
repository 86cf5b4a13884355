// needs: kernel, jupyter_server
/**
 * nbserve as a gateway client of Debian's jupyter_server: kernelspecs, kernels and channels come
 * from the gateway, and the project's `@jupyterlab/services` kernel cases pass through it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type JupyterServer, startJupyterServer } from '../../../testing/jupyter-server.js';
import { describeJupyterlabKernelCases, kernelPidByConnectionFile } from '../../../testing/kernel-cases.js';
import { startServer, type TestServer } from '../../../testing/server.js';

let gateway: JupyterServer;
let fx: TestServer;

beforeAll(async () => {
  gateway = await startJupyterServer();
  // jupyter_server 1.23 answers a start only once its kernel is ready: slow on a loaded machine.
  fx = await startServer({
    floodKernels: true,
    gatewayUrl: gateway.url,
    gatewayAuthToken: gateway.token,
    gatewayRequestTimeout: 150,
  });
}, 120_000);
afterAll(async () => {
  await fx?.close();
  await gateway?.close();
}, 60_000);

function gatewayGet(path: string): Promise<Response> {
  return fetch(`${gateway.url}${path}`, { headers: { Authorization: `token ${gateway.token}` } });
}

describe('kernelspecs from jupyter_server as the gateway', () => {
  it("lists the gateway's specs, not the local ones, with resources served through nbserve", async () => {
    const mine = await (await fx.fetch('api/kernelspecs')).json();
    const theirs = await (await gatewayGet('api/kernelspecs')).json();
    expect(Object.keys(mine.kernelspecs)).toEqual(Object.keys(theirs.kernelspecs));
    expect(mine.kernelspecs.javascript).toBeUndefined();
    expect(mine.default).toBe(theirs.default);
    expect(mine.kernelspecs.python3.spec).toEqual(theirs.kernelspecs.python3.spec);
    expect(mine.kernelspecs.python3.resources['logo-64x64']).toBe('/kernelspecs/python3/logo-64x64.png');

    const logo = await fx.fetch('kernelspecs/python3/logo-64x64.png');
    expect(logo.status).toBe(200);
    expect(logo.headers.get('content-type')).toBe('image/png');
    const original = await (await gatewayGet('kernelspecs/python3/logo-64x64.png')).arrayBuffer();
    expect(Buffer.from(await logo.arrayBuffer()).equals(Buffer.from(original))).toBe(true);

    expect((await fx.fetch('api/kernelspecs/python3')).status).toBe(200);
    expect((await fx.fetch('api/kernelspecs/nosuch')).status).toBe(404);
    expect((await fx.fetch('kernelspecs/python3/nosuch.png')).status).toBe(404);
  });

  it('starts kernels on the gateway and shuts them down there', async () => {
    const started = await fx.fetch('api/kernels', { method: 'POST', json: { name: 'python3' } });
    expect(started.status).toBe(201);
    const { id } = await started.json();
    const remoteId = fx.app.services.kernels.get(id).process?.remote?.id as string;
    const onGateway = await (await gatewayGet('api/kernels')).json();
    expect(onGateway.map((k: { id: string }) => k.id)).toContain(remoteId);
    // the gateway's id is nbserve's, as in jupyter_server's GatewayKernelManager
    expect(id).toBe(remoteId);
    expect((await fx.fetch(`api/kernels/${id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await gatewayGet(`api/kernels/${remoteId}`)).status).toBe(404);
  });
});

describeJupyterlabKernelCases('jupyter_server as the gateway', () => ({
  server: fx,
  killKernelProcess: async (id) => {
    const remoteId = fx.app.services.kernels.get(id).process?.remote?.id as string;
    process.kill(kernelPidByConnectionFile(remoteId), 'SIGKILL');
  },
  sessionNameInEnv: false,
}));
