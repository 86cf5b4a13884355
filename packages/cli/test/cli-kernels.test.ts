// needs: kernel
import { promises as fs, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { isolated, runCli, useCliDirs } from '../../../testing/cli.js';
import { floodKernelArgv } from '../../../testing/flood-kernelspec.js';
import { waitUntil } from '../../../testing/wait.js';

/** Alive per /proc (a zombie or a missing entry counts as gone). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

async function waitGone(pids: number[], ms = 15_000): Promise<number[]> {
  await waitUntil(() => !pids.some(alive), { timeoutMs: ms, intervalMs: 50 });
  return pids.filter(alive);
}

/** Processes of group `pgid` per /proc (a kernel's own subprocesses share its group). */
function groupMembers(pgid: number): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) === pgid) out.push(Number(entry));
    } catch {
      // raced with an exit
    }
  }
  return out;
}

const dirs = useCliDirs();
let jupyterPath: string;

beforeAll(async () => {
  // `stubborn` ignores its parent's death (no JPY_PARENT_PID), so only nbserve can clean it up.
  jupyterPath = path.join(dirs.dir, 'share');
  const spec = path.join(jupyterPath, 'kernels', 'stubborn');
  await fs.mkdir(spec, { recursive: true });
  const argv = floodKernelArgv().map((a) => (a === '{connection_file}' ? '"$0"' : `'${a}'`));
  await fs.writeFile(
    path.join(spec, 'kernel.json'),
    JSON.stringify({
      argv: ['/bin/sh', '-c', `unset JPY_PARENT_PID; exec ${argv.join(' ')}`, '{connection_file}'],
      display_name: 'Stubborn',
      language: 'flood',
    }),
  );
});

async function startKernels(url: string, names: string[]): Promise<{ ids: string[]; pids: number[] }> {
  const token = new URL(url).searchParams.get('token') ?? '';
  const base = url.split('?')[0];
  const ids: string[] = [];
  for (const name of names) {
    const res = await fetch(`${base}api/kernels`, {
      method: 'POST',
      headers: { Authorization: `token ${token}` },
      body: JSON.stringify({ name }),
    });
    expect(res.status).toBe(201);
    ids.push(((await res.json()) as { id: string }).id);
  }
  const pids = ids.map(
    (id) => JSON.parse(readFileSync(path.join(dirs.runtime, `nbserve-kernel-${id}.pid.json`), 'utf8')).pid as number,
  );
  return { ids, pids };
}

describe('nbserve leaves no kernel behind', () => {
  it('SIGTERM: every kernel process group is gone and the runtime dir is clean', async () => {
    const cli = runCli([...isolated(dirs), '--cull-idle-timeout=3600', '--iopub-msg-rate-limit=0', dirs.root], {
      env: { JUPYTER_PATH: jupyterPath },
    });
    const { pids } = await startKernels(await cli.url, ['python3', 'stubborn']);
    expect(pids.every(alive)).toBe(true);
    cli.child.kill('SIGTERM');
    expect(await cli.exit).toEqual({ code: 0, signal: null });
    expect(await waitGone(pids)).toEqual([]);
    expect(pids.flatMap(groupMembers).filter(alive)).toEqual([]);
    const left = (await fs.readdir(dirs.runtime)).filter(
      (f) => f.startsWith('kernel-') || f.startsWith('nbserve-kernel-'),
    );
    expect(left).toEqual([]);
  });

  it('SIGKILL: ipykernel exits by itself; the next start reaps what stayed', async () => {
    const first = runCli([...isolated(dirs), dirs.root], { env: { JUPYTER_PATH: jupyterPath } });
    const { pids } = await startKernels(await first.url, ['python3', 'stubborn']);
    const [python, stubborn] = pids as [number, number];
    first.child.kill('SIGKILL');
    await first.exit;
    // ipykernel polls JPY_PARENT_PID and exits; the stubborn one stays until reaped.
    expect(await waitGone([python], 20_000)).toEqual([]);
    expect(alive(stubborn)).toBe(true);
    const second = runCli([...isolated(dirs), dirs.root], { env: { JUPYTER_PATH: jupyterPath } });
    await second.url;
    expect(await waitGone([stubborn])).toEqual([]);
    // only the stubborn kernel was still running: the exited python one is not counted
    expect(second.stderr()).toContain('Killed 1 kernel(s) left behind by a previous server');
    second.child.kill('SIGTERM');
    expect((await second.exit).code).toBe(0);
    const left = (await fs.readdir(dirs.runtime)).filter(
      (f) => f.startsWith('kernel-') || f.startsWith('nbserve-kernel-'),
    );
    expect(left).toEqual([]);
  });
});
