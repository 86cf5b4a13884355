// needs: kernel
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as nodePath from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../../testing/server.js';
import { makeTempDir } from '../../../testing/temp.js';
import { TOKEN } from '../../../testing/token.js';
import { waitUntil } from '../../../testing/wait.js';
import { open } from '../../../testing/ws-recorder.js';

const IPCLUSTER = ['/usr/bin/python3', '-m', 'ipyparallel.cluster'];

/** `true` while any process of this profile dir (controller or engine) is alive. */
async function clusterProcesses(profileDir: string): Promise<number> {
  let n = 0;
  for (const pid of await fs.readdir('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    const cmdline = await fs.readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    const stat = await fs.readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
    if (cmdline.includes(profileDir) && !stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) n++;
  }
  return n;
}

describe('a real ipcluster with 2 engines, used from a python3 kernel through nbserve', () => {
  let s: TestServer;
  let ipythonDir: string;
  let profileDir: string;

  beforeAll(async () => {
    ipythonDir = await makeTempDir('nbserve-ipyparallel-');
    profileDir = nodePath.join(ipythonDir, 'profile_par');
    await fs.mkdir(profileDir);
    s = await startServer({
      ipclusterCommand: IPCLUSTER,
      profileSearchDirs: [ipythonDir],
      kernelSpecDirs: ['/usr/share/jupyter/kernels'],
    });
  });
  afterAll(async () => {
    const clusters = s.app.services.clusters;
    await clusters.idle();
    if ((await clusters.get('par')).status === 'running') {
      await clusters.stop('par');
      await clusters.idle();
    }
    await s.close();
    await fs.rm(ipythonDir, { recursive: true, force: true });
  });

  it('starts the cluster (form body n=2), runs a parallel map from a kernel, stops it', async () => {
    const start = await s.fetch('/clusters/par/start', {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'n=2',
    });
    expect(start.status).toBe(200);
    expect(await start.json()).toEqual({ profile: 'par', profile_dir: profileDir, status: 'running', n: 2 });
    expect(await (await s.fetch('/api/clusters/par')).json()).toMatchObject({ status: 'running', n: 2 });
    const again = await s.fetch('/api/clusters/par/start?n=2', { method: 'POST' });
    expect(again.status).toBe(409);

    // A python3 kernel started through nbserve connects to the cluster and maps over 2 engines.
    const kernel = (await (await s.fetch('/api/kernels', { method: 'POST', body: '{"name":"python3"}' })).json()) as {
      id: string;
    };
    const ws = await open(
      `ws://127.0.0.1:${s.port}/api/kernels/${kernel.id}/channels?session_id=${randomUUID()}&token=${TOKEN}`,
      { Origin: s.origin },
    );
    const code = [
      'import os, ipyparallel as ipp',
      `rc = ipp.Client(profile='par', ipython_dir=${JSON.stringify(ipythonDir)})`,
      'rc.wait_for_engines(2, timeout=60, interactive=False)',
      'squares = rc[:].map_sync(lambda x: x * x, range(8))',
      'pids = set(rc[:].apply_sync(os.getpid))',
      'print("engines", len(rc.ids), "squares", list(squares), "distinct", len(pids))',
      'rc.close()',
    ].join('\n');
    const msgId = randomUUID();
    ws.ws.send(
      JSON.stringify({
        channel: 'shell',
        header: {
          msg_id: msgId,
          msg_type: 'execute_request',
          session: 'test',
          username: 'test',
          date: new Date().toISOString(),
          version: '5.3',
        },
        parent_header: {},
        metadata: {},
        content: {
          code,
          silent: false,
          store_history: true,
          user_expressions: {},
          allow_stdin: false,
          stop_on_error: true,
        },
      }),
    );
    const reply = await ws.waitFor(
      (f) => f.header.msg_type === 'execute_reply' && f.parent_header.msg_id === msgId,
      90_000,
    );
    const errors = ws.frames.filter((f) => f.header.msg_type === 'error').map((f) => f.content.evalue);
    expect(reply.content.status, String(errors)).toBe('ok');
    const printed = ws.frames
      .filter((f) => f.header.msg_type === 'stream' && f.parent_header.msg_id === msgId)
      .map((f) => f.content.text)
      .join('');
    expect(printed).toContain('engines 2 squares [0, 1, 4, 9, 16, 25, 36, 49] distinct 2');
    ws.ws.close();
    await s.fetch(`/api/kernels/${kernel.id}`, { method: 'DELETE' });

    // Stop answers at once (upstream semantics) and the teardown really happens.
    const stop = await s.fetch('/api/clusters/par/stop', { method: 'POST' });
    expect(stop.status).toBe(200);
    expect(await stop.json()).toEqual({ profile: 'par', profile_dir: profileDir, status: 'stopped' });
    expect((await s.fetch('/clusters/par/stop', { method: 'POST' })).status).toBe(409);
    await s.app.services.clusters.idle();
    expect(await (await s.fetch('/clusters/par')).json()).toEqual({
      profile: 'par',
      profile_dir: profileDir,
      status: 'stopped',
    });
    await waitUntil(async () => (await clusterProcesses(profileDir)) === 0, { timeoutMs: 15_000, intervalMs: 200 });
    expect(await clusterProcesses(profileDir)).toBe(0);
  }, 180_000);
});
