import { isNbserveError, notFound } from '../errors.js';
import { type KernelSpecEntry, kernelNameToStart } from './spec.js';

/** Every spec a source offers, by name, and the one a start without a name gets. */
export interface KernelSpecListing {
  default: string;
  kernelspecs: Record<string, KernelSpecEntry>;
}

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

/**
 * The spec a kernel start asks for (`name`, or the default), under the name it is started as.
 * Throws not-found `No such kernel named <name>` (jupyter_server's words); a gateway that cannot
 * be asked is not a missing kernelspec, and its error passes through.
 */
export async function specToStart(source: KernelSpecSource, name: string | undefined): Promise<KernelSpecEntry> {
  const wanted = kernelNameToStart(name || (await source.defaultName()));
  try {
    return await source.get(wanted);
  } catch (error) {
    if (isNbserveError(error) && error.kind !== 'not-found') throw error;
    throw notFound(`No such kernel named ${wanted}`);
  }
}
