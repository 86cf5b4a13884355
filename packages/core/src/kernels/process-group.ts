import { readdirSync, readFileSync } from 'node:fs';

/**
 * Process checks that see through zombies: after SIGKILL a child stays a zombie until reaped
 * and `kill(pid, 0)` still succeeds, so /proc/<pid>/stat is the source of truth on Linux.
 */
function procStat(pid: number): string[] | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may contain spaces.
    const after = text.slice(text.lastIndexOf(')') + 2);
    return after.split(' ');
  } catch {
    return undefined;
  }
}

const hasProc = (() => {
  try {
    readFileSync('/proc/self/stat');
    return true;
  } catch {
    return false;
  }
})();

/** True when `pid` runs and is not a zombie. */
export function isProcessAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  if (hasProc) {
    const stat = procStat(pid);
    return stat !== undefined && stat[0] !== 'Z' && stat[0] !== 'X';
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The process start time in clock ticks since boot (Linux), to tell a pid from a recycled one. */
export function processStartTime(pid: number): string | undefined {
  return procStat(pid)?.[19];
}

/**
 * True when `pid` is still the process that started at `startTime` (its /proc start time when it
 * was recorded): a recycled pid belongs to another program. Without /proc there is no way to tell,
 * so the pid is taken at its word there; with /proc an unknown start time (the process was already
 * gone when it was recorded) never matches.
 */
export function isSameProcess(pid: number, startTime: string | null): boolean {
  if (!hasProc) return true;
  return startTime !== null && processStartTime(pid) === startTime;
}

/** True when any live (non-zombie) process belongs to process group `pgid`. */
export function isGroupAlive(pgid: number): boolean {
  if (!hasProc) {
    try {
      process.kill(-pgid, 0);
      return true;
    } catch {
      return false;
    }
  }
  try {
    process.kill(-pgid, 0);
  } catch {
    return false;
  }
  // kill(-pgid, 0) succeeds for zombies too; look for a live member.
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return true;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = procStat(Number(entry));
    if (stat && Number(stat[2]) === pgid && stat[0] !== 'Z' && stat[0] !== 'X') return true;
  }
  return false;
}

/**
 * Live (non-zombie) processes of session `sid`, read from /proc: a shell's session also holds its
 * jobs, which job control puts in process groups of their own. Empty without /proc.
 */
export function sessionMembers(sid: number): number[] {
  if (!hasProc || !Number.isInteger(sid) || sid <= 0) return [];
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const members: number[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = procStat(Number(entry));
    if (stat && Number(stat[3]) === sid && stat[0] !== 'Z' && stat[0] !== 'X') members.push(Number(entry));
  }
  return members;
}

/**
 * Sends `signal` to the process group `sid` and to every process of session `sid` (the jobs of
 * a shell that leads both). Returns how many processes of the session were still live.
 */
export function signalSession(sid: number, signal: NodeJS.Signals): number {
  signalGroup(sid, signal);
  const members = sessionMembers(sid);
  for (const pid of members) {
    try {
      process.kill(pid, signal);
    } catch {
      // gone meanwhile
    }
  }
  return members.length;
}

/** Sends `signal` to every process of group `pgid`; a vanished group is not an error. */
export function signalGroup(pgid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}
