import { KernelSpecManager } from '@jupyterlab/services';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeJupyterlabKernelCases } from '../../../testing/kernel-cases.js';
import { type KernelServerFixture, startKernelServer } from './kernels-fixture.js';

let fx: KernelServerFixture;

beforeAll(async () => {
  fx = await startKernelServer();
});
afterAll(async () => {
  await fx.cleanup();
});

describe('@jupyterlab/services KernelSpecManager', () => {
  it('lists python3 as default with resources under /kernelspecs/', async () => {
    const specs = new KernelSpecManager({ serverSettings: fx.settings() });
    await specs.ready;
    expect(specs.specs?.default).toBe('python3');
    const python = specs.specs?.kernelspecs.python3;
    expect(python?.display_name).toBe('Python 3 (ipykernel)');
    expect(python?.resources['logo-64x64']).toBe('/kernelspecs/python3/logo-64x64.png');
    expect(Object.keys(specs.specs?.kernelspecs ?? {}).sort()).toEqual([
      'flood',
      'javascript',
      'mute',
      'python3',
      'slow',
      'typescript',
    ]);
    const logo = await fx.api('GET', 'kernelspecs/python3/logo-64x64.png');
    expect(logo.status).toBe(200);
    expect(logo.headers.get('content-type')).toBe('image/png');
    expect((await logo.arrayBuffer()).byteLength).toBeGreaterThan(100);
    specs.dispose();
  });
});

describeJupyterlabKernelCases('local kernels', () => ({
  settings: (options) => fx.settings(options),
  api: (method, path, body) => fx.api(method, path, body),
  killKernelProcess: async (id) => {
    process.kill(fx.server.app.services.kernels.get(id).process?.pid as number, 'SIGKILL');
  },
  sessionNameInEnv: true,
}));
