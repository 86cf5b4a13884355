import type { KernelSpecEntry } from '../kernelspecs/spec.js';
import type { KernelRecord } from './kernel-records.js';
import type { KernelTransport } from './transport.js';

export interface LaunchRequest {
  kernelId: string;
  spec: KernelSpecEntry;
  /** Working directory of the kernel process. */
  cwd: string;
  /** Extra environment (e.g. `JPY_SESSION_NAME`), merged over the server env and the spec's env. */
  env: Record<string, string>;
  /** How long to wait for the kernel to publish its connection info (`KernelProcess.connected`). */
  timeoutMs: number;
}

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** One launched kernel process (or remote kernel) as the manager sees it. */
export interface KernelProcess {
  /**
   * The channels to the kernel, once it published where they are (a local kernel its ports and
   * key). Rejects with a start error (the process already killed) when the kernel exits or times
   * out first.
   */
  readonly connected: Promise<KernelTransport>;
  /** Process id (= process group id for local kernels); undefined for remote kernels. */
  readonly pid: number | undefined;
  /** Resolves once the kernel process has exited. */
  readonly exited: Promise<ExitInfo>;
  isAlive(): boolean;
  /** Sends a signal to the kernel's whole process group. */
  signal(signal: NodeJS.Signals): void;
  /** Kills what is left of the kernel (the whole group), waits for the exit, removes its files. */
  kill(): Promise<void>;
  /** Set for a kernel on another server (a gateway), which interrupts, restarts and culls it itself. */
  readonly remote?: RemoteKernel;
  /** A local kernel's connection file. */
  readonly connectionFile?: string;
  /** Lets go of the kernel, leaving it running (`--persist-kernels`, the server stopping). */
  release?(): void;
}

/**
 * What the server that runs a remote kernel does on request. Its errors name that server
 * (503 when it cannot be reached); `exited` of the process resolves once the kernel is gone there.
 */
export interface RemoteKernel {
  /** The kernel's id on the remote server. */
  readonly id: string;
  /** The remote server's URL, for messages. */
  readonly server: string;
  interrupt(): Promise<void>;
  /** Restarts in place; the process (and its connection) stays the same. */
  restart(): Promise<void>;
  /** Shuts the kernel down there; a kernel already gone counts as shut down. */
  shutdown(): Promise<void>;
}

/** Starts kernels. The local provisioner spawns processes; the gateway provisioner starts remote ones. */
export interface KernelProvisioner {
  /** Starts the kernel; resolves as soon as it runs, before it published its connection info. */
  launch(request: LaunchRequest): Promise<KernelProcess>;
  /**
   * Takes over a kernel an earlier server left running, from its record; undefined when the
   * record no longer names a running kernel (it is then left alone, never signalled).
   */
  reattach?(record: KernelRecord): Promise<KernelProcess | undefined>;
}
