export type { Language } from './engine/messages.js';
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
