import type { KernelSpecSource } from '../kernelspecs/source.js';
import type { KernelPersistence } from './persistence.js';
import type { KernelProvisioner } from './provisioner.js';

export interface CullingOptions {
  /** Seconds of inactivity after which a kernel is shut down; 0 = never (default). */
  idleTimeout: number;
  /** Seconds between culling passes. Default 300. */
  interval: number;
  /** Also cull kernels with open connections. Default false. */
  connected: boolean;
  /** Also cull busy kernels. Default false. */
  busy: boolean;
}

export interface KernelManagerOptions {
  kernelspecs: KernelSpecSource;
  provisioner: KernelProvisioner;
  /** Contents root; kernel `path` hints resolve under it. */
  rootDir: string;
  /** Time to wait for a new kernel's kernel_info_reply (and its connection file). Default 60 s. */
  kernelInfoTimeoutMs?: number;
  /** Grace for a kernel to exit after shutdown_request (half) and SIGTERM (half). Default 5 s. */
  shutdownWaitMs?: number;
  /** Restart a kernel whose process dies unexpectedly. Default true. */
  autoRestart?: boolean;
  /** Consecutive failed automatic restarts before a kernel is declared dead. Default 5. */
  restartLimit?: number;
  /** A restarted kernel that stays alive this long counts as a successful restart. Default 10 s. */
  stableStartMs?: number;
  culling?: Partial<CullingOptions>;
  /**
   * Ready kernels to keep per kernelspec name (`--kernel-pool NAME=N`), started by
   * `KernelManager.startPools()`. Only ipykernel kernelspecs can be pooled (see pool.ts).
   */
  pools?: Readonly<Record<string, number>>;
  /**
   * Kernels outlive the server (`--persist-kernels`): their records are kept up to date here, and
   * `shutdownAll()` leaves them running with their records for the next server to adopt.
   */
  persistence?: KernelPersistence;
  now?: () => Date;
  warn?: (message: string) => void;
}

export interface StartKernelOptions {
  /** A kernelspec name (case-insensitive; `python` means `python3`, as in jupyter_client). Default: the default spec. */
  name?: string | undefined;
  /** API path of the notebook/directory; sets the working directory. */
  path?: string | undefined;
  /** A client-chosen id (JS2); an already running kernel with this id is returned as is. */
  kernelId?: string | undefined;
  /** Extra environment, e.g. `JPY_SESSION_NAME`. */
  env?: Record<string, string>;
}
