// needs: kernel
import * as fs from 'node:fs/promises';
import * as nodePath from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jupyterError, startServer, type TestServer } from '../../../testing/server.js';
import { makeTempDir } from '../../../testing/temp.js';

const IPCLUSTER = ['/usr/bin/python3', '-m', 'ipyparallel.cluster'];

describe('cluster API at /clusters and /api/clusters', () => {
  let s: TestServer;
  let ipythonDir: string;

  beforeAll(async () => {
    ipythonDir = await makeTempDir('nbserve-ipython-');
    for (const name of ['default', 'beta', 'alpha']) await fs.mkdir(nodePath.join(ipythonDir, `profile_${name}`));
    s = await startServer({ ipclusterCommand: IPCLUSTER, profileSearchDirs: [ipythonDir] });
  });
  afterAll(async () => {
    await s.app.services.clusters.idle();
    await s.close();
    await fs.rm(ipythonDir, { recursive: true, force: true });
  });

  it('lists profiles, default first, with the IPython model, under both prefixes', async () => {
    for (const prefix of ['/clusters', '/api/clusters']) {
      const res = await s.fetch(prefix);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual([
        { profile: 'default', profile_dir: nodePath.join(ipythonDir, 'profile_default'), status: 'stopped' },
        { profile: 'alpha', profile_dir: nodePath.join(ipythonDir, 'profile_alpha'), status: 'stopped' },
        { profile: 'beta', profile_dir: nodePath.join(ipythonDir, 'profile_beta'), status: 'stopped' },
      ]);
    }
    const one = await s.request('/api/clusters/alpha');
    expect(await one.json()).toEqual({
      profile: 'alpha',
      profile_dir: nodePath.join(ipythonDir, 'profile_alpha'),
      status: 'stopped',
    });
  });

  it('bad input: 404 unknown profile/action, 400 bad names and bad n, 409 stop of a stopped cluster', async () => {
    const cases: [string, string, RequestInit, number, RegExp][] = [
      ['GET', '/api/clusters/nope', {}, 404, /profile not found/],
      ['GET', '/clusters/a%2Fb', {}, 400, /Invalid profile name/],
      ['GET', '/clusters/x..y', {}, 400, /Invalid profile name/],
      ['POST', '/api/clusters/a%5Cb/start', {}, 400, /Invalid profile name/],
      ['POST', '/api/clusters/alpha/explode', {}, 404, /Unknown cluster action/],
      ['POST', '/api/clusters/nope/start?n=2', {}, 404, /profile not found/],
      ['POST', '/api/clusters/alpha/start?n=0', {}, 400, /positive integer/],
      ['POST', '/api/clusters/alpha/start?n=-3', {}, 400, /positive integer/],
      ['POST', '/api/clusters/alpha/start?n=two', {}, 400, /positive integer/],
      [
        'POST',
        '/clusters/alpha/start',
        { headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'n=1.5' },
        400,
        /positive integer/,
      ],
      [
        'POST',
        '/clusters/alpha/start',
        { headers: { 'Content-Type': 'application/json' }, body: '{"n":0}' },
        400,
        /positive integer/,
      ],
      [
        'POST',
        '/clusters/alpha/start',
        { headers: { 'Content-Type': 'application/json' }, body: '{"n":' },
        400,
        /JSON/,
      ],
      ['POST', '/clusters/alpha/stop', {}, 409, /cluster not running/],
    ];
    for (const [method, path, init, status, message] of cases) {
      const res = await s.fetch(path, { method, ...init });
      expect(res.status, `${method} ${path}`).toBe(status);
      expect((await jupyterError(res)).message, path).toMatch(message);
    }
    const list = (await (await s.fetch('/api/clusters')).json()) as { status: string }[];
    expect(list.every((c) => c.status === 'stopped')).toBe(true);
  });

  it('needs authentication (API 403, legacy path redirects to login)', async () => {
    expect((await s.fetch('/api/clusters', { auth: false })).status).toBe(403);
    expect((await s.fetch('/api/clusters/alpha/start', { method: 'POST', auth: false })).status).toBe(403);
    const legacy = await s.fetch('/clusters', { auth: false });
    expect(legacy.status).toBe(302);
  });
});

describe('clusters without ipcluster installed', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer({
      ipclusterCommand: ['/nonexistent/bin/python3', '-m', 'ipyparallel.cluster'],
      profileSearchDirs: ['/nonexistent-ipython-dir'],
    });
  });
  afterAll(async () => s.close());

  it('answers 503 with an install hint on every route', async () => {
    for (const [method, path] of [
      ['GET', '/api/clusters'],
      ['GET', '/clusters'],
    ] as const) {
      const res = await s.fetch(path, { method });
      expect(res.status).toBe(503);
      const body = await jupyterError(res);
      expect(body.message).toContain('apt-get install python3-ipyparallel');
      expect(body.reason).toBe('ipcluster not installed');
    }
  });
});
