import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { makeTempDirSync } from '../../../testing/temp.js';
import { waitFor } from '../../../testing/wait.js';
import { isProcessAlive, PidRegistry, signalGroup } from '../src/index.js';
import { processStartTime } from '../src/kernels/process-group.js';

const base = makeTempDirSync('nbserve-reaper-');
const started: ChildProcess[] = [];

afterEach(() => {
  for (const child of started.splice(0)) {
    if (child.pid) signalGroup(child.pid, 'SIGKILL');
  }
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

/** A detached process (its own process group, as kernels are spawned). */
function detached(command: string, args: string[]): ChildProcess & { pid: number } {
  const child = spawn(command, args, { detached: true, stdio: ['ignore', 'pipe', 'ignore'] });
  started.push(child);
  return child as ChildProcess & { pid: number };
}

const state = (pid: number) => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
  } catch {
    return 'gone';
  }
};

/** The pid of a server that has exited: its kernels' records are orphans. */
async function deadServerPid(): Promise<number> {
  const server = spawn('true', [], { stdio: 'ignore' });
  await new Promise((r) => server.once('exit', r));
  return server.pid as number;
}

function writeOrphanRecord(dir: string, kernelId: string, pid: number, startTime: string | null, serverPid: number) {
  mkdirSync(dir, { recursive: true });
  const connectionFile = path.join(dir, `kernel-${kernelId}.json`);
  writeFileSync(connectionFile, '{}');
  writeFileSync(
    path.join(dir, `nbserve-kernel-${kernelId}.pid.json`),
    JSON.stringify({ kernelId, pid, startTime, serverPid, serverStartTime: null, connectionFile }),
  );
}

describe('orphan reaper', () => {
  it('kills kernels whose server died and leaves those of a live server alone', async () => {
    const dir = path.join(base, 'live');
    const orphan = detached('sleep', ['60']);
    const kept = detached('sleep', ['60']);
    const registry = new PidRegistry(dir);
    registry.add('kept', kept.pid, path.join(dir, 'kernel-kept.json'));
    writeOrphanRecord(dir, 'orphan', orphan.pid, processStartTime(orphan.pid) ?? null, await deadServerPid());
    writeFileSync(path.join(dir, 'nbserve-kernel-garbage.pid.json'), 'not json');
    expect(registry.reapOrphans()).toEqual(['orphan']);
    await waitFor(() => !isProcessAlive(orphan.pid), { timeoutMs: 10_000 });
    expect(isProcessAlive(kept.pid)).toBe(true);
    expect(existsSync(path.join(dir, 'kernel-orphan.json'))).toBe(false);
    expect(readdirSync(dir).sort()).toEqual(['nbserve-kernel-kept.pid.json']);
  });

  it('counts only kernels that were alive and killed: not exited ones, zombies or recycled pids', async () => {
    const dir = path.join(base, 'stale');
    const serverPid = await deadServerPid();

    // A kernel that exited by itself after its server died (ipykernel does, through JPY_PARENT_PID).
    const exited = detached('sleep', ['60']);
    const exitedStart = processStartTime(exited.pid) ?? null;
    exited.kill('SIGKILL');
    await waitFor(() => state(exited.pid) === 'gone', { timeoutMs: 10_000 });
    writeOrphanRecord(dir, 'exited', exited.pid, exitedStart, serverPid);

    // A kernel that is a zombie, alone in its process group: `setsid` makes `sleep 0` a group
    // leader, and its parent (`exec sleep 60`) never reaps it.
    const parent = detached('sh', ['-c', 'setsid sleep 0 & echo $!; exec sleep 60']);
    const zombie = await new Promise<number>((resolve) =>
      parent.stdout?.once('data', (d) => resolve(Number(String(d)))),
    );
    await waitFor(() => state(zombie) === 'Z', { timeoutMs: 10_000 });
    writeOrphanRecord(dir, 'zombie', zombie, processStartTime(zombie) ?? null, serverPid);

    // Pids that now belong to other programs: the start time differs, or was never known.
    const recycled = detached('sleep', ['60']);
    writeOrphanRecord(dir, 'recycled', recycled.pid, '1', serverPid);
    const unknown = detached('sleep', ['60']);
    writeOrphanRecord(dir, 'unknown', unknown.pid, null, serverPid);

    // And one kernel that really is still running.
    const live = detached('sleep', ['60']);
    writeOrphanRecord(dir, 'live', live.pid, processStartTime(live.pid) ?? null, serverPid);

    expect(new PidRegistry(dir).reapOrphans()).toEqual(['live']);
    await waitFor(() => !isProcessAlive(live.pid), { timeoutMs: 10_000 });
    for (const other of [recycled, unknown, parent]) expect(isProcessAlive(other.pid)).toBe(true);
    // every orphan record and connection file is gone, counted or not
    expect(readdirSync(dir)).toEqual([]);
  });
});
