import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import * as v from 'valibot';
import { internalError, timeoutError, unavailable } from '../errors.js';
import { isProcessAlive, runProcess } from '../util/run-process.js';
import type { ClusterProfile, ClusterProvider, ClusterState } from './types.js';

export const IPCLUSTER_INSTALL_HINT =
  'ipcluster (ipyparallel) is not installed: install it with `apt-get install python3-ipyparallel` or `pip install ipyparallel`';

export interface IpclusterProviderOptions {
  /** How to run `ipcluster`; default `/usr/bin/python3 -m ipyparallel.cluster`. */
  command?: readonly string[];
  /** Environment for ipcluster (IPYTHONDIR etc.); default the server's. */
  env?: NodeJS.ProcessEnv;
  /** Upper bound for `ipcluster start --daemonize` / `ipcluster stop`. */
  timeoutMs?: number;
}

// Only the parts of ipyparallel 7's cluster file that decide status and engine count.
const ClusterFile = v.object({
  controller: v.optional(v.nullable(v.object({ state: v.optional(v.object({ pid: v.optional(v.number()) })) }))),
  engines: v.optional(
    v.object({
      sets: v.optional(v.record(v.string(), v.object({ n: v.optional(v.number()), state: v.optional(v.string()) }))),
    }),
  ),
});

/** ipyparallel's `ipcluster`, driven through its CLI and observed through its cluster files. */
export class IpclusterProvider implements ClusterProvider {
  readonly name = 'ipcluster';
  private readonly command: readonly string[];
  private readonly env: NodeJS.ProcessEnv | undefined;
  private readonly timeoutMs: number;
  private available: Promise<void> | undefined;

  constructor(options: IpclusterProviderOptions = {}) {
    this.command = options.command ?? ['/usr/bin/python3', '-m', 'ipyparallel.cluster'];
    this.env = options.env;
    this.timeoutMs = options.timeoutMs ?? 60_000;
  }

  ensureAvailable(): Promise<void> {
    // Success is cached; a failure is probed again next time (someone may install it meanwhile).
    this.available ??= this.probe().catch((error: unknown) => {
      this.available = undefined;
      throw error;
    });
    return this.available;
  }

  private async probe(): Promise<void> {
    const result = await runProcess([...this.command, '--version'], { timeoutMs: 20_000, ...this.envOption() });
    if (result.code !== 0) {
      throw unavailable(IPCLUSTER_INSTALL_HINT, 'ipcluster not installed');
    }
  }

  async state(profile: ClusterProfile): Promise<ClusterState> {
    const fromClusterFile = await readClusterFile(profile.dir);
    if (fromClusterFile) return fromClusterFile;
    // IPython <= 3 daemonized clusters only leave a pid file behind.
    const pid = Number.parseInt(await readFile(join(profile.dir, 'pid', 'ipcluster.pid'), 'utf8').catch(() => ''), 10);
    return { running: isProcessAlive(pid) };
  }

  async start(profile: ClusterProfile, n: number | undefined): Promise<void> {
    const args = ['start', ...profileArgs(profile), '--daemonize'];
    if (n !== undefined) args.push(`--n=${n}`);
    // ipcluster returns once the controller is up and the engines are launched; its daemonized
    // children keep running (and may hold our pipes), so wait for exit, not for the pipes.
    const result = await runProcess([...this.command, ...args], {
      timeoutMs: this.timeoutMs,
      waitFor: 'exit',
      cwd: profile.dir,
      ...this.envOption(),
    });
    if (result.code !== 0) this.fail('start', profile, result.code, result.stderr, result.timedOut);
  }

  async stop(profile: ClusterProfile): Promise<void> {
    const result = await runProcess([...this.command, 'stop', ...profileArgs(profile)], {
      timeoutMs: this.timeoutMs,
      cwd: profile.dir,
      ...this.envOption(),
    });
    // 11/12: already stopped / no cluster — the goal is reached either way.
    if (result.code !== 0 && result.code !== 11 && result.code !== 12) {
      this.fail('stop', profile, result.code, result.stderr, result.timedOut);
    }
  }

  private envOption(): { env?: NodeJS.ProcessEnv } {
    return this.env ? { env: this.env } : {};
  }

  private fail(what: string, profile: ClusterProfile, code: number | null, stderr: string, timedOut: boolean): never {
    // The details (paths, Python tracebacks) go to the server log, not to the client.
    console.error(
      `[nbserve] ipcluster ${what} for profile ${profile.name} failed (code ${code}): ${stderr.slice(-2000)}`,
    );
    if (timedOut) throw timeoutError(`ipcluster ${what} timed out for profile ${profile.name}`);
    throw internalError(`ipcluster ${what} failed for profile ${profile.name}`);
  }
}

/**
 * `--profile` plus the directory holding `profile_<name>`: ipyparallel 7.1 passes only these on
 * to the controller (with `--profile-dir` the controller writes its connection files into
 * `profile_default`, where no client finds them).
 */
function profileArgs(profile: ClusterProfile): string[] {
  return [`--profile=${profile.name}`, `--ipython-dir=${dirname(profile.dir)}`];
}

/** ipyparallel 7: `security/cluster-.json` with a live `controller` means running. */
async function readClusterFile(profileDir: string): Promise<ClusterState | undefined> {
  let raw: string;
  try {
    raw = await readFile(join(profileDir, 'security', 'cluster-.json'), 'utf8');
  } catch {
    return undefined;
  }
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    return undefined; // being written right now, or corrupt: not evidence of a cluster
  }
  const parsed = v.safeParse(ClusterFile, json);
  if (!parsed.success || !parsed.output.controller) return undefined;
  const pid = parsed.output.controller.state?.pid;
  if (pid !== undefined && !isProcessAlive(pid)) return { running: false };
  const sets = Object.values(parsed.output.engines?.sets ?? {});
  const n = sets.reduce((sum, set) => sum + (set.n ?? 0), 0);
  return sets.length > 0 ? { running: true, n } : { running: true };
}
