/**
 * Debian's jupyter_server (1.23) as a real counterpart in tests, e.g. the gateway nbserve sends
 * kernels to: its own temp Jupyter dirs and root, a known token, a free port; `close()` stops it
 * (SIGTERM, which shuts its kernels down, then SIGKILL) and removes the temp dir.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { freePort } from './ports.js';
import { makeTempDir } from './temp.js';
import { waitUntil, within } from './wait.js';

export interface JupyterServer {
  /** `http://127.0.0.1:<port>/` */
  url: string;
  token: string;
  root: string;
  child: ChildProcess;
  /** Everything it wrote to stdout and stderr. */
  output(): string;
  close(): Promise<void>;
}

export async function startJupyterServer(options: { token?: string; timeoutMs?: number } = {}): Promise<JupyterServer> {
  const dir = await makeTempDir('nbserve-jupyter-server-');
  for (const sub of ['root', 'config', 'data', 'runtime']) await fs.mkdir(path.join(dir, sub));
  const token = options.token ?? 'jupyter-server-test-token-0123456789abcdef';
  const port = await freePort();
  const root = path.join(dir, 'root');
  const child = spawn(
    '/usr/bin/python3',
    [
      '-m',
      'jupyter_server',
      `--ServerApp.token=${token}`,
      `--ServerApp.root_dir=${root}`,
      '--ServerApp.ip=127.0.0.1',
      `--ServerApp.port=${port}`,
      '--ServerApp.port_retries=0',
      '--no-browser',
      ...(process.getuid?.() === 0 ? ['--allow-root'] : []),
    ],
    {
      cwd: root,
      env: {
        ...process.env,
        JUPYTER_CONFIG_DIR: path.join(dir, 'config'),
        JUPYTER_DATA_DIR: path.join(dir, 'data'),
        JUPYTER_RUNTIME_DIR: path.join(dir, 'runtime'),
        JUPYTER_PATH: '',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout?.on('data', (d) => {
    output += d;
  });
  child.stderr?.on('data', (d) => {
    output += d;
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}/`;
  const close = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const stopped = await within(exited, 15_000, 'jupyter_server exit').then(
        () => true,
        () => false,
      );
      if (!stopped) {
        child.kill('SIGKILL');
        await exited;
      }
    }
    await fs.rm(dir, { recursive: true, force: true });
  };
  const gone = () => child.exitCode !== null;
  const up = () =>
    fetch(`${url}api/status`, { headers: { Authorization: `token ${token}` } }).then(
      (r) => r.status === 200,
      () => false,
    );
  const timeoutMs = options.timeoutMs ?? 60_000;
  if (!(await waitUntil(async () => gone() || (await up()), { timeoutMs, intervalMs: 200 })) || gone()) {
    await close();
    throw new Error(`jupyter_server did not start:\n${output}`);
  }
  return { url, token, root, child, output: () => output, close };
}
