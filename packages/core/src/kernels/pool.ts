import { badRequest } from '../errors.js';
import type { KernelSpecSource } from '../kernelspecs/source.js';
import { type KernelSpecEntry, kernelNameToStart } from '../kernelspecs/spec.js';
import type { Kernel } from './kernel.js';

/**
 * Environment variables a pooled kernel can be given after it started. Anything else (a
 * `PYTHONPATH`, `LD_LIBRARY_PATH`, … read when the interpreter starts) needs a fresh kernel.
 */
const HANDED_OVER_ENV = new Set(['JPY_SESSION_NAME']);

/**
 * How long after a kernel was taken the pool starts its replacement. Starting ipykernel keeps a
 * core busy for about a second; at once it would compete with the kernel just handed over (and
 * the server) while the notebook sends its first code, on a 2-core machine doubling the time to
 * the first reply. The replacement is not ready sooner than a second later either way.
 */
const REFILL_DELAY_MS = 1000;

/** Consecutive failed pool starts (or deaths in the pool) after which a pool stops refilling. */
const POOL_FAILURE_LIMIT = 5;

/**
 * Why `spec` cannot be pooled, or undefined when it can. Only ipykernel can be moved into a
 * notebook's folder after it started (a silent execute, see `handoverCode`); the built-in
 * JavaScript kernel runs user code in a worker thread, where `process.chdir` does not exist.
 */
export function whyNotPoolable(spec: KernelSpecEntry): string | undefined {
  const { language, argv } = spec.spec;
  if (language.toLowerCase() === 'python' && argv.some((arg) => /(^|[/\\.])ipykernel(_launcher)?$/.test(arg)))
    return undefined;
  return `only ipykernel (Python) kernels can be pooled: nbserve cannot move a started ${spec.name} kernel into a notebook's folder`;
}

/** Whether a start with this environment can take a pooled kernel. */
export function poolCanHonour(env: Record<string, string> | undefined): boolean {
  return Object.keys(env ?? {}).every((key) => HANDED_OVER_ENV.has(key));
}

/**
 * Python run silently in a pooled ipykernel when a notebook takes it: what jupyter_server sets at
 * launch (https://github.com/jupyter-server/jupyter_server/blob/main/jupyter_server/services/sessions/sessionmanager.py,
 * `get_kernel_env`; the working directory from `cwd_for_path`) made true afterwards. The working
 * directory; the environment (`JPY_SESSION_NAME`); `sys.path[0]`, which `python -m
 * ipykernel_launcher` set to the directory it started in; `__session__`, which ipykernel 6.23+
 * sets from `JPY_SESSION_NAME`; and IPython's directory history `_dh`. It leaves no name behind.
 * JSON string and object literals are valid Python literals.
 */
export function handoverCode(cwd: string, env: Record<string, string>, launchedIn: string): string {
  return [
    'def _nbserve_handover(cwd, env, launched):',
    '    import os, sys',
    '    os.chdir(cwd)',
    '    os.environ.update(env)',
    '    if sys.path and os.path.realpath(sys.path[0]) == os.path.realpath(launched):',
    '        sys.path[0] = cwd',
    '    ns = get_ipython().user_ns',
    "    if 'JPY_SESSION_NAME' in env:",
    "        ns['__session__'] = env['JPY_SESSION_NAME']",
    "    if isinstance(ns.get('_dh'), list):",
    "        ns['_dh'][:] = [cwd]",
    `_nbserve_handover(${JSON.stringify(cwd)}, ${JSON.stringify(env)}, ${JSON.stringify(launchedIn)})`,
    'del _nbserve_handover',
  ].join('\n');
}

/**
 * The pools of `sizes` (kernelspec name -> kernels), filling in the background; undefined for
 * none. Rejects with a bad-request error, no pool started, when a kernelspec is unknown or
 * cannot be pooled.
 */
export async function openPools(
  sizes: Readonly<Record<string, number>>,
  kernelspecs: KernelSpecSource,
  host: PoolHost,
): Promise<KernelPools | undefined> {
  const entries: { spec: KernelSpecEntry; size: number }[] = [];
  for (const [name, size] of Object.entries(sizes)) {
    const spec = await kernelspecs.get(kernelNameToStart(name)).catch(() => {
      throw badRequest(`Cannot pool kernelspec ${name}: there is no such kernelspec`, 'bad name');
    });
    entries.push({ spec, size });
  }
  return entries.length === 0 ? undefined : new KernelPools(entries, host);
}

/** What a pool needs of the kernel manager. */
export interface PoolHost {
  /** Launches an unlisted kernel in the contents root; `ready` settles once it answered kernel_info. */
  launch(spec: KernelSpecEntry): Promise<{ kernel: Kernel; ready: Promise<void> }>;
  /** Stops a kernel's process (shutdown_request, SIGTERM, SIGKILL) and disposes of it. */
  stop(kernel: Kernel): Promise<void>;
  warn(message: string): void;
  timeoutMs: number;
}

interface Pool {
  spec: KernelSpecEntry;
  size: number;
  ready: Kernel[];
  starting: number;
  failures: number;
  timer: NodeJS.Timeout | undefined;
}

/**
 * `--kernel-pool NAME=N`: N started, ready (kernel_info answered), unlisted kernels per kernelspec.
 * A start for that kernelspec takes one (moved into the notebook's folder first) and the pool
 * refills in the background. A pooled kernel that dies is replaced; after POOL_FAILURE_LIMIT
 * failures in a row the pool gives up with a warning.
 */
export class KernelPools {
  readonly #pools = new Map<string, Pool>();
  readonly #host: PoolHost;
  readonly #inFlight = new Set<Promise<unknown>>();
  /** Kernels of starts in flight whose process runs, not yet ready. */
  readonly #launched = new Set<Kernel>();
  #closed = false;

  /** Throws a bad-request error naming the kernelspec when one cannot be pooled. */
  constructor(entries: ReadonlyArray<{ spec: KernelSpecEntry; size: number }>, host: PoolHost) {
    this.#host = host;
    for (const { spec, size } of entries) {
      const why = whyNotPoolable(spec);
      if (why) throw badRequest(`Cannot pool kernelspec ${spec.name}: ${why}`, 'bad name');
      if (size > 0) this.#pools.set(spec.name, { spec, size, ready: [], starting: 0, failures: 0, timer: undefined });
    }
    for (const pool of this.#pools.values()) this.#fill(pool);
  }

  /** Pooled kernels alive now (ready or starting), by kernelspec. */
  counts(): Map<string, { ready: number; starting: number; pids: number[] }> {
    const out = new Map<string, { ready: number; starting: number; pids: number[] }>();
    for (const [name, pool] of this.#pools) {
      const pids = pool.ready.map((k) => k.process?.pid).filter((pid): pid is number => pid !== undefined);
      out.set(name, { ready: pool.ready.length, starting: pool.starting, pids });
    }
    return out;
  }

  /**
   * A ready kernel of `specName`, being moved into `cwd` with `env` set; undefined when the pool
   * has none ready, and the caller starts a fresh kernel. The handover is sent at once and
   * `handedOver` settles with its reply: until then the kernel's clients stay unconnected (what
   * they send waits, in order), so their first request runs after it, while the caller answers
   * and the client opens its WebSocket meanwhile. When it rejects, the kernel (given `cwd` and
   * `env`) must be started afresh.
   */
  take(
    specName: string,
    cwd: string,
    env: Record<string, string>,
  ): { kernel: Kernel; handedOver: Promise<void> } | undefined {
    const pool = this.#pools.get(specName);
    let kernel = pool?.ready.shift();
    while (pool && kernel && !kernel.process?.isAlive()) {
      void this.#host.stop(kernel); // died in the pool; its exit handler has not run yet
      kernel = pool.ready.shift();
    }
    if (!pool || !kernel) return undefined;
    this.#fillLater(pool, REFILL_DELAY_MS);
    const launchedIn = kernel.cwd;
    kernel.cwd = cwd;
    kernel.env = env;
    kernel.holdClients();
    const handedOver = this.#handover(kernel, cwd, env, launchedIn);
    handedOver.catch(() => {}); // the caller handles it
    return { kernel, handedOver };
  }

  async #handover(kernel: Kernel, cwd: string, env: Record<string, string>, launchedIn: string): Promise<void> {
    const content = {
      code: handoverCode(cwd, env, launchedIn),
      silent: true,
      store_history: false,
      user_expressions: {},
      allow_stdin: false,
      stop_on_error: false,
    };
    const reply = await kernel.request('shell', 'execute_request', content, this.#host.timeoutMs);
    if (!reply) throw new Error('no execute_reply');
    const status = (reply.content as { status?: unknown }).status;
    if (status !== 'ok') throw new Error(`execute_reply status ${String(status)}`);
    if (!kernel.process?.isAlive()) throw new Error('it died while handed over');
    // Shell requests are answered in order: what clients queued runs after the handover.
    kernel.openClients();
    // Its busy/idle settle the state (idle) before the kernel counts as started.
    await kernel.idleFor(reply.parent_header.msg_id, 1000);
  }

  #fill(pool: Pool): void {
    if (this.#closed || pool.timer || pool.failures >= POOL_FAILURE_LIMIT) return;
    while (pool.ready.length + pool.starting < pool.size) {
      pool.starting++;
      const started = this.#startOne(pool).finally(() => {
        pool.starting--;
        this.#inFlight.delete(started);
      });
      this.#inFlight.add(started);
    }
  }

  async #startOne(pool: Pool): Promise<void> {
    let kernel: Kernel | undefined;
    try {
      const launched = await this.#host.launch(pool.spec);
      kernel = launched.kernel;
      // Closing stops it at once rather than after it got ready.
      this.#launched.add(kernel);
      if (!this.#closed) await launched.ready;
    } catch (error) {
      if (kernel) await this.#host.stop(kernel);
      if (!this.#closed) this.#failed(pool, `failed to start: ${(error as Error).message}`);
      return;
    } finally {
      if (kernel) this.#launched.delete(kernel);
    }
    if (this.#closed) {
      await this.#host.stop(kernel);
      return;
    }
    pool.failures = 0;
    pool.ready.push(kernel);
    const process = kernel.process;
    void process?.exited.then(async () => {
      const index = pool.ready.indexOf(kernel);
      if (index < 0 || this.#closed) return; // taken (the manager watches it now) or closing
      pool.ready.splice(index, 1);
      await this.#host.stop(kernel);
      this.#failed(pool, 'died in the pool');
    });
  }

  /** One failure: warn, then refill after a back-off (1, 2, 4, 8 s), or give up at the limit. */
  #failed(pool: Pool, what: string): void {
    pool.failures++;
    const stop = pool.failures >= POOL_FAILURE_LIMIT;
    this.#host.warn(
      `A pooled ${pool.spec.name} kernel ${what}${stop ? `; the ${pool.spec.name} pool stops after ${pool.failures} failures in a row` : ''}`,
    );
    if (!stop) this.#fillLater(pool, 1000 * 2 ** (pool.failures - 1));
  }

  /** Refills after `ms`, unless a refill is already scheduled. */
  #fillLater(pool: Pool, ms: number): void {
    if (this.#closed || pool.timer) return;
    pool.timer = setTimeout(() => {
      pool.timer = undefined;
      this.#fill(pool);
    }, ms);
    pool.timer.unref();
  }

  /** Stops every pooled kernel, those still starting included; nothing refills afterwards. */
  async close(): Promise<void> {
    this.#closed = true;
    const kernels: Kernel[] = [];
    for (const pool of this.#pools.values()) {
      if (pool.timer) clearTimeout(pool.timer);
      kernels.push(...pool.ready.splice(0));
    }
    kernels.push(...this.#launched);
    await Promise.all([...kernels.map((k) => this.#host.stop(k)), ...this.#inFlight]);
  }
}
