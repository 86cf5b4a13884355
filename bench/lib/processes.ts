import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, readdirSync, readFileSync, writeFileSync } from 'node:fs';

/**
 * Every process the bench starts is spawned detached (its own process group) and registered here,
 * so one `killAll()` on exit -- normal or by signal -- removes the servers and, through their
 * groups, whatever they started.
 */
const groups = new Set<number>();

export interface Spawned {
  child: ChildProcess;
  pid: number;
  /** Last few KiB of stdout+stderr, for "why did it not start" messages. */
  output(): string;
  exited(): boolean;
  exitPromise: Promise<number | null>;
}

export function spawnGroup(
  command: string,
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; logFile?: string },
): Spawned {
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env ?? process.env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (child.pid === undefined) throw new Error(`could not spawn ${command}`);
  const pid = child.pid;
  groups.add(pid);
  let tail = '';
  const keep = (chunk: Buffer) => {
    tail = (tail + chunk.toString('utf8')).slice(-8192);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  if (options.logFile) {
    // all of it, for diagnosing a failure (the tail above is mostly the kernels' start-up noise)
    const log = createWriteStream(options.logFile);
    child.stdout?.on('data', (chunk: Buffer) => log.write(chunk));
    child.stderr?.on('data', (chunk: Buffer) => log.write(chunk));
    child.once('exit', () => log.end());
  }
  let done = false;
  const exitPromise = new Promise<number | null>((resolve) => {
    child.once('exit', (code) => {
      done = true;
      resolve(code);
    });
    child.once('error', () => {
      done = true;
      resolve(null);
    });
  });
  return { child, pid, output: () => tail, exited: () => done, exitPromise };
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // group already gone
  }
}

/** SIGTERM the group, wait up to `graceMs`, then SIGKILL it. */
export async function stopGroup(proc: Spawned, graceMs = 5000): Promise<void> {
  if (!proc.exited()) {
    signalGroup(proc.pid, 'SIGTERM');
    const timer = new Promise((resolve) => setTimeout(resolve, graceMs));
    await Promise.race([proc.exitPromise, timer]);
  }
  signalGroup(proc.pid, 'SIGKILL');
  groups.delete(proc.pid);
}

export function killAllGroups(): void {
  for (const pid of groups) signalGroup(pid, 'SIGKILL');
  groups.clear();
}

/**
 * Kernels run in process groups of their own (that is the point), so killing a server's group
 * does not reach them when the server dies badly. Every kernel we cause is launched with a
 * connection file inside a bench temp dir; anything whose command line names that dir is ours.
 */
export function killProcessesMentioning(marker: string): number {
  let killed = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (pid === process.pid) continue;
    let cmdline: string;
    try {
      cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    if (!cmdline.includes(marker)) continue;
    try {
      process.kill(pid, 'SIGKILL');
      killed++;
    } catch {
      // already gone
    }
  }
  return killed;
}

function statusField(pid: number, field: string): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
  if (!match) throw new Error(`no ${field} for pid ${pid}`);
  return Number(match[1]) * 1024;
}

/** Resident set size in bytes. */
export function rss(pid: number): number {
  return statusField(pid, 'VmRSS');
}

/** Peak resident set size in bytes since start or the last `resetPeakRss`. */
export function peakRss(pid: number): number {
  return statusField(pid, 'VmHWM');
}

/** Resets VmHWM (Linux: writing 5 to clear_refs); returns false where that is not allowed. */
export function resetPeakRss(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

export function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // state field follows the parenthesised command name; Z = zombie, X = dead
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

/** CPU time (user + system) a process has used so far, in ms (Linux /proc; 0 when unknown). */
export function cpuTimeMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime (fields 14 and 15 of stat) are in clock ticks, 100 per second on Linux
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return 0;
  }
}
