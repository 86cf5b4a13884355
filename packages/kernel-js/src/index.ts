export type { Language } from './engine/messages.js';
export { type InstallTarget, installKernelSpecs, KernelInstallError, kernelsDir, userDataDir } from './install.js';
export { IMPLEMENTATION, IMPLEMENTATION_VERSION, kernelInfo } from './kernel-info.js';
export {
  type BuiltinKernelSpec,
  builtinKernelSpecs,
  defaultMode,
  type KernelSpecFile,
  type KernelSpecOptions,
  kernelArgv,
  kernelEntry,
} from './kernelspecs.js';
