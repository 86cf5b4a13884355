import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { type NbserveError, nbserveError } from '../errors.js';
import { adoptedProcess, recordNamesKernel } from './adopted-process.js';
import { waitForConnectionFile } from './connection-file.js';
import type { KernelRecord } from './kernel-records.js';
import type { PidRegistry } from './pid-registry.js';
import { isGroupAlive, signalGroup } from './process-group.js';
import type { ExitInfo, KernelProcess, KernelProvisioner, LaunchRequest } from './provisioner.js';
import { ZmtpTransport } from './zmtp-transport.js';

/** Process groups of kernels this process started and has not yet seen die. */
const liveGroups = new Set<number>();
let exitHookInstalled = false;

/**
 * Last resort for an exiting server (uncaught error, `process.exit`): kill every kernel group
 * synchronously. Graceful shutdown goes through KernelManager.shutdownAll() before this.
 */
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const pgid of liveGroups) signalGroup(pgid, 'SIGKILL');
  });
}

export interface LocalProvisionerOptions {
  runtimeDir: string;
  /** Persisted pid records so a later server can reap kernels this one leaves behind. */
  registry?: PidRegistry;
  /** Base environment of kernels. Default: this process's environment. */
  env?: NodeJS.ProcessEnv;
  /** Replaces `{prefix}` in argv (Python's sys.prefix in jupyter_client). */
  prefix?: string;
  /**
   * Where kernels' own stdout/stderr go: the server's (`inherit`, default, as jupyter_server:
   * crashes and warnings of kernels show in the server log), nowhere (`ignore`), or line by line
   * to a function (for a structured log, where a raw line would not parse). Only the function
   * costs pipes; the others leave an idle kernel without stream buffers in the server.
   */
  output?: 'inherit' | 'ignore' | KernelOutputSink;
  /**
   * Kernels outlive the server (`--persist-kernels`): no `JPY_PARENT_PID` (ipykernel and the
   * JavaScript kernel would exit with their parent), no kill in the exit hook.
   */
  persist?: boolean;
}

/** Receives a kernel's stdout/stderr, one line at a time (cut at 16 KiB). */
export type KernelOutputSink = (line: string, stream: 'stdout' | 'stderr', kernelId: string) => void;

const MAX_OUTPUT_LINE = 16 * 1024;

function forwardLines(input: Readable | null, stream: 'stdout' | 'stderr', kernelId: string, sink: KernelOutputSink) {
  if (!input) return;
  const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  lines.on('line', (line) => {
    if (line.trim() !== '') sink(line.slice(0, MAX_OUTPUT_LINE), stream, kernelId);
  });
}

function expandEnv(value: string, env: NodeJS.ProcessEnv): string {
  return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => env[name] ?? '');
}

/**
 * Spawns kernels as local processes. The kernel picks its own ports: it gets `-f` with a path
 * that does not exist yet, binds, and writes the connection file, which is read back — no port
 * race between choosing a port and the kernel binding it.
 */
export class LocalProvisioner implements KernelProvisioner {
  readonly #options: LocalProvisionerOptions;

  constructor(options: LocalProvisionerOptions) {
    this.#options = options;
    installExitHook();
  }

  #startError(
    request: LaunchRequest,
    what: string,
    cause?: unknown,
    kind: 'internal' | 'unavailable' | 'timeout' = 'internal',
  ): NbserveError {
    return nbserveError(kind, `Error starting kernel ${request.spec.name}: ${what}`, {
      reason: 'kernel start failed',
      cause,
    });
  }

  async launch(request: LaunchRequest): Promise<KernelProcess> {
    const { runtimeDir } = this.#options;
    mkdirSync(runtimeDir, { recursive: true, mode: 0o700 });
    const connectionFile = path.resolve(runtimeDir, `kernel-${request.kernelId}.json`);
    rmSync(connectionFile, { force: true });
    const substitutions: Record<string, string> = {
      connection_file: connectionFile,
      resource_dir: request.spec.resourceDir ?? '',
      ...(this.#options.prefix ? { prefix: this.#options.prefix } : {}),
    };
    const argv = request.spec.spec.argv.map((arg) =>
      arg.replace(/\{([a-z_]+)\}/g, (whole, key: string) => substitutions[key] ?? whole),
    );
    const baseEnv = this.#options.env ?? process.env;
    const specEnv = Object.fromEntries(
      Object.entries(request.spec.spec.env).map(([k, v]) => [k, expandEnv(v, baseEnv)]),
    );
    const env: NodeJS.ProcessEnv = { ...baseEnv, ...specEnv, ...request.env, JPY_PARENT_PID: String(process.pid) };
    if (this.#options.persist) delete env.JPY_PARENT_PID;
    const [command, ...args] = argv as [string, ...string[]];

    let child: ChildProcess;
    try {
      const output = this.#options.output ?? 'inherit';
      const stdio = typeof output === 'function' ? 'pipe' : output;
      child = spawn(command, args, { cwd: request.cwd, env, detached: true, stdio: ['ignore', stdio, stdio] });
      if (typeof output === 'function') {
        forwardLines(child.stdout, 'stdout', request.kernelId, output);
        forwardLines(child.stderr, 'stderr', request.kernelId, output);
      }
    } catch (cause) {
      throw this.#startError(request, `could not run ${command}`, cause);
    }

    const exited = new Promise<ExitInfo>((resolve) => {
      child.once('exit', (code, signal) => resolve({ code, signal }));
      child.once('error', () => resolve({ code: null, signal: null }));
    });
    const spawnFailure = new Promise<NodeJS.ErrnoException>((resolve) => child.once('error', resolve));
    const pid = child.pid;
    if (pid === undefined) {
      const error = await spawnFailure;
      const what =
        error.code === 'ENOENT' ? `${command} was not found` : `${command} could not be started (${error.code})`;
      // The program the kernelspec names is missing: an unavailable external program (503).
      throw this.#startError(request, what, error, error.code === 'ENOENT' ? 'unavailable' : 'internal');
    }
    if (!this.#options.persist) liveGroups.add(pid);
    this.#options.registry?.add(request.kernelId, pid, connectionFile);
    let dead = false;
    void exited.then(() => {
      dead = true;
    });

    const cleanupFiles = () => {
      rmSync(connectionFile, { force: true });
      this.#options.registry?.remove(request.kernelId);
    };
    const kill = async () => {
      signalGroup(pid, 'SIGKILL');
      await exited;
      // The leader is gone; take any children it left in its group with it.
      if (isGroupAlive(pid)) signalGroup(pid, 'SIGKILL');
      liveGroups.delete(pid);
      cleanupFiles();
    };

    const connected = waitForConnectionFile(connectionFile, { timeoutMs: request.timeoutMs, exited }).then(
      async (connection) => {
        if (connection === 'exited') {
          await kill();
          const exit = await exited;
          throw this.#startError(
            request,
            `the kernel process exited before it was ready (${exit.signal ? `signal ${exit.signal}` : `exit code ${exit.code}`})`,
          );
        }
        if (connection === 'timeout') {
          await kill();
          throw this.#startError(
            request,
            `no connection file after ${Math.round(request.timeoutMs / 1000)} s`,
            undefined,
            'timeout',
          );
        }
        return new ZmtpTransport(connection);
      },
    );
    // The manager awaits it; this only keeps an early failure from counting as unhandled.
    connected.catch(() => {});
    return {
      connected,
      pid,
      exited,
      connectionFile,
      isAlive: () => !dead,
      signal: (signal) => {
        if (!dead) signalGroup(pid, signal);
      },
      kill,
      release: () => {
        // Nothing of the child may keep this process from exiting.
        child.unref();
        child.stdout?.destroy();
        child.stderr?.destroy();
      },
    };
  }

  async reattach(record: KernelRecord): Promise<KernelProcess | undefined> {
    const local = record.local;
    if (!local || !recordNamesKernel(local)) return undefined;
    return adoptedProcess(record.kernelId, local, this.#options.registry);
  }
}
