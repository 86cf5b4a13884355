// needs: kernel
import { promises as fs, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isolated, runCli, useCliDirs } from '../../../testing/cli.js';
import { waitFor } from '../../../testing/wait.js';

/** Alive per /proc (a zombie or a missing entry counts as gone). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^[ZX]$/.test(stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3));
  } catch {
    return false;
  }
}

/** Pids of the kernels the server recorded in its runtime dir (pooled ones are recorded too). */
async function recordedKernelPids(runtime: string): Promise<number[]> {
  const files = (await fs.readdir(runtime).catch(() => [] as string[])).filter((f) =>
    /^nbserve-kernel-.*\.pid\.json$/.test(f),
  );
  const pids: number[] = [];
  for (const file of files) {
    try {
      pids.push((JSON.parse(await fs.readFile(path.join(runtime, file), 'utf8')) as { pid: number }).pid);
    } catch {
      // removed meanwhile
    }
  }
  return pids;
}

/** The pooled kernel's pid, once it is ready (listed in /metrics as ready). */
async function pooledPid(url: string, runtime: string): Promise<number> {
  const token = new URL(url).searchParams.get('token') ?? '';
  await waitFor(
    async () => {
      const metrics = await (
        await fetch(`${url.split('?')[0]}metrics`, { headers: { Authorization: `token ${token}` } })
      ).text();
      return metrics.includes('nbserve_kernel_pool_kernels{type="python3",state="ready"} 1');
    },
    { timeoutMs: 120_000, intervalMs: 200, what: 'a ready pooled kernel' },
  );
  const pids = await recordedKernelPids(runtime);
  expect(pids).toHaveLength(1);
  return pids[0] as number;
}

const dirs = useCliDirs();

describe('nbserve --kernel-pool', () => {
  it('refuses a kernelspec it cannot pool, and a count that is not a number, before serving', async () => {
    const js = runCli([...isolated(dirs), '--kernel-pool', 'javascript=1', dirs.root]);
    expect((await js.exit).code).toBe(1);
    expect(js.stderr()).toContain('Cannot pool kernelspec javascript: only ipykernel (Python) kernels can be pooled');
    expect(js.stdout()).not.toContain('http://');
    const bad = runCli([...isolated(dirs), '--kernel-pool=python3=many', dirs.root]);
    expect((await bad.exit).code).not.toBe(0);
    expect(bad.stderr()).toContain('--kernel-pool python3: expected a whole number');
  }, 120_000);

  it('SIGTERM stops the pooled kernel with the server', async () => {
    const cli = runCli([...isolated(dirs), '--kernel-pool', 'python3=1', dirs.root]);
    const pid = await pooledPid(await cli.url, dirs.runtime);
    expect(alive(pid)).toBe(true);
    cli.child.kill('SIGTERM');
    expect(await cli.exit).toEqual({ code: 0, signal: null });
    expect(alive(pid)).toBe(false);
    expect(await recordedKernelPids(dirs.runtime)).toEqual([]);
  }, 180_000);

  it('SIGKILL of the server: the pooled ipykernel exits by itself', async () => {
    const cli = runCli([...isolated(dirs), '--kernel-pool', 'python3=1', dirs.root]);
    const pid = await pooledPid(await cli.url, dirs.runtime);
    cli.child.kill('SIGKILL');
    await cli.exit;
    await waitFor(() => !alive(pid), { timeoutMs: 30_000, what: 'the pooled kernel gone' });
    // The next server reaps the record it left (nothing is left to kill).
    const next = runCli([...isolated(dirs), dirs.root]);
    await next.url;
    next.child.kill('SIGTERM');
    expect((await next.exit).code).toBe(0);
    expect(await recordedKernelPids(dirs.runtime)).toEqual([]);
  }, 180_000);
});
