export { KernelSpecManager, type KernelSpecManagerOptions } from './manager.js';
export {
  jupyterDataDirs,
  jupyterRuntimeDir,
  jupyterUserDataDir,
  type KernelSpecPathOptions,
  kernelSpecDirs,
  labExtensionDirs,
} from './paths.js';
export type { KernelSpecListing, KernelSpecSource } from './source.js';
export {
  type BuiltinKernelSpec,
  type KernelSpec,
  type KernelSpecEntry,
  kernelNameToStart,
  normalizeKernelSpec,
  resourceKey,
  VALID_KERNEL_NAME,
} from './spec.js';
