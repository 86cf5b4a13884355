/**
 * A real JupyterHub (Debian's `jupyterhub` 3.0 and its configurable-http-proxy) for end-to-end
 * tests: every user's server is nbserve, started by `SimpleLocalProcessSpawner` as the current
 * user, and `DummyAuthenticator` lets anyone log in. Everything lives in one temp directory: the
 * hub's database, the users' homes, and an `nbserve` command on the hub's PATH that runs the CLI
 * from source (as `pnpm nbserve` does), so the spawner's command is exactly `["nbserve"]`.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { promises as fs, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { freePort } from './ports.js';
import { REPO } from './repo.js';
import { makeTempDir } from './temp.js';
import { waitForValue, within } from './wait.js';

/**
 * What the hub test configures for its spawner, and what docs/jupyterhub.md tells hub admins to
 * configure (a test compares them): the command, and the variables given to every server.
 */
export const NBSERVE_SPAWNER = {
  cmd: ['nbserve'],
  /** Names of the variables set with `c.Spawner.environment` (values differ: tests report often). */
  environment: ['JUPYTERHUB_ACTIVITY_INTERVAL'],
} as const;

export interface HubOptions {
  /** Seconds between nbserve's activity reports. */
  activityInterval: number;
  /** Users with a fixed API token each (`c.JupyterHub.api_tokens`). */
  userTokens: Record<string, string>;
  /** The token of an admin service (`e2e-admin`). */
  adminToken: string;
  /** Extra arguments for every user's nbserve (`c.Spawner.args`). */
  serverArgs?: string[];
  /** A user's server default URL (`Spawner.default_url`, which the hub passes as `JUPYTERHUB_DEFAULT_URL`). */
  defaultUrls?: Record<string, string>;
}

export interface RunningHub {
  /** The proxy's public URL, `http://127.0.0.1:<port>` (no trailing slash). */
  url: string;
  dir: string;
  /** A user's home, where the spawner starts (and nbserve serves) their server. */
  home(user: string): string;
  /** Everything the hub, the proxy and the servers printed so far. */
  logs(): string;
  /** A hub API call with the admin token: `api('users/alice')`. */
  api(relative: string, init?: RequestInit): Promise<Response>;
  /** Stops the hub (its servers and proxy with it), kills anything left, removes the temp dir. */
  stop(): Promise<void>;
}

const py = (value: unknown) => JSON.stringify(value);

/** The hub's `jupyterhub_config.py` for a run in `dir` on `ports`. */
export function hubConfig(
  dir: string,
  ports: { proxy: number; proxyApi: number; hub: number },
  options: HubOptions,
): string {
  const environment = { JUPYTERHUB_ACTIVITY_INTERVAL: String(options.activityInterval) };
  return `# Written by testing/jupyterhub.ts for one test run.
c.JupyterHub.ip = '127.0.0.1'
c.JupyterHub.port = ${ports.proxy}
c.JupyterHub.hub_ip = '127.0.0.1'
c.JupyterHub.hub_port = ${ports.hub}
c.ConfigurableHTTPProxy.api_url = 'http://127.0.0.1:${ports.proxyApi}'
c.ConfigurableHTTPProxy.pid_file = ${py(path.join(dir, 'proxy.pid'))}
c.JupyterHub.db_url = ${py(`sqlite:///${path.join(dir, 'jupyterhub.sqlite')}`)}
c.JupyterHub.cookie_secret_file = ${py(path.join(dir, 'jupyterhub_cookie_secret'))}
c.JupyterHub.authenticator_class = 'jupyterhub.auth.DummyAuthenticator'
c.JupyterHub.spawner_class = 'jupyterhub.spawner.SimpleLocalProcessSpawner'
c.SimpleLocalProcessSpawner.home_dir_template = ${py(path.join(dir, 'home', '{username}'))}
c.Spawner.cmd = ${py(NBSERVE_SPAWNER.cmd)}
c.Spawner.environment = ${py(environment)}
c.Spawner.args = ${py(options.serverArgs ?? [])}
def default_url_for(spawner):
    spawner.default_url = ${py(options.defaultUrls ?? {})}.get(spawner.user.name, '')
c.Spawner.pre_spawn_hook = default_url_for
# A loaded two-core machine: starting from TypeScript sources takes a while.
c.Spawner.start_timeout = 180
c.Spawner.http_timeout = 180
c.LocalProcessSpawner.interrupt_timeout = 30
c.JupyterHub.api_tokens = ${py(Object.fromEntries(Object.entries(options.userTokens).map(([user, token]) => [token, user])))}
c.JupyterHub.services = [{'name': 'e2e-admin', 'api_token': ${py(options.adminToken)}}]
c.JupyterHub.load_roles = [{
    'name': 'e2e-admin',
    'scopes': ['admin:users', 'admin:servers', 'read:users', 'read:servers', 'read:users:activity', 'access:servers'],
    'services': ['e2e-admin'],
}]
# Only nbserve's reports may move a server's last activity while the test runs.
c.JupyterHub.last_activity_interval = 3600
c.JupyterHub.cleanup_servers = True
c.JupyterHub.log_level = 'DEBUG'
`;
}

/** An `nbserve` command running the CLI from source with this machine's Node. */
async function writeNbserveCommand(binDir: string): Promise<void> {
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  const main = path.join(REPO, 'packages/cli/src/main.ts');
  const script = `#!/bin/sh\nexec '${process.execPath}' --conditions=@nbserve/source --import '${tsx}' '${main}' "$@"\n`;
  await fs.mkdir(binDir, { recursive: true });
  await fs.writeFile(path.join(binDir, 'nbserve'), script, { mode: 0o755 });
}

/** Live processes (zombies excluded) whose working directory is `dir` or below it. */
export function processesUnder(dir: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cwd = readlinkSync(`/proc/${name}/cwd`);
      if (cwd !== dir && !cwd.startsWith(`${dir}/`)) continue;
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) continue;
      found.push(Number(name));
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return found;
}

function exited(child: ChildProcess, timeoutMs: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  const exit = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return within(exit, timeoutMs, 'exit').then(
    () => true,
    () => false,
  );
}

/** Starts the hub and waits until its API answers through the proxy. */
export async function startHub(options: HubOptions): Promise<RunningHub> {
  const dir = await makeTempDir('nbserve-hub-');
  const ports = { proxy: await freePort(), proxyApi: await freePort(), hub: await freePort() };
  const configFile = path.join(dir, 'jupyterhub_config.py');
  await fs.writeFile(configFile, hubConfig(dir, ports, options));
  const binDir = path.join(dir, 'bin');
  await writeNbserveCommand(binDir);
  let logs = '';
  const child = spawn('jupyterhub', ['-f', configFile], {
    cwd: dir,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      PATH: `${binDir}:${process.env.PATH ?? '/usr/bin:/bin'}`,
      LANG: 'C.UTF-8',
      HOME: dir,
      // Debian's proxy finds its modules only here under this machine's Node.
      NODE_PATH: '/usr/share/nodejs',
    },
  });
  const collect = (chunk: Buffer) => {
    logs = (logs + chunk.toString('utf8')).slice(-2_000_000);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const url = `http://127.0.0.1:${ports.proxy}`;
  const api = (relative: string, init: RequestInit = {}) => {
    const headers = new Headers(init.headers);
    headers.set('Authorization', `token ${options.adminToken}`);
    return fetch(`${url}/hub/api/${relative}`, { ...init, headers, signal: AbortSignal.timeout(30_000) });
  };
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    if (child.pid !== undefined && child.exitCode === null) {
      process.kill(-child.pid, 'SIGTERM');
      if (!(await exited(child, 60_000))) process.kill(-child.pid, 'SIGKILL');
    }
    for (const pid of processesUnder(dir)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    await fs.rm(dir, { recursive: true, force: true });
  };
  try {
    await waitForValue('the hub API', 120_000, async () => {
      if (child.exitCode !== null) return 'exited';
      const response = await fetch(`${url}/hub/api`, { signal: AbortSignal.timeout(5_000) });
      return response.ok ? 'up' : undefined;
    }).then((state) => {
      if (state === 'exited') throw new Error(`jupyterhub exited with ${child.exitCode}`);
    });
  } catch (error) {
    await stop();
    throw new Error(`${(error as Error).message}\n${logs.slice(-5000)}`);
  }
  return { url, dir, home: (user) => path.join(dir, 'home', user), logs: () => logs, api, stop };
}
