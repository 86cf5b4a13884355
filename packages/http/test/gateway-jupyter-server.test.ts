/**
 * nbserve as a gateway client of Debian's jupyter_server: kernelspecs, kernels and channels come
 * from the gateway, and the project's `@jupyterlab/services` kernel cases pass through it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type JupyterServer, startJupyterServer } from '../../../testing/jupyter-server.js';
import { describeJupyterlabKernelCases, kernelPidByConnectionFile } from '../../../testing/kernel-cases.js';
import { type KernelServerFixture, startKernelServer } from './kernels-fixture.js';

let gateway: JupyterServer;
let fx: KernelServerFixture;

beforeAll(async () => {
  gateway = await startJupyterServer();
  fx = await startKernelServer({ gatewayUrl: gateway.url, gatewayAuthToken: gateway.token });
}, 120_000);
afterAll(async () => {
  await fx?.cleanup();
  await gateway?.close();
}, 60_000);

function gatewayGet(path: string): Promise<Response> {
  return fetch(`${gateway.url}${path}`, { headers: { Authorization: `token ${gateway.token}` } });
}

describe('kernelspecs from jupyter_server as the gateway', () => {
  it("lists the gateway's specs, not the local ones, with resources served through nbserve", async () => {
    const mine = await (await fx.api('GET', 'api/kernelspecs')).json();
    const theirs = await (await gatewayGet('api/kernelspecs')).json();
    expect(Object.keys(mine.kernelspecs)).toEqual(Object.keys(theirs.kernelspecs));
    expect(mine.kernelspecs.javascript).toBeUndefined();
    expect(mine.default).toBe(theirs.default);
    expect(mine.kernelspecs.python3.spec).toEqual(theirs.kernelspecs.python3.spec);
    expect(mine.kernelspecs.python3.resources['logo-64x64']).toBe('/kernelspecs/python3/logo-64x64.png');

    const logo = await fx.api('GET', 'kernelspecs/python3/logo-64x64.png');
    expect(logo.status).toBe(200);
    expect(logo.headers.get('content-type')).toBe('image/png');
    const original = await (await gatewayGet('kernelspecs/python3/logo-64x64.png')).arrayBuffer();
    expect(Buffer.from(await logo.arrayBuffer()).equals(Buffer.from(original))).toBe(true);

    expect((await fx.api('GET', 'api/kernelspecs/python3')).status).toBe(200);
    expect((await fx.api('GET', 'api/kernelspecs/nosuch')).status).toBe(404);
    expect((await fx.api('GET', 'kernelspecs/python3/nosuch.png')).status).toBe(404);
  });

  it('starts kernels on the gateway and shuts them down there', async () => {
    const started = await fx.api('POST', 'api/kernels', { name: 'python3' });
    expect(started.status).toBe(201);
    const { id } = await started.json();
    const remoteId = fx.server.app.services.kernels.get(id).process?.remote?.id as string;
    const onGateway = await (await gatewayGet('api/kernels')).json();
    expect(onGateway.map((k: { id: string }) => k.id)).toContain(remoteId);
    expect((await fx.api('DELETE', `api/kernels/${id}`)).status).toBe(204);
    expect((await gatewayGet(`api/kernels/${remoteId}`)).status).toBe(404);
  });
});

describeJupyterlabKernelCases('jupyter_server as the gateway', () => ({
  settings: (options) => fx.settings(options),
  api: (method, path, body) => fx.api(method, path, body),
  killKernelProcess: async (id) => {
    const remoteId = fx.server.app.services.kernels.get(id).process?.remote?.id as string;
    process.kill(kernelPidByConnectionFile(remoteId), 'SIGKILL');
  },
  sessionNameInEnv: false,
}));
