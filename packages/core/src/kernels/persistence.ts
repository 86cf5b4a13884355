import type { SessionRecord } from '../sessions/store.js';
import type { Kernel } from './kernel.js';
import { type KernelRecordBody, KernelRecords } from './kernel-records.js';
import { processStartTime } from './process-group.js';

/** How often kernels whose `last_activity` moved get their record rewritten (culling reads it after a restart). */
const ACTIVITY_SAVE_MS = 5000;

/**
 * Keeps the records of kernels that outlive the server (`--persist-kernels`) up to date: written
 * when a kernel is ready, when its clients, its running cell or its sessions change, and when its
 * `last_activity` moved (every few seconds); removed when it goes away. A later server on the
 * same runtime dir adopts what they describe (KernelManager.adopt).
 */
export class KernelPersistence {
  readonly records: KernelRecords;
  /** The sessions of a kernel, kept in its record (set by whoever owns the sessions). */
  sessionsOf: (kernelId: string) => SessionRecord[] = () => [];
  readonly #watched = new Map<string, { kernel: Kernel; savedActivity: number }>();
  readonly #dirty = new Set<Kernel>();
  #flushTimer: NodeJS.Timeout | undefined;
  readonly #activityTimer: NodeJS.Timeout;
  readonly #warn: (message: string) => void;

  constructor(runtimeDir: string, warn: (message: string) => void) {
    this.records = new KernelRecords(runtimeDir);
    this.#warn = warn;
    this.#activityTimer = setInterval(() => this.#saveActive(), ACTIVITY_SAVE_MS);
    this.#activityTimer.unref();
  }

  /** Writes the kernel's record now and whenever it changes from now on. */
  watch(kernel: Kernel): void {
    this.#watched.set(kernel.id, { kernel, savedActivity: 0 });
    kernel.recordChanged = () => this.save(kernel);
    this.saveNow(kernel);
  }

  /** Rewrites the record soon (changes in one turn of the event loop are written once). */
  save(kernel: Kernel): void {
    if (!this.#watched.has(kernel.id)) return;
    this.#dirty.add(kernel);
    this.#flushTimer ??= setTimeout(() => this.flush(), 0);
  }

  /** Writes every pending record now. */
  flush(): void {
    clearTimeout(this.#flushTimer);
    this.#flushTimer = undefined;
    const dirty = [...this.#dirty];
    this.#dirty.clear();
    for (const kernel of dirty) this.saveNow(kernel);
  }

  saveNow(kernel: Kernel): void {
    const watched = this.#watched.get(kernel.id);
    if (!watched || watched.kernel !== kernel) return;
    const body = this.#body(kernel);
    if (!body) return;
    try {
      this.records.write(body);
      watched.savedActivity = kernel.lastActivity.getTime();
    } catch (error) {
      this.#warn(`Could not write the record of kernel ${kernel.id}: ${(error as Error).message}`);
    }
  }

  /** The kernel went away (shut down, culled, dead): its record goes too. */
  forget(kernelId: string): void {
    const watched = this.#watched.get(kernelId);
    if (watched) watched.kernel.recordChanged = () => {};
    this.#watched.delete(kernelId);
    this.records.remove(kernelId);
  }

  /** The server stops and leaves its kernels running: every record written one last time. */
  close(): void {
    clearInterval(this.#activityTimer);
    this.#dirty.clear();
    clearTimeout(this.#flushTimer);
    for (const { kernel } of this.#watched.values()) {
      this.saveNow(kernel);
      kernel.recordChanged = () => {};
    }
    this.#watched.clear();
  }

  #saveActive(): void {
    for (const { kernel, savedActivity } of this.#watched.values()) {
      if (kernel.lastActivity.getTime() !== savedActivity) this.saveNow(kernel);
    }
  }

  #body(kernel: Kernel): KernelRecordBody | undefined {
    const process = kernel.process;
    if (!process) return undefined;
    const body: KernelRecordBody = {
      kernelId: kernel.id,
      specName: kernel.name,
      cwd: kernel.cwd,
      env: kernel.env,
      session: kernel.session,
      routingId: kernel.routingId,
      clients: kernel.clientRecords(),
      lastActivity: kernel.lastActivity.toISOString(),
      sessions: this.sessionsOf(kernel.id),
    };
    if (kernel.execution) body.execution = kernel.execution;
    if (process.remote) {
      body.remote = true;
      return body;
    }
    const connection = kernel.connectionInfo;
    if (process.pid === undefined || !connection || !process.connectionFile) return undefined;
    body.local = {
      pid: process.pid,
      startTime: processStartTime(process.pid) ?? null,
      connectionFile: process.connectionFile,
      connection,
    };
    return body;
  }
}
