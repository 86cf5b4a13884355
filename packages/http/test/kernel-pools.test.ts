// needs: kernel
import { promises as fs, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { type Kernel, KernelManager, SessionManager } from '@jupyterlab/services';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execute } from '../../../testing/kernel-cases.js';
import { createTestApp, startServer, type TestServer } from '../../../testing/server.js';
import { waitFor } from '../../../testing/wait.js';

/** Pids of live (not zombie) processes whose command line names a file under `dir`. */
function processesUnder(dir: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (!readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(dir)) continue;
      if (/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${entry}/stat`, 'utf8'))) continue;
      pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

function isAlive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** The pid of the one ready pooled python3 kernel, once there is one. */
async function readyPoolPid(server: TestServer, other?: number): Promise<number> {
  let pid: number | undefined;
  await waitFor(
    () => {
      pid = server.app.services.kernels.poolCounts().get('python3')?.pids[0];
      return pid !== undefined && pid !== other;
    },
    { timeoutMs: 120_000, intervalMs: 100, what: 'a ready pooled python3 kernel' },
  );
  return pid as number;
}

/** What a kernel reports of where it runs: cwd, JPY_SESSION_NAME, sys.path[0], __session__. */
const PROBE =
  'import os, sys, json; print(json.dumps([os.getcwd(), os.environ.get("JPY_SESSION_NAME"), sys.path[0], globals().get("__session__")]))';

async function probe(server: TestServer, kernelId: string): Promise<unknown[]> {
  const manager = new KernelManager({ serverSettings: server.jupyterSettings() });
  const kernel = manager.connectTo({ model: { id: kernelId, name: 'python3' } });
  try {
    const run = await execute(kernel, PROBE);
    expect(run.reply.content.status).toBe('ok');
    const text = (run.of('stream')[0]?.content as { text?: string } | undefined)?.text;
    return JSON.parse(String(text)) as unknown[];
  } finally {
    kernel.dispose();
    manager.dispose();
  }
}

describe('--kernel-pool python3=1', () => {
  let fx: TestServer;

  beforeAll(async () => {
    fx = await startServer({ kernelPools: { python3: 1 } });
    await fs.mkdir(path.join(fx.root, 'work', 'sub'), { recursive: true });
  }, 180_000);
  afterAll(async () => {
    await fx.close();
  });

  it('a session POST takes the pooled kernel, running in the notebook folder with JPY_SESSION_NAME; the pool refills', async () => {
    const pooled = await readyPoolPid(fx);
    expect(await (await fx.fetch('api/kernels')).json()).toEqual([]);
    const response = await fx.fetch('api/sessions', {
      method: 'POST',
      json: { path: 'work/sub/a.ipynb', type: 'notebook', kernel: { name: 'python3' } },
    });
    expect(response.status).toBe(201);
    const session = (await response.json()) as { kernel: { id: string; execution_state: string } };
    expect(session.kernel.execution_state).toBe('idle');
    expect(fx.app.services.kernels.get(session.kernel.id).process?.pid).toBe(pooled);
    const cwd = path.join(fx.root, 'work', 'sub');
    expect(await probe(fx, session.kernel.id)).toEqual([cwd, 'work/sub/a.ipynb', cwd, 'work/sub/a.ipynb']);
    // Listed once taken, and the pool starts another one.
    expect(((await (await fx.fetch('api/kernels')).json()) as { id: string }[]).map((k) => k.id)).toEqual([
      session.kernel.id,
    ]);
    const refilled = await readyPoolPid(fx, pooled);
    expect(isAlive(refilled)).toBe(true);
    const metrics = await (await fx.fetch('metrics')).text();
    expect(metrics).toContain('nbserve_kernel_pool_kernels{type="python3",state="ready"} 1');
    expect(
      Number(/nbserve_kernel_pool_resident_memory_bytes\{type="python3"\} (\d+)/.exec(metrics)?.[1]),
    ).toBeGreaterThan(10_000_000);
    expect(metrics).toContain('kernel_currently_running_total{type="python3"} 1');
    expect(
      (await fx.fetch(`api/sessions/${(session as unknown as { id: string }).id}`, { method: 'DELETE' })).status,
    ).toBe(204);
  }, 240_000);

  it('POST /api/kernels takes one too (cwd from path, no session name), as an unpooled start would be', async () => {
    const pooled = await readyPoolPid(fx);
    const response = await fx.fetch('api/kernels', { method: 'POST', json: { name: 'python3', path: 'work' } });
    expect(response.status).toBe(201);
    const { id } = (await response.json()) as { id: string };
    expect(fx.app.services.kernels.get(id).process?.pid).toBe(pooled);
    const cwd = path.join(fx.root, 'work');
    expect(await probe(fx, id)).toEqual([cwd, null, cwd, null]);
    // A restart starts the process afresh, in the same folder.
    expect((await fx.fetch(`api/kernels/${id}/restart`, { method: 'POST' })).status).toBe(200);
    expect(fx.app.services.kernels.get(id).process?.pid).not.toBe(pooled);
    expect((await probe(fx, id))[0]).toBe(cwd);
    expect((await fx.fetch(`api/kernels/${id}`, { method: 'DELETE' })).status).toBe(204);
  }, 240_000);

  it('a client-chosen kernel id or an environment the pool cannot give starts a fresh kernel', async () => {
    const pooled = await readyPoolPid(fx);
    const kernels = fx.app.services.kernels;
    const withEnv = await kernels.start({ name: 'python3', path: 'work', env: { PYTHONHASHSEED: '0' } });
    const withId = await kernels.start({ name: 'python3', kernelId: '3b0c8f0e-2a4e-4f6e-9d0a-5b7e1c2d3f4a' });
    expect([withEnv.process?.pid, withId.process?.pid]).not.toContain(pooled);
    expect(kernels.poolCounts().get('python3')?.pids).toEqual([pooled]);
    await Promise.all([kernels.shutdown(withEnv.id), kernels.shutdown(withId.id)]);
  }, 240_000);

  it('@jupyterlab/services SessionManager works with a pooled kernel', async () => {
    const pooled = await readyPoolPid(fx);
    const sessions = new SessionManager({
      serverSettings: fx.jupyterSettings(),
      kernelManager: new KernelManager({ serverSettings: fx.jupyterSettings() }),
    });
    await sessions.ready;
    const session = await sessions.startNew({
      path: 'work/b.ipynb',
      name: 'b.ipynb',
      type: 'notebook',
      kernel: { name: 'python3' },
    });
    const kernel = session.kernel as Kernel.IKernelConnection;
    await kernel.info;
    expect(fx.app.services.kernels.get(kernel.id).process?.pid).toBe(pooled);
    const run = await execute(kernel, 'import os; print(os.getcwd(), os.environ["JPY_SESSION_NAME"]); 1+1');
    expect(run.reply.content).toMatchObject({ status: 'ok', execution_count: 1 });
    expect(run.of('stream')[0]?.content).toMatchObject({ text: `${path.join(fx.root, 'work')} work/b.ipynb\n` });
    expect(run.of('execute_result')[0]?.content).toMatchObject({ data: { 'text/plain': '2' } });
    await session.shutdown();
    expect(await (await fx.fetch('api/sessions')).json()).toEqual([]);
    sessions.dispose();
  }, 240_000);

  it('a pooled kernel that dies is replaced', async () => {
    const pooled = await readyPoolPid(fx);
    process.kill(pooled, 'SIGKILL');
    const replacement = await readyPoolPid(fx, pooled);
    expect(isAlive(replacement)).toBe(true);
    expect(fx.logger.lines.some((line) => line.includes('pooled python3 kernel died in the pool'))).toBe(true);
  }, 240_000);

  it('closing the server leaves no kernel process, pooled or taken', async () => {
    await readyPoolPid(fx);
    const response = await fx.fetch('api/kernels', { method: 'POST', json: { name: 'python3' } });
    expect(response.status).toBe(201);
    // the taken kernel and, a second later, its replacement in the pool
    await waitFor(() => processesUnder(fx.runtimeDir).length >= 2, { what: 'the pool refilling' });
    await fx.stop();
    expect(processesUnder(fx.runtimeDir)).toEqual([]);
  }, 240_000);
});

describe('kernel pools and culling', () => {
  it('idle culling shuts idle kernels down but never the pool', async () => {
    const fx = await startServer({ kernelPools: { python3: 1 }, cullIdleTimeout: 1, cullInterval: 1 });
    try {
      const pooled = await readyPoolPid(fx);
      const response = await fx.fetch('api/kernels', { method: 'POST', json: { name: 'python3' } });
      const { id } = (await response.json()) as { id: string };
      const next = await readyPoolPid(fx, pooled);
      await waitFor(async () => (await fx.fetch(`api/kernels/${id}`)).status === 404, {
        timeoutMs: 60_000,
        what: 'the taken kernel culled',
      });
      // Several culling passes later the pooled kernel is still the same, ready one.
      await new Promise((resolve) => setTimeout(resolve, 3000));
      expect(fx.app.services.kernels.poolCounts().get('python3')?.pids).toEqual([next]);
      expect(isAlive(next)).toBe(true);
    } finally {
      await fx.close();
    }
  }, 240_000);
});

describe('closing while the pool is still starting', () => {
  it('stops the starting kernel at once: no process is left', async () => {
    const fx = await startServer({ kernelPools: { python3: 1 } });
    const runtime = fx.runtimeDir;
    try {
      await waitFor(() => processesUnder(runtime).length > 0, { what: 'the pooled kernel spawned' });
      expect(fx.app.services.kernels.poolCounts().get('python3')).toMatchObject({ ready: 0, starting: 1 });
    } finally {
      await fx.close();
    }
    expect(processesUnder(runtime)).toEqual([]);
  }, 120_000);
});

describe('kernelspecs that cannot be pooled', () => {
  it('refuses the built-in javascript kernel and unknown kernelspecs, naming them', async () => {
    for (const [pools, message] of [
      [{ javascript: 1 }, /Cannot pool kernelspec javascript: only ipykernel \(Python\) kernels can be pooled/],
      [{ nope: 1 }, /Cannot pool kernelspec nope: there is no such kernelspec/],
    ] as const) {
      const fx = await createTestApp({ kernelPools: pools });
      try {
        await expect(fx.app.services.kernels.startPools()).rejects.toThrow(message);
        expect(fx.app.services.kernels.poolCounts().size).toBe(0);
        await waitFor(() => fx.logger.lines.some((line) => line.includes('Kernel pools not started')));
      } finally {
        await fx.close();
      }
    }
  });

  it('with a gateway, pools are off and the log says so', async () => {
    const fx = await createTestApp({ kernelPools: { python3: 1 }, gatewayUrl: 'http://127.0.0.1:9' });
    try {
      expect(fx.logger.lines.some((line) => line.includes('Kernel pools are off with a gateway'))).toBe(true);
      expect(fx.app.services.kernels.poolCounts().size).toBe(0);
    } finally {
      await fx.close();
    }
  });
});
