import { type Kernel, KernelManager, type KernelManagerOptions, type StartKernelOptions } from '@nbserve/core';
import type { Auditor } from './auditor.js';

/**
 * The kernel manager of a server with an audit log: every kernel start, restart and shutdown —
 * through `/api/kernels`, a session, the older routes or the culler — is one line, by the request
 * that caused it (`currentActor()`), or by the server itself.
 */
export class AuditedKernelManager extends KernelManager {
  readonly #audit: Auditor;

  constructor(options: KernelManagerOptions, audit: Auditor) {
    super(options);
    this.#audit = audit;
  }

  override async launch(options: StartKernelOptions = {}): Promise<Kernel> {
    return this.#started(await super.launch(options), options);
  }

  override async start(options: StartKernelOptions = {}): Promise<Kernel> {
    return this.#started(await super.start(options), options);
  }

  override async restart(id: string): Promise<Kernel> {
    const kernel = await super.restart(id);
    this.#audit.record('kernel.restart', { kernel_id: id, kernel_name: kernel.name });
    return kernel;
  }

  override async shutdown(id: string): Promise<void> {
    const name = this.has(id) ? this.get(id).name : null;
    await super.shutdown(id);
    this.#audit.record('kernel.shutdown', { kernel_id: id, kernel_name: name });
  }

  #started(kernel: Kernel, options: StartKernelOptions): Kernel {
    // `path`: the notebook or folder the client named (an API path, as in the other lines).
    this.#audit.record('kernel.start', { kernel_id: kernel.id, kernel_name: kernel.name, path: options.path ?? null });
    return kernel;
  }
}
