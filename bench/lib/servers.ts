import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { CLI_BUNDLE } from './cli-bundle.js';
import { freePort } from './ports.js';
import { killProcessesMentioning, type Spawned, spawnGroup, stopGroup } from './processes.js';
import { REPO_ROOT, tempDir } from './workspace.js';

export type ServerKind = 'nbserve' | 'jupyter_server' | 'notebook6';

/** A running notebook server under test, in a sandbox of its own Jupyter dirs. */
export interface ServerHandle {
  kind: ServerKind;
  origin: string;
  token: string;
  pid: number;
  root: string;
  /** Where this server's kernels get their connection files (`kernel-<id>.json`). */
  runtimeDir: string;
  /** Everything the server printed (its kernels' output too). */
  logFile: string;
  /** Spawn to the first 200 from `GET /api`, in ms. */
  startupMs: number;
  process: Spawned;
  stop(): Promise<void>;
}

export interface StartOptions {
  root: string;
  /** Extra kernelspec directories (`JUPYTER_PATH`), e.g. the flood kernel's. */
  jupyterPath?: string;
  /** nbserve only: run the shipped bin (`packages/cli/dist/nbserve.js`, one bundle) with plain node instead of the sources through tsx. */
  compiled?: boolean;
  /** nbserve only: write a V8 CPU profile (`node --cpu-prof`) into this directory when the server exits. */
  profileDir?: string;
  timeoutMs?: number;
  /** Extra environment for the server (and so for what it starts: kernels, terminal shells). */
  env?: Record<string, string>;
  /** nbserve only: extra command-line flags (e.g. `--kernel-pool python3=1`). */
  args?: string[];
}

/** `NBSERVE_BENCH_CLI` benchmarks another entry point with the same flags (e.g. a bundle, or a branch's CLI). */
const SOURCE_CLI = process.env.NBSERVE_BENCH_CLI ?? join(REPO_ROOT, 'packages/cli/src/main.ts');

export async function startServer(kind: ServerKind, options: StartOptions): Promise<ServerHandle> {
  const sandbox = tempDir(`${kind}-`);
  const runtimeDir = join(sandbox, 'runtime');
  for (const dir of ['runtime', 'data', 'config', 'ipython']) mkdirSync(join(sandbox, dir), { recursive: true });
  const token = randomBytes(24).toString('hex');
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    JUPYTER_RUNTIME_DIR: runtimeDir,
    JUPYTER_DATA_DIR: join(sandbox, 'data'),
    JUPYTER_CONFIG_DIR: join(sandbox, 'config'),
    IPYTHONDIR: join(sandbox, 'ipython'),
    JUPYTER_PATH: options.jupyterPath ?? '',
    // the pyenv python3 on PATH has no ipykernel; servers must use Debian's
    PATH: `/usr/bin:${process.env.PATH ?? ''}`,
    ...options.env,
  };
  const [command, args] = commandLine(kind, { port, token, root: options.root, compiled: options.compiled ?? false });
  if (kind === 'nbserve' && options.args) args.push(...options.args);
  if (kind === 'nbserve' && options.profileDir) args.unshift('--cpu-prof', '--cpu-prof-dir', options.profileDir);
  const start = performance.now();
  const logFile = join(sandbox, 'server.log');
  const proc = spawnGroup(command, args, { cwd: REPO_ROOT, env, logFile });
  const origin = `http://127.0.0.1:${port}`;
  const stop = async () => {
    await stopGroup(proc);
    // kernels live in their own groups; their connection files sit in our runtime dir
    killProcessesMentioning(sandbox);
  };
  try {
    await waitForApi(origin, token, proc, options.timeoutMs ?? 60_000);
  } catch (error) {
    await stop();
    throw error;
  }
  const startupMs = performance.now() - start;
  return {
    kind,
    origin,
    token,
    pid: proc.pid,
    root: options.root,
    runtimeDir,
    logFile,
    startupMs,
    process: proc,
    stop,
  };
}

function commandLine(
  kind: ServerKind,
  o: { port: number; token: string; root: string; compiled: boolean },
): [string, string[]] {
  const asRoot = process.getuid?.() === 0 ? ['--allow-root'] : [];
  switch (kind) {
    case 'nbserve':
      // by default exactly what `pnpm nbserve` runs: the CLI from source through tsx, as its own process
      return [
        process.execPath,
        [
          ...(o.compiled ? [CLI_BUNDLE] : ['--conditions=@nbserve/source', '--import', 'tsx', SOURCE_CLI]),
          o.root,
          '--port',
          String(o.port),
          '--ip',
          '127.0.0.1',
          '--token',
          o.token,
          '--no-browser',
        ],
      ];
    case 'jupyter_server':
      return [
        '/usr/bin/python3',
        [
          '-m',
          'jupyter_server',
          `--ServerApp.token=${o.token}`,
          `--ServerApp.root_dir=${o.root}`,
          '--ServerApp.ip=127.0.0.1',
          `--ServerApp.port=${o.port}`,
          '--ServerApp.port_retries=0',
          '--ServerApp.open_browser=False',
          // nbserve's limits are off by default; compare like with like (and deliver every message)
          '--ServerApp.limit_rate=False',
          ...asRoot,
        ],
      ];
    case 'notebook6':
      return [
        '/usr/bin/python3',
        [
          '-m',
          'notebook',
          `--NotebookApp.token=${o.token}`,
          `--NotebookApp.notebook_dir=${o.root}`,
          '--NotebookApp.ip=127.0.0.1',
          `--NotebookApp.port=${o.port}`,
          '--NotebookApp.port_retries=0',
          '--NotebookApp.open_browser=False',
          '--NotebookApp.iopub_msg_rate_limit=0',
          '--NotebookApp.iopub_data_rate_limit=0',
          ...asRoot,
        ],
      ];
  }
}

function probe(origin: string, token: string): Promise<number> {
  return new Promise((resolve) => {
    const req = httpRequest(`${origin}/api`, { headers: { authorization: `token ${token}` }, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', () => resolve(0));
    req.setTimeout(2000, () => req.destroy());
    req.end();
  });
}

async function waitForApi(origin: string, token: string, proc: Spawned, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    if (proc.exited()) throw new Error(`exited before answering /api: ${lastLines(proc.output())}`);
    if ((await probe(origin, token)) === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`no 200 from ${origin}/api within ${timeoutMs} ms: ${lastLines(proc.output())}`);
}

function lastLines(text: string): string {
  return text.trim().split('\n').slice(-3).join(' | ').slice(0, 400);
}
