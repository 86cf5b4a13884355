import { readFileSync, rmSync } from 'node:fs';
import type { KernelRecord } from './kernel-records.js';
import type { PidRegistry } from './pid-registry.js';
import { isGroupAlive, isProcessAlive, isSameProcess, signalGroup } from './process-group.js';
import type { ExitInfo, KernelProcess } from './provisioner.js';
import type { ConnectionInfo } from './types.js';
import { ZmtpTransport } from './zmtp-transport.js';

/** How often an adopted kernel (not this server's child: no exit event) is checked for life. */
const POLL_MS = 500;

type LocalRecord = NonNullable<KernelRecord['local']>;

/**
 * Whether `record` still names its kernel: the same process (pid and /proc start time) running with
 * the record's connection file on its command line. A recycled pid, or a record someone wrote by
 * hand, never names another program, which is then left alone.
 */
export function recordNamesKernel(record: LocalRecord): boolean {
  if (!isProcessAlive(record.pid) || !isSameProcess(record.pid, record.startTime)) return false;
  try {
    const argv = readFileSync(`/proc/${record.pid}/cmdline`, 'utf8').split('\0');
    return argv.includes(record.connectionFile);
  } catch {
    return false;
  }
}

function connectionOf(record: LocalRecord): ConnectionInfo {
  const { kernel_name, ...ports } = record.connection;
  return kernel_name === undefined ? ports : { ...ports, kernel_name };
}

/**
 * A kernel process a previous server started and left running (`--persist-kernels`), taken over
 * from its record: its exit is noticed by polling (it is not this server's child), signals go to
 * its process group as for a kernel this server spawned.
 */
export function adoptedProcess(
  kernelId: string,
  record: LocalRecord,
  registry: PidRegistry | undefined,
): KernelProcess & { release(): void } {
  const { pid } = record;
  let dead = false;
  let settle: (info: ExitInfo) => void = () => {};
  const exited = new Promise<ExitInfo>((resolve) => {
    settle = resolve;
  });
  const timer = setInterval(() => {
    if (isProcessAlive(pid) && isSameProcess(pid, record.startTime)) return;
    dead = true;
    clearInterval(timer);
    settle({ code: null, signal: null });
  }, POLL_MS);
  timer.unref();
  registry?.add(kernelId, pid, record.connectionFile);
  return {
    connected: Promise.resolve(new ZmtpTransport(connectionOf(record))),
    pid,
    // kept so this server rewrites the kernel's record as it changes (persistence.ts)
    connectionFile: record.connectionFile,
    exited,
    isAlive: () => !dead,
    signal: (signal) => {
      if (!dead) signalGroup(pid, signal);
    },
    kill: async () => {
      if (!dead) signalGroup(pid, 'SIGKILL');
      await exited;
      if (isGroupAlive(pid)) signalGroup(pid, 'SIGKILL');
      rmSync(record.connectionFile, { force: true });
      registry?.remove(kernelId);
    },
    release: () => clearInterval(timer),
  };
}
