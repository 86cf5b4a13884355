import type { KernelSpecSource } from '../kernelspecs/source.js';
import { specToStart } from '../kernelspecs/source.js';
import { Kernel } from './kernel.js';
import type { KernelRecord, KernelRecords } from './kernel-records.js';
import type { KernelManager } from './manager.js';
import type { KernelProcess, KernelProvisioner } from './provisioner.js';

export interface AdoptionOptions {
  manager: KernelManager;
  kernelspecs: KernelSpecSource;
  provisioner: KernelProvisioner;
  /** Where the records live (a record of a kernel that cannot be adopted is removed). */
  records: KernelRecords;
  now?: () => Date;
  warn: (message: string) => void;
}

/**
 * Takes over the kernels an earlier server on the same runtime dir left running
 * (`--persist-kernels`): same ids, same server session and routing ids, so replies the kernels
 * still owe (a cell running across the restart) arrive here; `last_activity` as recorded, so
 * culling counts the idle time across the restart. A kernel that died meanwhile, or whose record
 * no longer names it, is dropped (its record removed, nothing signalled). Resolves with the
 * records of the kernels adopted, whose sessions the caller restores.
 */
export async function adoptKernels(found: readonly KernelRecord[], options: AdoptionOptions): Promise<KernelRecord[]> {
  const adopted = await Promise.all(found.map((record) => adoptOne(record, options).catch(() => undefined)));
  return adopted.filter((record): record is KernelRecord => record !== undefined);
}

async function adoptOne(record: KernelRecord, options: AdoptionOptions): Promise<KernelRecord | undefined> {
  const { manager, warn } = options;
  const drop = (why: string) => {
    warn(`Kernel ${record.kernelId} of an earlier server ${why}: dropped with its sessions`);
    options.records.remove(record.kernelId);
    return undefined;
  };
  let process: KernelProcess | undefined;
  try {
    process = await options.provisioner.reattach?.(record);
  } catch {
    process = undefined;
  }
  if (!process) return drop('is no longer running');
  let kernel: Kernel | undefined;
  try {
    const spec = await specToStart(options.kernelspecs, record.specName);
    const transport = await process.connected;
    kernel = new Kernel({
      id: record.kernelId,
      spec,
      cwd: record.cwd,
      env: record.env,
      now: options.now ?? (() => new Date()),
      warn,
      session: record.session,
      routingId: record.routingId,
      ...lastActivity(record.lastActivity),
    });
    kernel.adopt(process);
    kernel.connect(transport);
    kernel.executionState = record.execution ? 'busy' : 'idle';
    kernel.execution = record.execution;
    kernel.adoptClients(record.clients);
    kernel.openClients();
    manager.adopted(kernel, process);
    const execution = record.execution;
    if (execution) adoptedCells.set(kernel, { execution, ended: settleRunningCell(kernel, execution.msgId) });
  } catch (error) {
    kernel?.dispose();
    process.release?.();
    return drop(`could not be taken over (${(error as Error).message}); it is left running`);
  }
  return record;
}

/** How long an adopted kernel's running cell is awaited through the probe (its idle status settles it too). */
const PROBE_TIMEOUT_MS = 24 * 3600 * 1000;

/** The cell an adopted kernel was running when its earlier server went away (`adoptedCell`). */
export interface AdoptedCell {
  execution: NonNullable<KernelRecord['execution']>;
  /** Resolves once the cell has ended (seen here or not), or the kernel went away. */
  ended: Promise<void>;
}

const adoptedCells = new WeakMap<Kernel, AdoptedCell>();

/** The cell `kernel` was running when it was adopted; undefined for a kernel adopted idle. */
export function adoptedCell(kernel: Kernel): AdoptedCell | undefined {
  return adoptedCells.get(kernel);
}

/**
 * A cell that ended while no server was connected leaves nothing behind to say so (the kernel's
 * PUB socket dropped its `idle`, its ROUTER the reply), so the kernel would read `busy` until its
 * next run. A kernel handles shell requests one at a time, in order
 * (https://jupyter-client.readthedocs.io/en/stable/messaging.html#kernel-info): its answer to a
 * kernel_info_request sent now comes once that cell has ended, whether it ended meanwhile or ends later.
 */
async function settleRunningCell(kernel: Kernel, msgId: string): Promise<void> {
  const reply = await kernel.request('shell', 'kernel_info_request', {}, PROBE_TIMEOUT_MS);
  if (!reply || kernel.execution?.msgId !== msgId) return; // seen ending here, or gone
  kernel.execution = undefined;
  if (kernel.executionState === 'busy') kernel.executionState = 'idle';
  kernel.recordChanged();
}

function lastActivity(text: string): { lastActivity?: Date } {
  const date = new Date(text);
  return Number.isNaN(date.getTime()) ? {} : { lastActivity: date };
}
