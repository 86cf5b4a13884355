import { readFileSync } from 'node:fs';

const POLL_MS = 500;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  // A killed parent nobody reaped yet still answers kill(0): it is a zombie in /proc.
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true;
  }
}

/**
 * Calls `onDeath` once when the launching server is gone (`JPY_PARENT_PID`), so a server killed
 * with SIGKILL leaves no kernel behind. Also notices being re-parented away from that pid.
 */
export function watchParent(onDeath: () => void, env: NodeJS.ProcessEnv = process.env): (() => void) | undefined {
  const pid = Number(env.JPY_PARENT_PID);
  if (!Number.isInteger(pid) || pid <= 1) return undefined;
  const wasChild = process.ppid === pid;
  const timer = setInterval(() => {
    if (!alive(pid) || (wasChild && process.ppid !== pid)) {
      clearInterval(timer);
      onDeath();
    }
  }, POLL_MS);
  timer.unref();
  return () => clearInterval(timer);
}
