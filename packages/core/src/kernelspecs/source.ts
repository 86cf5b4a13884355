import type { KernelSpecListing } from './manager.js';
import type { KernelSpecEntry } from './spec.js';

/**
 * Where kernelspecs come from: the disk and code (KernelSpecManager) or a gateway
 * (GatewayKernelSpecs). Routes and the kernel manager use nothing else.
 */
export interface KernelSpecSource {
  list(): Promise<KernelSpecListing>;
  /** One spec by name. Throws not-found `Kernel spec <name> not found`. */
  get(name: string): Promise<KernelSpecEntry>;
  defaultName(): Promise<string>;
  /** The bytes of a resource file of a spec (`logo-64x64.png`, `kernel.js`). Throws not-found. */
  resource(name: string, file: string): Promise<Uint8Array>;
}
