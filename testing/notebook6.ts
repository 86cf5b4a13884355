/**
 * The classic Notebook 6.4 server (Debian `jupyter-notebook`) as a test counterpart: started on a
 * free port over a fresh temp notebook directory and Jupyter dirs, without a browser, with a known
 * token, and killed (its whole process group) by `stop()`. With `gatewayUrl` it runs in gateway
 * mode: it keeps the notebooks and the page, and starts and talks to kernels on that server.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { freePort } from './ports.js';
import { makeTempDir } from './temp.js';
import { waitUntil, within } from './wait.js';

export const NOTEBOOK6_TOKEN = 'n0teb00k6n0teb00k6n0teb00k6n0teb00k6n0teb00k6';

export interface Notebook6Options {
  /** `--gateway-url`: the server kernels are started on. */
  gatewayUrl?: string;
  /** `--GatewayClient.auth_token`, sent as `Authorization: token …` to the gateway. */
  gatewayToken?: string;
  /** How long to wait for the server to answer (default 90 s: it imports a lot on a loaded machine). */
  startTimeoutMs?: number;
}

export interface Notebook6 {
  /** `http://127.0.0.1:<port>/` */
  url: string;
  token: string;
  /** The notebook directory it serves. */
  notebookDir: string;
  /** What it printed so far (for failure messages). */
  output(): string;
  /** Kills it (SIGTERM, then SIGKILL to the group) and removes its temp directory. */
  stop(): Promise<void>;
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

async function exitedWithin(child: ChildProcess, ms: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return true;
  const exit = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return await within(exit, ms, 'exit').then(
    () => true,
    () => false,
  );
}

async function stopChild(child: ChildProcess): Promise<void> {
  // SIGTERM lets it shut its kernels down (on the gateway, by DELETE) before it exits.
  signalGroup(child, 'SIGTERM');
  if (!(await exitedWithin(child, 15_000))) {
    signalGroup(child, 'SIGKILL');
    await exitedWithin(child, 5_000);
  }
}

/** Starts Notebook 6.4; a port taken meanwhile by someone else is retried on another one. */
export async function startNotebook6(options: Notebook6Options = {}): Promise<Notebook6> {
  const dir = await makeTempDir('nbserve-notebook6-');
  const notebookDir = path.join(dir, 'notebooks');
  for (const sub of ['notebooks', 'config', 'data', 'runtime', 'ipython']) await fs.mkdir(path.join(dir, sub));
  const timeoutMs = options.startTimeoutMs ?? 90_000;
  const deadline = Date.now() + timeoutMs;
  let lastOutput = '';
  for (let attempt = 1; attempt <= 3; attempt++) {
    const port = await freePort();
    const args = [
      '--no-browser',
      '--allow-root',
      '--ip=127.0.0.1',
      `--port=${port}`,
      '--port-retries=0',
      `--NotebookApp.token=${NOTEBOOK6_TOKEN}`,
      `--notebook-dir=${notebookDir}`,
    ];
    if (options.gatewayUrl) args.push(`--gateway-url=${options.gatewayUrl}`);
    if (options.gatewayToken !== undefined) args.push(`--GatewayClient.auth_token=${options.gatewayToken}`);
    const child = spawn('/usr/bin/jupyter-notebook', args, {
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        HOME: dir,
        JUPYTER_CONFIG_DIR: path.join(dir, 'config'),
        JUPYTER_DATA_DIR: path.join(dir, 'data'),
        JUPYTER_RUNTIME_DIR: path.join(dir, 'runtime'),
        IPYTHONDIR: path.join(dir, 'ipython'),
        PYDEVD_DISABLE_FILE_VALIDATION: '1',
      },
    });
    const chunks: string[] = [];
    const keep = (chunk: Buffer) => {
      chunks.push(chunk.toString('utf8'));
      if (chunks.length > 400) chunks.splice(0, chunks.length - 400);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    const output = () => chunks.join('');
    const url = `http://127.0.0.1:${port}/`;
    let up = false;
    const gone = () => child.exitCode !== null || child.signalCode !== null;
    const answers = () =>
      fetch(`${url}api/status`, { headers: { Authorization: `token ${NOTEBOOK6_TOKEN}` } }).then(
        (res) => res.ok,
        () => false,
      );
    const upOrGone = async () => {
      up = !gone() && (await answers());
      return up || gone();
    };
    await waitUntil(upOrGone, {
      timeoutMs: Math.max(0, deadline - Date.now()),
      intervalMs: 250,
    });
    if (up) {
      return {
        url,
        token: NOTEBOOK6_TOKEN,
        notebookDir,
        output,
        async stop() {
          await stopChild(child);
          await fs.rm(dir, { recursive: true, force: true });
        },
      };
    }
    lastOutput = output();
    await stopChild(child);
    // Only a lost port race is worth another try; anything else fails now.
    if (Date.now() >= deadline || !/address already in use/i.test(lastOutput)) break;
  }
  await fs.rm(dir, { recursive: true, force: true });
  throw new Error(`Notebook 6.4 did not start within ${Math.round(timeoutMs / 1000)} s:\n${lastOutput.slice(-3000)}`);
}
