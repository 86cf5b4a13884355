// needs: kernel
/**
 * JupyterLab with `--gateway-url` kernels: nothing in the lab side depends on where kernels run.
 * The page, settings and the requests JupyterLab makes at start answer as without a gateway, and
 * a session started the way JupyterLab starts one runs its kernel on the gateway.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeLabAppDir } from '../../../testing/lab-app.js';
import { startServer, type TestServer } from '../../../testing/server.js';
import { makeTempDir, removeDir } from '../../../testing/temp.js';
import { TOKEN } from '../../../testing/token.js';

describe('JupyterLab with gateway kernels', () => {
  let gateway: TestServer;
  let s: TestServer;
  let appDir: string;
  beforeAll(async () => {
    appDir = await writeLabAppDir(await makeTempDir('nbserve-lab-'));
    gateway = await startServer();
    s = await startServer({ gatewayUrl: gateway.url, gatewayAuthToken: TOKEN, labAppDir: appDir });
  }, 120_000);
  afterAll(async () => {
    await s?.close();
    await gateway?.close();
    await removeDir(appDir);
  }, 60_000);

  it('serves the page and lab APIs, and starts a session kernel on the gateway', async () => {
    expect((await s.fetch('lab')).status).toBe(200);
    expect((await s.fetch('lab/api/settings?ids_only=true')).status).toBe(200);
    expect((await s.fetch('lab/api/workspaces/default')).status).toBe(200);
    const specs = (await (await s.fetch('api/kernelspecs')).json()) as { kernelspecs: Record<string, unknown> };
    expect(Object.keys(specs.kernelspecs)).toContain('javascript');
    const session = await s.fetch('api/sessions', {
      method: 'POST',
      json: { path: 'Untitled.ipynb', type: 'notebook', name: '', kernel: { name: 'javascript' } },
    });
    expect(session.status).toBe(201);
    const { kernel } = (await session.json()) as { kernel: { id: string } };
    const remote = (await (await gateway.fetch('api/kernels')).json()) as unknown[];
    expect(remote).toHaveLength(1);
    expect((await s.fetch(`api/kernels/${kernel.id}`, { method: 'DELETE' })).status).toBe(204);
  });
});
