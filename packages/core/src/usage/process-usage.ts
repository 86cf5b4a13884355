import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of `/proc/<pid>/stat` times (USER_HZ, 100 on every Linux ABI). */
const TICKS_PER_SECOND = 100;

/** Memory and CPU of a process and every process below it. */
export interface TreeUsage {
  /** The processes counted: the root first, then its descendants. */
  pids: number[];
  /** Resident memory of all of them, in bytes. */
  rss: number;
  /** CPU use of all of them since the previous sample of each, in percent of one CPU (as psutil). */
  cpuPercent: number;
}

interface ProcStat {
  ppid: number;
  /** utime + stime, in ticks. */
  ticks: number;
}

/**
 * Resident memory and CPU of process trees, read from Linux's /proc (the server with its kernels
 * and terminals, one kernel with what it started). CPU is measured between two samples of the
 * same process, as psutil's `cpu_percent()` is: a process seen for the first time counts 0.
 * Off Linux, only the server itself is known (`process.memoryUsage()`), at 0 % CPU.
 */
export class ProcessUsage {
  readonly #previous = new Map<number, { ticks: number; at: number }>();
  readonly #now: () => number;

  constructor(options: { now?: () => number } = {}) {
    this.#now = options.now ?? (() => performance.now());
  }

  /** Usage of each root's tree, from one reading of /proc. */
  sample(roots: readonly number[]): Map<number, TreeUsage> {
    const stats = readAllStats();
    const at = this.#now();
    const result = new Map<number, TreeUsage>();
    if (!stats) {
      for (const root of roots) {
        const own = root === process.pid ? process.memoryUsage.rss() : 0;
        result.set(root, { pids: [root], rss: own, cpuPercent: 0 });
      }
      return result;
    }
    const children = new Map<number, number[]>();
    for (const [pid, stat] of stats) {
      const list = children.get(stat.ppid);
      if (list) list.push(pid);
      else children.set(stat.ppid, [pid]);
    }
    // Each process's CPU once per sample, even when it is in several trees (a kernel in the server's).
    const percents = new Map<number, number>();
    const percentOf = (pid: number): number => {
      let value = percents.get(pid);
      if (value === undefined) {
        value = this.#cpuPercent(pid, (stats.get(pid) as ProcStat).ticks, at);
        percents.set(pid, value);
      }
      return value;
    };
    for (const root of roots) {
      if (!stats.has(root)) {
        result.set(root, { pids: [], rss: 0, cpuPercent: 0 });
        continue;
      }
      const pids = descendants(root, children);
      let rss = 0;
      let cpuPercent = 0;
      for (const pid of pids) {
        rss += residentBytes(pid);
        cpuPercent += percentOf(pid);
      }
      result.set(root, { pids, rss, cpuPercent });
    }
    for (const pid of this.#previous.keys()) if (!stats.has(pid)) this.#previous.delete(pid);
    return result;
  }

  #cpuPercent(pid: number, ticks: number, at: number): number {
    const before = this.#previous.get(pid);
    this.#previous.set(pid, { ticks, at });
    if (!before || at <= before.at) return 0;
    const cpuSeconds = (ticks - before.ticks) / TICKS_PER_SECOND;
    return Math.max(0, Math.round((cpuSeconds / ((at - before.at) / 1000)) * 1000) / 10);
  }
}

function descendants(root: number, children: Map<number, number[]>): number[] {
  const found = new Set([root]);
  for (const pid of found) for (const child of children.get(pid) ?? []) found.add(child);
  return [...found];
}

/** `ppid` and CPU ticks of every process, or `undefined` without /proc. */
function readAllStats(): Map<number, ProcStat> | undefined {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return undefined;
  }
  const stats = new Map<number, ProcStat>();
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(entry);
    if (stat) stats.set(Number(entry), stat);
  }
  return stats.size > 0 ? stats : undefined;
}

function readStat(pid: string): ProcStat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return undefined; // gone meanwhile
  }
  // The command name may hold spaces and parentheses: the fields start after the last `)`.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  // Field 4 (ppid) is fields[1]; 14 (utime) and 15 (stime) are fields[11] and fields[12].
  return { ppid: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]) };
}

function residentBytes(pid: number): number {
  try {
    const text = readFileSync(`/proc/${pid}/status`, 'latin1');
    return Number(/^VmRSS:\s*(\d+)/m.exec(text)?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}
