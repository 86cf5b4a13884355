import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';

export interface RunOptions {
  /** Written to stdin, then stdin is closed. */
  input?: string | Uint8Array;
  timeoutMs: number;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Output beyond this many bytes per stream is dropped (the process still runs to the end). */
  maxOutputBytes?: number;
  /**
   * `exit` resolves when the process exits even if daemonized grandchildren still hold its
   * pipes open (ipcluster --daemonize); `close` waits for the pipes too.
   */
  waitFor?: 'exit' | 'close';
}

export interface RunResult {
  /** Exit code, or null when killed by a signal. */
  code: number | null;
  stdout: Buffer;
  stderr: string;
  timedOut: boolean;
  /** Set when the program could not be started at all (e.g. `ENOENT`). */
  spawnError?: string;
}

/**
 * Runs a program to completion with a hard time limit. It runs in its own process group so a
 * timeout kills everything it started, not just the first process.
 */
export function runProcess(argv: readonly string[], options: RunOptions): Promise<RunResult> {
  const [command, ...args] = argv;
  if (!command)
    return Promise.resolve({ code: null, stdout: Buffer.alloc(0), stderr: '', timedOut: false, spawnError: 'EINVAL' });
  const limit = options.maxOutputBytes ?? 64 * 1024 * 1024;
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let outBytes = 0;
    let errBytes = 0;
    let timedOut = false;
    let settled = false;
    const finish = (result: Omit<RunResult, 'stdout' | 'stderr' | 'timedOut'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...result, stdout: Buffer.concat(out), stderr: Buffer.concat(err).toString('utf8'), timedOut });
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid);
    }, options.timeoutMs);
    child.stdout.on('data', (chunk: Buffer) => {
      if (outBytes < limit) out.push(chunk);
      outBytes += chunk.length;
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (errBytes < limit) err.push(chunk);
      errBytes += chunk.length;
    });
    child.on('error', (error: NodeJS.ErrnoException) => finish({ code: null, spawnError: error.code ?? 'ESPAWN' }));
    child.on(options.waitFor ?? 'close', (code: number | null) => finish({ code }));
    child.stdin.on('error', () => {}); // the program may exit without reading its input
    child.stdin.end(options.input ?? '');
  });
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** True if a process with this pid exists and is not a zombie. */
export function isProcessAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  // A zombie still answers signal 0; on Linux its state letter in /proc says so.
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true;
  }
}
