// needs: kernel
import * as fs from 'node:fs/promises';
import * as nodePath from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jupyterError, startServer, type TestServer } from '../../../testing/server.js';
import { makeTempDir, snapshotTree } from '../../../testing/temp.js';

/**
 * Every route of the older generation, clusters, export and reST with malformed input: each
 * answer is a 4xx (or a redirect to a page) with a Jupyter error body, never a 5xx, and the
 * contents root is left exactly as it was.
 */
describe('malformed input on the older routes, clusters, export and reST', () => {
  let s: TestServer;
  let ipythonDir: string;
  let id: string;
  let kernelId: string;

  beforeAll(async () => {
    ipythonDir = await makeTempDir('nbserve-bad-ipython-');
    await fs.mkdir(nodePath.join(ipythonDir, 'profile_p'));
    s = await startServer({ profileSearchDirs: [ipythonDir], kernelSpecDirs: ['/usr/share/jupyter/kernels'] });
    id = (await (await s.fetch('/notebooks', { method: 'POST' })).json()) as string;
    kernelId = ((await (await s.fetch('/kernels', { method: 'POST' })).json()) as { kernel_id: string }).kernel_id;
  });
  afterAll(async () => {
    // Only a failing assertion could have started it; never leave a cluster behind.
    const clusters = s.app.services.clusters;
    await clusters.idle();
    if ((await clusters.get('p')).status === 'running') {
      await clusters.stop('p');
      await clusters.idle();
    }
    await s.close();
    await fs.rm(ipythonDir, { recursive: true, force: true });
  });

  it('answers 4xx Jupyter errors and changes nothing', async () => {
    const json = { 'Content-Type': 'application/json' };
    const form = { 'Content-Type': 'application/x-www-form-urlencoded' };
    const long = 'x'.repeat(5000);
    const cases: [string, string, RequestInit?][] = [
      ['POST', '/notebooks', { body: '\u0000\u0001binary' }],
      ['POST', '/notebooks', { body: '"just a string"' }],
      ['POST', '/notebooks', { body: '[]' }],
      ['POST', '/notebooks', { body: 'null' }],
      ['POST', `/notebooks?name=${long}`, { body: '{}' }],
      [
        'POST',
        '/notebooks?name=a%00b',
        { body: JSON.stringify({ nbformat: 3, nbformat_minor: 0, metadata: {}, worksheets: [] }) },
      ],
      ['POST', '/notebooks?format=py', { body: '# <codecell>\nx' }],
      ['POST', '/notebooks?format=', { body: '{}' }],
      ['PUT', `/notebooks/${id}`, {}],
      ['PUT', `/notebooks/${id}`, { body: '{"nbformat": 4, "cells": "no"}' }],
      [
        'PUT',
        `/notebooks/${id}?name=%2E%2E`,
        { body: JSON.stringify({ nbformat: 4, nbformat_minor: 5, metadata: {}, cells: [] }) },
      ],
      [
        'PUT',
        `/notebooks/${id}?name=a%2Fb`,
        { body: JSON.stringify({ nbformat: 4, nbformat_minor: 5, metadata: {}, cells: [] }) },
      ],
      ['GET', `/notebooks/${id}?format=pdf`],
      ['POST', `/notebooks/${id}/checkpoints/nope`],
      ['DELETE', `/notebooks/${id}/checkpoints/nope`],
      ['GET', '/notebooks/00000000-0000-4000-8000-000000000000/checkpoints'],
      ['POST', '/kernels?notebook=not-a-uuid'],
      ['POST', `/kernels/${kernelId}/%ZZ`],
      ['GET', `/kernels/${kernelId}/shell`],
      ['GET', `/kernels/${long}`],
      ['POST', '/api/clusters/p/start', { body: '{"n":"3; rm -rf /"}', headers: json }],
      ['POST', '/api/clusters/p/start', { body: '[]', headers: json }],
      ['POST', '/api/clusters/p/start?n=1e3'],
      ['POST', '/api/clusters/p/start?n=99999'],
      ['POST', '/clusters/p/start', { body: 'n=%ZZ', headers: form }],
      ['POST', '/clusters/p/start', { body: 'n=--help', headers: form }],
      ['GET', `/api/clusters/${'p'.repeat(300)}`],
      ['GET', '/api/clusters/-p'],
      ['POST', '/api/clusters/p/restart'],
      ['GET', '/nbconvert/html/%ZZ.ipynb'],
      ['GET', '/nbconvert/html/../../etc/passwd'],
      ['GET', '/nbconvert/html/.hidden.ipynb'],
      ['GET', `/nbconvert/${long}/x.ipynb`],
      ['POST', '/nbconvert/html', { body: '{"content": null}', headers: json }],
      [
        'POST',
        '/nbconvert/html',
        {
          body: '{"content": {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [{"cell_type": "code", "source": 5}]}}',
          headers: json,
        },
      ],
      ['POST', '/nbconvert/script', { body: '{"name": 5, "content": {}}', headers: json }],
      ['POST', '/rstservice/render', { body: 'x'.repeat(1024 * 1024 + 10) }],
      ['POST', '/rstservice/render', { body: 'a\u0000b' }],
    ];
    const before = await snapshotTree(s.root);
    for (const [method, path, init] of cases) {
      const res = await s.fetch(path, { method, ...init });
      const where = `${method} ${path.slice(0, 80)}`;
      expect(res.status, where).toBeGreaterThanOrEqual(300);
      expect(res.status, where).toBeLessThan(500);
      if (res.status >= 400 && res.headers.get('content-type')?.startsWith('application/json')) {
        await jupyterError(res);
      } else {
        await res.arrayBuffer();
      }
    }
    expect(await snapshotTree(s.root)).toEqual(before);
    expect(await (await s.fetch('/kernels')).json()).toEqual([kernelId]);
    expect(((await (await s.fetch('/api/clusters')).json()) as { status: string }[]).map((c) => c.status)).toEqual([
      'stopped',
    ]);
  });
});
