// needs: kernel
import { KernelSpecManager } from '@jupyterlab/services';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeJupyterlabKernelCases } from '../../../testing/kernel-cases.js';
import { startServer, type TestServer } from '../../../testing/server.js';

let fx: TestServer;

beforeAll(async () => {
  fx = await startServer({ floodKernels: true });
});
afterAll(async () => {
  await fx.close();
});

describe('@jupyterlab/services KernelSpecManager', () => {
  it('lists python3 as default with resources under /kernelspecs/', async () => {
    const specs = new KernelSpecManager({ serverSettings: fx.jupyterSettings() });
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
    const logo = await fx.fetch('kernelspecs/python3/logo-64x64.png');
    expect(logo.status).toBe(200);
    expect(logo.headers.get('content-type')).toBe('image/png');
    expect((await logo.arrayBuffer()).byteLength).toBeGreaterThan(100);
    specs.dispose();
  });
});

describeJupyterlabKernelCases('local kernels', () => ({
  server: fx,
  killKernelProcess: async (id) => {
    process.kill(fx.app.services.kernels.get(id).process?.pid as number, 'SIGKILL');
  },
  sessionNameInEnv: true,
}));
