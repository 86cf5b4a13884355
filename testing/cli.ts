/**
 * The real `nbserve` command in a child process, for the CLI tests: spawned from source (as
 * `pnpm nbserve`) or from a built bin, its output collected, its printed URL awaited, and every
 * run, temp dir and sandbox home cleaned up after the file (`useCliRuns`, `useCliDirs`).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { REPO } from './repo.js';
import { makeTempDir, makeTempDirSync } from './temp.js';

const MAIN = path.join(REPO, 'packages/cli/src/main.ts');

export interface Cli {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves with the printed URL (with token) once the server listens. */
  url: Promise<string>;
}

let sandbox: string | null = null;
const live = new Set<ChildProcess>();
const made: string[] = [];

/** Temp dirs for one CLI run: root, config, data, runtime; removed after the file (`useCliRuns`). */
export async function tempDirs() {
  const dir = await makeTempDir('nbserve-cli-');
  made.push(dir);
  const dirs = {
    dir,
    root: path.join(dir, 'root'),
    config: path.join(dir, 'config'),
    data: path.join(dir, 'data'),
    runtime: path.join(dir, 'runtime'),
  };
  await fs.mkdir(dirs.root);
  return dirs;
}

export type Dirs = Awaited<ReturnType<typeof tempDirs>>;

/** Kills every CLI this file started that is still running (a failed test must not leak servers). */
export function killLeftovers(): void {
  for (const child of live) child.kill('SIGKILL');
  live.clear();
}

/** After the file: kills the CLIs left running, removes the temp dirs `tempDirs` made and the sandbox home. */
export function useCliRuns(): void {
  afterAll(async () => {
    killLeftovers();
    for (const dir of made.splice(0)) await fs.rm(dir, { recursive: true, force: true });
    if (sandbox) await fs.rm(sandbox, { recursive: true, force: true });
    sandbox = null;
  });
}

/**
 * `useCliRuns`, and one set of temp dirs for the whole file: the object returned is filled in
 * before the file's first test (and before its own `beforeAll` hooks, which run after this one).
 */
export function useCliDirs(): Dirs {
  useCliRuns();
  const dirs = {} as Dirs;
  beforeAll(async () => {
    Object.assign(dirs, await tempDirs());
  });
  return dirs;
}

/** Defaults that keep a run that forgets its flags out of the real home directory. */
function sandboxEnv(): NodeJS.ProcessEnv {
  sandbox ??= makeTempDirSync('nbserve-cli-home-');
  return {
    NBSERVE_CONFIG_DIR: path.join(sandbox, 'config'),
    NBSERVE_DATA_DIR: path.join(sandbox, 'data'),
    NBSERVE_RUNTIME_DIR: path.join(sandbox, 'runtime'),
  };
}

/**
 * Spawns the real CLI from source, as `pnpm nbserve` does, or with `bin` a built entry point
 * (the bundle) with plain node, from `cwd`.
 */
export function runCli(
  args: string[],
  options: { env?: NodeJS.ProcessEnv; input?: string; bin?: string; cwd?: string } = {},
): Cli {
  const env: NodeJS.ProcessEnv = { ...process.env, ...sandboxEnv() };
  for (const name of ['NBSERVE_TOKEN', 'JUPYTER_TOKEN', 'BROWSER']) delete env[name];
  const entry = options.bin ? [options.bin] : ['--conditions=@nbserve/source', '--import', 'tsx', MAIN];
  const child = spawn(process.execPath, [...entry, ...args], {
    cwd: options.cwd ?? REPO,
    env: { ...env, ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  live.add(child);
  child.on('exit', () => live.delete(child));
  let out = '';
  let err = '';
  child.stdout?.on('data', (d) => {
    out += String(d);
  });
  child.stderr?.on('data', (d) => {
    err += String(d);
  });
  if (options.input !== undefined) child.stdin?.end(options.input);
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('exit', (code, signal) => resolve({ code, signal }));
  });
  const url = new Promise<string>((resolve, reject) => {
    const check = () => {
      const match = /(https?:\/\/\S+)/.exec(out);
      if (match?.[1]) resolve(match[1]);
    };
    child.stdout?.on('data', check);
    exit.then(() => reject(new Error(`nbserve exited before printing a URL.\nstdout: ${out}\nstderr: ${err}`)));
  });
  url.catch(() => {});
  return { child, stdout: () => out, stderr: () => err, exit, url };
}

/** The flags that keep a test run inside its temp dirs and away from the desktop. */
export function isolated(dirs: Dirs): string[] {
  return [
    `--config-dir=${dirs.config}`,
    `--data-dir=${dirs.data}`,
    `--runtime-dir=${dirs.runtime}`,
    '--no-browser',
    '--port=0',
  ];
}
