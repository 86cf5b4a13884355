import os from 'node:os';
import path from 'node:path';

type Env = Readonly<Record<string, string | undefined>>;

const FALSY = new Set(['no', 'n', 'false', 'off', '0', '0.0']);

function truthy(value: string | undefined): boolean {
  return value !== undefined && value !== '' && !FALSY.has(value.toLowerCase());
}

/** Jupyter's user data dir: `$JUPYTER_DATA_DIR`, else `$XDG_DATA_HOME/jupyter`, else `~/.local/share/jupyter`. */
export function jupyterUserDataDir(env: Env = process.env): string {
  if (env.JUPYTER_DATA_DIR) return env.JUPYTER_DATA_DIR;
  const xdg = env.XDG_DATA_HOME || path.join(os.homedir(), '.local', 'share');
  return path.join(xdg, 'jupyter');
}

/** Jupyter's runtime dir (connection files): `$JUPYTER_RUNTIME_DIR`, else `<user data dir>/runtime`. */
export function jupyterRuntimeDir(env: Env = process.env): string {
  return env.JUPYTER_RUNTIME_DIR || path.join(jupyterUserDataDir(env), 'runtime');
}

export interface KernelSpecPathOptions {
  env?: Env;
  /** An environment prefix (like Python's `sys.prefix`) whose `share/jupyter` is searched. */
  envPrefix?: string;
}

/**
 * Jupyter's data directories in its search order (`jupyter --paths`' data list, the first holding a
 * name wins): `$JUPYTER_PATH` entries, the user data dir, the env prefix (before the user dir when
 * `JUPYTER_PREFER_ENV_PATH` is truthy), `/usr/local/share/jupyter`, `/usr/share/jupyter`.
 */
export function jupyterDataDirs(options: KernelSpecPathOptions = {}): string[] {
  const env = options.env ?? process.env;
  const dataDirs: string[] = [];
  for (const entry of (env.JUPYTER_PATH ?? '').split(path.delimiter)) {
    if (entry !== '') dataDirs.push(entry.replace(/\/+$/, '') || '/');
  }
  const user = jupyterUserDataDir(env);
  const system = ['/usr/local/share/jupyter', '/usr/share/jupyter'];
  const prefix = options.envPrefix ? path.join(options.envPrefix, 'share', 'jupyter') : undefined;
  const envDirs = prefix && !system.includes(prefix) ? [prefix] : [];
  if (truthy(env.JUPYTER_PREFER_ENV_PATH)) dataDirs.push(...envDirs, user);
  else dataDirs.push(user, ...envDirs);
  dataDirs.push(...system);
  return [...new Set(dataDirs)];
}

/** The `kernels` directories of `jupyterDataDirs`, in its order. */
export function kernelSpecDirs(options: KernelSpecPathOptions = {}): string[] {
  return [...new Set(jupyterDataDirs(options).map((d) => path.join(d, 'kernels')))];
}

/** The `labextensions` directories of `jupyterDataDirs` (where JupyterLab looks for prebuilt extensions). */
export function labExtensionDirs(options: KernelSpecPathOptions = {}): string[] {
  return [...new Set(jupyterDataDirs(options).map((d) => path.join(d, 'labextensions')))];
}
