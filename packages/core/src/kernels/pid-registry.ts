import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { isGroupAlive, isProcessAlive, isSameProcess, processStartTime, signalGroup } from './process-group.js';

interface PidRecord {
  kernelId: string;
  /** Kernel process id; also its process group id (kernels are spawned detached). */
  pid: number;
  /** /proc start time of the kernel process, so a recycled pid is never killed. */
  startTime: string | null;
  serverPid: number;
  serverStartTime: string | null;
  connectionFile: string;
}

const PREFIX = 'nbserve-kernel-';
const SUFFIX = '.pid.json';

/**
 * A record per running kernel in the runtime dir, so kernels outliving a crashed server
 * (SIGKILL, power loss of the event loop) are found and killed at the next start. One file per
 * kernel: several servers may share the runtime dir without locking.
 */
export class PidRegistry {
  readonly dir: string;

  constructor(runtimeDir: string) {
    this.dir = runtimeDir;
  }

  #file(kernelId: string): string {
    return path.join(this.dir, `${PREFIX}${kernelId}${SUFFIX}`);
  }

  add(kernelId: string, pid: number, connectionFile: string): void {
    const record: PidRecord = {
      kernelId,
      pid,
      startTime: processStartTime(pid) ?? null,
      serverPid: process.pid,
      serverStartTime: processStartTime(process.pid) ?? null,
      connectionFile,
    };
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    writeFileSync(this.#file(kernelId), JSON.stringify(record), { mode: 0o600 });
  }

  remove(kernelId: string): void {
    rmSync(this.#file(kernelId), { force: true });
  }

  /**
   * Kills the process groups of kernels whose server is gone and removes their records and
   * connection files. Returns the ids of the kernels that were still running and were killed:
   * a kernel that had exited by itself (a zombie included), or whose pid now belongs to another
   * program, is neither killed nor counted. Records of live servers are left alone, and so are
   * the kernels named in `spare` (persisted kernels, `--persist-kernels`: adopted, never reaped).
   */
  reapOrphans(spare: ReadonlySet<string> = new Set()): string[] {
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch {
      return [];
    }
    const killed: string[] = [];
    for (const name of names) {
      if (!name.startsWith(PREFIX) || !name.endsWith(SUFFIX)) continue;
      const file = path.join(this.dir, name);
      let record: PidRecord;
      try {
        record = JSON.parse(readFileSync(file, 'utf8')) as PidRecord;
      } catch {
        rmSync(file, { force: true });
        continue;
      }
      if (!Number.isInteger(record.pid) || !Number.isInteger(record.serverPid)) {
        rmSync(file, { force: true });
        continue;
      }
      const serverAlive =
        isProcessAlive(record.serverPid) &&
        (record.serverStartTime === null || processStartTime(record.serverPid) === record.serverStartTime);
      if (serverAlive || spare.has(String(record.kernelId))) continue;
      const running =
        isSameProcess(record.pid, record.startTime) && (isProcessAlive(record.pid) || isGroupAlive(record.pid));
      if (running && signalGroup(record.pid, 'SIGKILL')) killed.push(String(record.kernelId));
      if (typeof record.connectionFile === 'string' && path.dirname(record.connectionFile) === this.dir) {
        rmSync(record.connectionFile, { force: true });
      }
      rmSync(file, { force: true });
    }
    return killed;
  }
}
