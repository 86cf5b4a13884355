import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../../../testing/wait.js';
import { ProcessUsage } from '../src/index.js';

let child: ChildProcess | undefined;
afterEach(() => {
  if (child?.pid) {
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  child = undefined;
});

const childrenOf = (pid: number) =>
  readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);

describe('ProcessUsage (/proc)', () => {
  it('counts a process with its descendants: their memory, and CPU between two samples', async () => {
    // A shell that starts a sleeping child and then spins: a small tree with one busy process.
    child = spawn('/bin/sh', ['-c', 'sleep 30 & while :; do :; done'], { detached: true, stdio: 'ignore' });
    const root = child.pid as number;
    await waitFor(() => childrenOf(root).length > 0, { what: 'the sleeping child started' });
    const [sleeper] = childrenOf(root);
    const usage = new ProcessUsage();
    const first = usage.sample([root, process.pid]).get(root);
    expect(first?.pids).toEqual([root, sleeper]);
    expect(first?.rss).toBeGreaterThan(0);
    expect(first?.cpuPercent).toBe(0); // first sight: nothing to measure against, as psutil
    // Real time is what is measured: CPU used between two samples.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const second = usage.sample([root, process.pid]);
    // A spinning process on a shared, loaded machine: clearly above 0, at most one CPU.
    expect(second.get(root)?.cpuPercent).toBeGreaterThan(5);
    expect(second.get(root)?.cpuPercent).toBeLessThan(110);
    // The test process's tree holds the shell and its child too.
    expect(second.get(process.pid)?.pids).toEqual(expect.arrayContaining([process.pid, root, sleeper]));
    expect(second.get(process.pid)?.rss).toBeGreaterThan(second.get(root)?.rss ?? 0);
  });

  it('a process that is gone counts nothing', () => {
    const usage = new ProcessUsage();
    expect(usage.sample([2 ** 22 + 12345]).get(2 ** 22 + 12345)).toEqual({ pids: [], rss: 0, cpuPercent: 0 });
  });
});
