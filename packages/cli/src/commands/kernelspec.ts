import { type InstallTarget, installKernelSpecs, KernelInstallError } from '@nbserve/kernel-js';

export interface KernelspecInstallFlags {
  user?: boolean;
  sysPrefix?: boolean;
  prefix?: string;
}

/** `nbserve kernelspec install`: writes the built-in kernels' specs for other Jupyter frontends. */
export async function runKernelspecInstall(flags: KernelspecInstallFlags): Promise<number> {
  const chosen = [flags.user, flags.sysPrefix, flags.prefix !== undefined].filter(Boolean).length;
  if (chosen > 1) {
    process.stderr.write('Use only one of --user, --sys-prefix and --prefix.\n');
    return 2;
  }
  const target: InstallTarget = flags.user
    ? { kind: 'user' }
    : flags.sysPrefix
      ? { kind: 'sys-prefix' }
      : flags.prefix !== undefined
        ? { kind: 'prefix', prefix: flags.prefix }
        : { kind: 'system' };
  try {
    for (const { name, dir } of await installKernelSpecs(target)) {
      process.stdout.write(`Installed kernelspec ${name} in ${dir}\n`);
    }
    return 0;
  } catch (error) {
    if (!(error instanceof KernelInstallError)) throw error;
    process.stderr.write(`${error.message}\n`);
    return 1;
  }
}
