import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import { builtinKernelSpecs, kernelEntry } from './kernelspecs.js';

/** Where `nbserve kernelspec install` writes, mirroring `jupyter kernelspec install` flags. */
export type InstallTarget =
  | { kind: 'system' }
  | { kind: 'user' }
  | { kind: 'sys-prefix' }
  | { kind: 'prefix'; prefix: string };

export class KernelInstallError extends Error {}

/** Jupyter's user data dir: $JUPYTER_DATA_DIR, else $XDG_DATA_HOME/jupyter, else ~/.local/share/jupyter. */
export function userDataDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.JUPYTER_DATA_DIR) return path.resolve(env.JUPYTER_DATA_DIR);
  const xdg = env.XDG_DATA_HOME || path.join(homedir(), '.local', 'share');
  return path.join(xdg, 'jupyter');
}

/** The active Python environment: a venv/conda env if one is active, else python3's sys.prefix. */
function sysPrefix(env: NodeJS.ProcessEnv): string {
  const active = env.VIRTUAL_ENV || env.CONDA_PREFIX;
  if (active) return active;
  try {
    return execFileSync('python3', ['-c', 'import sys; print(sys.prefix)'], { encoding: 'utf8', env }).trim();
  } catch {
    throw new KernelInstallError('--sys-prefix needs python3 on PATH (or an active VIRTUAL_ENV/CONDA_PREFIX)');
  }
}

export function kernelsDir(target: InstallTarget, env: NodeJS.ProcessEnv = process.env): string {
  switch (target.kind) {
    case 'user':
      return path.join(userDataDir(env), 'kernels');
    case 'prefix':
      return path.join(path.resolve(target.prefix), 'share', 'jupyter', 'kernels');
    case 'sys-prefix':
      return path.join(sysPrefix(env), 'share', 'jupyter', 'kernels');
    case 'system':
      return '/usr/local/share/jupyter/kernels';
  }
}

/**
 * Writes the `javascript` and `typescript` kernelspecs (kernel.json + logos) for other Jupyter
 * frontends. The argv points at the built kernel with this Node binary, so it works from any
 * directory; without a build there is nothing stable to point at, and that is an error.
 */
export async function installKernelSpecs(
  target: InstallTarget,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ name: string; dir: string }[]> {
  const entry = kernelEntry('dist');
  if (!existsSync(entry)) {
    throw new KernelInstallError(
      `The built kernel is missing (${entry}). Run \`pnpm build\` in the nbserve checkout first, then install again.`,
    );
  }
  const base = kernelsDir(target, env);
  const installed: { name: string; dir: string }[] = [];
  for (const builtin of builtinKernelSpecs({ mode: 'dist' })) {
    const dir = path.join(base, builtin.name);
    try {
      await mkdir(dir, { recursive: true });
      await writeFile(path.join(dir, 'kernel.json'), `${JSON.stringify(builtin.spec, null, 2)}\n`);
      for (const file of Object.values(builtin.resources)) await copyFile(file, path.join(dir, path.basename(file)));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      const hint = code === 'EACCES' || code === 'EPERM' ? ' (permission denied: try --user)' : '';
      throw new KernelInstallError(`Cannot write ${dir}${hint}: ${(error as Error).message}`);
    }
    installed.push({ name: builtin.name, dir });
  }
  return installed;
}
