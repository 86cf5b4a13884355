// needs: kernel
/**
 * The gateway client in core, without HTTP on nbserve's side: the environment of a start, the
 * timeouts and URLs derived from the options, and a KernelManager running kernels on the stub
 * gateway of testing/gateway-stub.ts over its channels WebSocket.
 */
import { rm } from 'node:fs/promises';
import os from 'node:os';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type GatewayStub, startGatewayStub } from '../../../testing/gateway-stub.js';
import { runOnClient } from '../../../testing/kernels.js';
import { makeTempDir } from '../../../testing/temp.js';
import {
  GatewayClient,
  GatewayKernelSpecs,
  GatewayProvisioner,
  KernelManager,
  kernelStartEnv,
  NbserveError,
} from '../src/index.js';

describe('kernelStartEnv', () => {
  it('forwards KERNEL_* and allowed names of the server and the start, then fills in what is missing', () => {
    const env = kernelStartEnv({
      processEnv: { KERNEL_IMAGE: 'img', HOME: '/root', ALLOWED: 'a', JUPYTERHUB_USER: 'hubuser' },
      requestEnv: { JPY_SESSION_NAME: 'a.ipynb', KERNEL_EXTRA: 'x' },
      allowed: ['ALLOWED'],
      workingDir: '/srv/work',
      launchTimeoutS: 40,
    });
    expect(env).toEqual({
      KERNEL_IMAGE: 'img',
      ALLOWED: 'a',
      KERNEL_EXTRA: 'x',
      KERNEL_USERNAME: 'hubuser',
      KERNEL_WORKING_DIR: '/srv/work',
      KERNEL_LAUNCH_TIMEOUT: '40',
    });
    const own = kernelStartEnv({
      processEnv: { KERNEL_USERNAME: 'me', KERNEL_WORKING_DIR: '/there', KERNEL_LAUNCH_TIMEOUT: '300' },
      requestEnv: { JPY_SESSION_NAME: 'b.ipynb' },
      allowed: ['JPY_SESSION_NAME'],
      workingDir: '/here',
      launchTimeoutS: 40,
    });
    expect(own).toEqual({
      KERNEL_USERNAME: 'me',
      KERNEL_WORKING_DIR: '/there',
      KERNEL_LAUNCH_TIMEOUT: '300',
      JPY_SESSION_NAME: 'b.ipynb',
    });
    expect(
      kernelStartEnv({ processEnv: {}, requestEnv: {}, allowed: [], workingDir: '/w', launchTimeoutS: 1 })
        .KERNEL_USERNAME,
    ).toBe(os.userInfo().username);
  });
});

describe('GatewayClient options', () => {
  const client = (extra: Partial<ConstructorParameters<typeof GatewayClient>[0]> = {}) =>
    new GatewayClient({
      url: 'https://user:pw@gw.example:8443/eg?x=1#y',
      requestTimeoutMs: 42_000,
      processEnv: {},
      ...extra,
    });

  it('names the gateway without credentials, derives wss, and keeps a start at least the launch timeout plus 2 s', () => {
    const c = client();
    expect(c.name).toBe('https://gw.example:8443/eg/');
    expect(c.url('api/kernels')).toBe('https://gw.example:8443/eg/api/kernels');
    expect(c.wsUrl('api/kernels/k/channels')).toBe('wss://gw.example:8443/eg/api/kernels/k/channels');
    expect(c.headers()).toEqual({ Authorization: `Basic ${Buffer.from('user:pw').toString('base64')}` });
    expect([c.launchTimeoutS, c.startTimeoutMs]).toEqual([40, 42_000]);
    const long = client({ processEnv: { KERNEL_LAUNCH_TIMEOUT: '300' } });
    expect([long.launchTimeoutS, long.startTimeoutMs]).toEqual([300, 302_000]);
    const short = client({ requestTimeoutMs: 2000 });
    expect([short.launchTimeoutS, short.startTimeoutMs]).toEqual([1, 3000]);
  });

  it('sends the token unless a header gives an Authorization, and refuses URLs that are not http(s)', () => {
    expect(client({ authToken: 't', headers: { 'X-A': '1' } }).headers()).toEqual({
      'X-A': '1',
      Authorization: 'token t',
    });
    expect(client({ authToken: 't', headers: { authorization: 'Bearer b' } }).headers()).toEqual({
      authorization: 'Bearer b',
    });
    expect(() => client({ url: 'ftp://gw' })).toThrow(NbserveError);
    expect(() => client({ url: 'gw:8888' })).toThrow(/must start with http: or https:/);
  });
});

describe('a KernelManager on the stub gateway', () => {
  let stub: GatewayStub;
  let root: string;
  let manager: KernelManager;

  beforeAll(async () => {
    stub = await startGatewayStub();
    root = await makeTempDir('nbserve-gateway-core-');
    const client = new GatewayClient({
      url: stub.url,
      authToken: stub.token,
      requestTimeoutMs: 10_000,
      processEnv: {},
    });
    manager = new KernelManager({
      kernelspecs: new GatewayKernelSpecs(client),
      provisioner: new GatewayProvisioner({ client, warn: () => {} }),
      rootDir: root,
    });
  });
  afterAll(async () => {
    await manager?.shutdownAll();
    await stub?.close();
    await rm(root, { recursive: true, force: true });
  });

  it('starts a remote kernel, runs code through a client, restarts and shuts it down on the gateway', async () => {
    const kernel = await manager.start({ name: 'python3' });
    expect(kernel.model()).toMatchObject({ name: 'python3', execution_state: 'idle', connections: 0 });
    expect(kernel.process?.pid).toBeUndefined();
    const remoteId = kernel.process?.remote?.id as string;
    expect(stub.kernels.has(remoteId)).toBe(true);
    // named by the gateway's id, as jupyter_server names its gateway kernels
    expect(kernel.id).toBe(remoteId);
    expect(manager.list().map((m) => m.id)).toEqual([remoteId]);

    const client = kernel.createClient();
    const { reply, iopub } = await runOnClient(kernel, client, 'execute_request', { code: '6*7' });
    expect(reply.content).toMatchObject({ status: 'ok' });
    expect(iopub.find((m) => m.header.msg_type === 'stream')?.content).toEqual({ name: 'stdout', text: 'ran 6*7\n' });

    // The gateway restarts in place behind the same WebSocket: clients keep their channels.
    const attach = vi.spyOn(client, 'attach');
    await manager.restart(kernel.id);
    expect(kernel.executionState).toBe('idle');
    expect(attach).not.toHaveBeenCalled();
    const again = await runOnClient(kernel, client, 'execute_request', { code: 'again' });
    expect(again.reply.content).toMatchObject({ status: 'ok' });
    client.close();

    await manager.shutdown(kernel.id);
    expect(manager.has(kernel.id)).toBe(false);
    expect(stub.kernels.has(remoteId)).toBe(false);
  });
});
