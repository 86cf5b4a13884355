// needs: kernel
import * as fs from 'node:fs/promises';
import * as nodePath from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../../testing/server.js';

describe('older routes, export and reST under a base URL', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer({ baseUrl: '/nb/base/', kernelSpecDirs: ['/usr/share/jupyter/kernels'] });
    await fs.writeFile(
      nodePath.join(s.root, 'A.ipynb'),
      JSON.stringify({
        nbformat: 4,
        nbformat_minor: 5,
        metadata: {},
        cells: [{ cell_type: 'code', id: 'x', metadata: {}, source: 'a = 1', execution_count: null, outputs: [] }],
      }),
    );
  });
  afterAll(async () => s.close());

  it('keeps every URL it hands out under the base', async () => {
    const [entry] = (await (await s.fetch('/nb/base/notebooks')).json()) as { notebook_id: string; name: string }[];
    expect(entry?.name).toBe('A');
    const id = entry?.notebook_id as string;
    const page = await s.request(`/nb/base/${id}`);
    expect(page.headers.get('location')).toBe('/nb/base/notebooks/A.ipynb');
    const created = await s.fetch('/nb/base/notebooks', { method: 'POST' });
    expect(created.headers.get('location')).toMatch(/^\/nb\/base\/notebooks\/[0-9a-f-]{36}$/);
    expect((await s.fetch('/nb/base/A.ipynb')).headers.get('location')).toBe(`/nb/base/${id}`);
    const script = await s.fetch('/nb/base/nbconvert/script/A.ipynb');
    expect(await script.text()).toContain('a = 1');
    expect((await s.fetch('/nb/base/rstservice/render', { method: 'POST', body: '*x*' })).status).toBe(200);
    const started = await s.fetch(`/nb/base/kernels?notebook=${id}`, { method: 'POST' });
    const { kernel_id } = (await started.json()) as { kernel_id: string };
    expect(started.headers.get('location')).toBe(`/nb/base/kernels/${kernel_id}`);
    expect((await s.fetch(`/nb/base/kernels/${kernel_id}`, { method: 'DELETE' })).status).toBe(204);
    // Nothing answers outside the base.
    expect((await s.fetch('/notebooks')).status).toBe(404);
  });
});
