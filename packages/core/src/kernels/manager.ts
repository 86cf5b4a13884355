import { randomUUID } from 'node:crypto';
import { conflict, gone, internalError, isNbserveError, notFound, unavailable } from '../errors.js';
import { specToStart } from '../kernelspecs/source.js';
import type { KernelSpecEntry } from '../kernelspecs/spec.js';
import { cullingTimer, idleKernels } from './culling.js';
import { Kernel } from './kernel.js';
import type { CullingOptions, KernelManagerOptions, StartKernelOptions } from './manager-options.js';
import { type KernelPools, openPools, poolCanHonour } from './pool.js';
import type { KernelProcess, RemoteKernel } from './provisioner.js';
import { stopKernelProcess } from './stop-process.js';
import type { KernelModel } from './types.js';
import { resolveWorkingDir } from './working-dir.js';

export type { CullingOptions, KernelManagerOptions, StartKernelOptions } from './manager-options.js';

interface Tracking {
  startedAt: number;
  failures: number;
  /** Set while the server itself stops or restarts the process: its exit is expected. */
  expectingExit: boolean;
  /** Settles when the kernel started (or failed to): what must not reach a half-started process waits. */
  ready?: Promise<unknown>;
}

/** Starts, tracks, restarts and stops kernels. */
export class KernelManager {
  readonly #options: KernelManagerOptions;
  readonly #kernels = new Map<string, Kernel>();
  readonly #tracking = new Map<string, Tracking>();
  readonly #removedListeners = new Set<(kernelId: string) => void>();
  readonly #now: () => Date;
  readonly #warn: (message: string) => void;
  readonly #culling: CullingOptions;
  readonly #cullTimer: NodeJS.Timeout | undefined;
  readonly #starting = new Set<Promise<void>>();
  #pools: KernelPools | undefined;
  #poolsStarted: Promise<void> | undefined;
  #closed = false;

  constructor(options: KernelManagerOptions) {
    this.#options = options;
    this.#now = options.now ?? (() => new Date());
    this.#warn = options.warn ?? ((m) => console.warn(`[nbserve] ${m}`));
    this.#culling = {
      idleTimeout: options.culling?.idleTimeout ?? 0,
      interval: options.culling?.interval ?? 300,
      connected: options.culling?.connected ?? false,
      busy: options.culling?.busy ?? false,
    };
    this.#cullTimer = cullingTimer(this.#culling, () => void this.cullIdle());
  }

  get #kernelInfoTimeout(): number {
    return this.#options.kernelInfoTimeoutMs ?? 60_000;
  }

  list(): KernelModel[] {
    return [...this.#kernels.values()].map((k) => k.model());
  }

  has(id: string): boolean {
    return this.#kernels.has(id);
  }

  /** Throws not-found `Kernel does not exist: <id>`. */
  get(id: string): Kernel {
    const kernel = this.#kernels.get(id);
    if (!kernel) throw notFound(`Kernel does not exist: ${id}`);
    return kernel;
  }

  /** Called with the id of every kernel that goes away (shutdown, culled or dead). */
  onRemoved(listener: (kernelId: string) => void): () => void {
    this.#removedListeners.add(listener);
    return () => this.#removedListeners.delete(listener);
  }

  /**
   * Starts the pools of `options.pools` (filled in the background); every call returns the same
   * promise. Rejects, no pool started, when a kernelspec is unknown or cannot be pooled.
   */
  startPools(): Promise<void> {
    this.#poolsStarted ??= openPools(this.#options.pools ?? {}, this.#options.kernelspecs, {
      launch: (spec) => this.#launchUnlisted(spec),
      stop: (kernel) => this.#discard(kernel),
      warn: this.#warn,
      timeoutMs: this.#kernelInfoTimeout,
    }).then(async (pools) => {
      if (this.#closed) await pools?.close();
      else this.#pools = pools;
    });
    return this.#poolsStarted;
  }

  /** Pooled kernels (ready and starting) and the pids of the ready ones, by kernelspec. */
  poolCounts(): Map<string, { ready: number; starting: number; pids: number[] }> {
    return this.#pools?.counts() ?? new Map();
  }

  /** Stops an unlisted kernel (pooled, or taken while the server closed) and disposes of it. */
  async #discard(kernel: Kernel): Promise<void> {
    await this.#stopProcess(kernel, false);
    kernel.dispose();
  }

  /** A kernel for a pool: launched in the contents root, not listed, not tracked (the pool watches it). */
  async #launchUnlisted(spec: KernelSpecEntry): Promise<{ kernel: Kernel; ready: Promise<void> }> {
    const cwd = await resolveWorkingDir(this.#options.rootDir, undefined);
    const kernel = new Kernel({ id: randomUUID(), spec, cwd, env: {}, now: this.#now, warn: this.#warn });
    try {
      return { kernel, ready: (await this.#launch(kernel)).ready };
    } catch (error) {
      kernel.dispose();
      throw error;
    }
  }

  /** Starts a kernel and returns once it answered kernel_info. Throws when it does not start. */
  async start(options: StartKernelOptions = {}): Promise<Kernel> {
    const { kernel, ready } = await this.#track(this.#start(options));
    await ready;
    return kernel;
  }

  /**
   * Starts a kernel and returns as soon as its process runs, `execution_state` `starting`, as
   * jupyter_server 2.x answers `POST /api/kernels`
   * (https://jupyter-server.readthedocs.io/en/latest/developers/rest-api.html). It becomes `idle`
   * once it answered kernel_info; clients may connect at once: what they send waits until then.
   * A kernel that never gets ready is logged, shut down and removed (`dead`).
   */
  async launch(options: StartKernelOptions = {}): Promise<Kernel> {
    const { kernel, ready } = await this.#track(this.#start(options));
    void ready.catch((error: Error) => {
      if (!(isNbserveError(error) && error.kind === 'gone'))
        this.#warn(`Kernel ${kernel.name} (${kernel.id}) failed to start: ${error.message}`);
    });
    return kernel;
  }

  /** Keeps a start in flight (until ready or failed) for shutdownAll() to wait on. */
  async #track(
    starting: Promise<{ kernel: Kernel; ready: Promise<void> }>,
  ): Promise<{ kernel: Kernel; ready: Promise<void> }> {
    const all = starting.then(({ ready }) => ready);
    this.#starting.add(all);
    void all.catch(() => {}).finally(() => this.#starting.delete(all));
    return await starting;
  }

  async #start(options: StartKernelOptions): Promise<{ kernel: Kernel; ready: Promise<void> }> {
    if (this.#closed) throw unavailable('The server is shutting down');
    if (options.kernelId) {
      const existing = this.#kernels.get(options.kernelId);
      if (existing) return { kernel: existing, ready: Promise.resolve() };
    }
    const spec = await specToStart(this.#options.kernelspecs, options.name);
    const cwd = await resolveWorkingDir(this.#options.rootDir, options.path);
    // A pooled kernel, moved into `cwd`; a client-chosen id or an environment it cannot take starts afresh.
    const pooled =
      options.kernelId || !poolCanHonour(options.env)
        ? undefined
        : this.#pools?.take(spec.name, cwd, options.env ?? {});
    if (pooled && this.#closed) {
      await this.#discard(pooled.kernel); // taken while the server closed: it must not outlive that
      throw unavailable('The server is shutting down');
    }
    if (pooled) return this.#adoptPooled(pooled.kernel, pooled.handedOver);
    const kernel = new Kernel({
      id: options.kernelId ?? randomUUID(),
      spec,
      cwd,
      env: options.env ?? {},
      now: this.#now,
      warn: this.#warn,
    });
    this.#kernels.set(kernel.id, kernel);
    const tracking: Tracking = { startedAt: Date.now(), failures: 0, expectingExit: false };
    this.#tracking.set(kernel.id, tracking);
    let launched: { process: KernelProcess; ready: Promise<void> };
    try {
      launched = await this.#launch(kernel);
    } catch (error) {
      this.#kernels.delete(kernel.id);
      this.#tracking.delete(kernel.id);
      kernel.dispose();
      throw error;
    }
    if (this.#kernels.get(kernel.id) !== kernel) {
      // Shut down (or the server closed) while it was spawned: it must not outlive that.
      kernel.detach();
      await launched.process.kill();
      kernel.dispose();
      throw gone(`Kernel ${kernel.id} was shut down while starting`);
    }
    const { process } = launched;
    const ready = launched.ready.catch((error: unknown) => {
      // Shut down or restarted meanwhile: that is not this start failing.
      const superseded =
        this.#kernels.get(kernel.id) !== kernel || kernel.process !== process || tracking.expectingExit;
      if (superseded) throw gone(`Kernel ${kernel.id} was shut down while starting`);
      kernel.reason = `Kernel failed to start: ${(error as Error).message}`;
      this.#remove(kernel, 'dead');
      throw error;
    });
    tracking.ready = ready.catch(() => {});
    return { kernel, ready };
  }

  /**
   * Lists a kernel taken from a pool; it is ready once handed over. One whose handover failed is
   * restarted in place (a fresh process in its notebook's folder, with its environment).
   */
  #adoptPooled(kernel: Kernel, handedOver: Promise<void>): { kernel: Kernel; ready: Promise<void> } {
    this.#kernels.set(kernel.id, kernel);
    const ready = handedOver.catch(async (error: Error) => {
      this.#warn(`A pooled ${kernel.name} kernel could not be handed over (${error.message}): starting a fresh one`);
      await this.restart(kernel.id);
    });
    this.#tracking.set(kernel.id, { startedAt: Date.now(), failures: 0, expectingExit: false, ready });
    return { kernel, ready };
  }

  /**
   * Launches the kernel's process; `ready` settles once it published its connection and answered
   * kernel_info (rejecting, the process killed, when it does not).
   */
  async #launch(kernel: Kernel): Promise<{ process: KernelProcess; ready: Promise<void> }> {
    const process = await this.#options.provisioner.launch({
      kernelId: kernel.id,
      spec: kernel.spec,
      cwd: kernel.cwd,
      env: kernel.env,
      timeoutMs: this.#kernelInfoTimeout,
    });
    kernel.adopt(process);
    if (process.remote && process.remote.id !== kernel.id) this.#rename(kernel, process.remote.id);
    const ready = this.#connect(kernel, process);
    // Awaited by every caller; this only keeps a failure before that from counting as unhandled.
    ready.catch(() => {});
    return { process, ready };
  }

  /** A gateway kernel goes by the gateway's id, as in jupyter_server's GatewayKernelManager. */
  #rename(kernel: Kernel, id: string): void {
    const listed = this.#kernels.get(kernel.id) === kernel;
    const tracking = this.#tracking.get(kernel.id);
    if (listed) this.#kernels.delete(kernel.id);
    this.#tracking.delete(kernel.id);
    kernel.id = id;
    if (listed) this.#kernels.set(id, kernel);
    if (tracking) this.#tracking.set(id, tracking);
  }

  async #connect(kernel: Kernel, process: KernelProcess): Promise<void> {
    try {
      const transport = await process.connected;
      if (kernel.process !== process) throw gone(`Kernel ${kernel.id} was restarted while starting`);
      kernel.connect(transport);
      await kernel.waitReady(this.#kernelInfoTimeout);
    } catch (error) {
      if (kernel.process === process) kernel.detach();
      await process.kill();
      throw error;
    }
    const tracking = this.#tracking.get(kernel.id);
    if (tracking) tracking.startedAt = Date.now();
    if (this.#kernels.get(kernel.id) === kernel) this.#options.persistence?.watch(kernel);
    void process.exited.then(() => this.#onExit(kernel, process));
  }

  /** Lists a kernel an earlier server left running (adoption.ts): tracked from now on like any other. */
  adopted(kernel: Kernel, process: KernelProcess): void {
    if (this.#closed || this.#kernels.has(kernel.id)) throw conflict(`Kernel ${kernel.id} is already running here`);
    this.#kernels.set(kernel.id, kernel);
    this.#tracking.set(kernel.id, { startedAt: Date.now(), failures: 0, expectingExit: false });
    this.#options.persistence?.watch(kernel);
    void process.exited.then(() => this.#onExit(kernel, process));
  }

  async interrupt(id: string): Promise<void> {
    const remote = this.get(id).process?.remote;
    // A gateway interrupts its own kernels (and may be down: that must fail now, not after a start timeout).
    if (remote) return remote.interrupt();
    // SIGINT to a kernel still importing its modules kills it: interrupt once it is ready.
    await this.#tracking.get(id)?.ready;
    const kernel = this.get(id);
    if (kernel.spec.spec.interrupt_mode === 'message') {
      // Not awaited: REST answers at once, as upstream.
      void kernel.request('control', 'interrupt_request', {}, this.#kernelInfoTimeout);
    } else {
      kernel.process?.signal('SIGINT');
    }
  }

  /** Restarts a kernel in place (same id); returns once the new process answered kernel_info. */
  async restart(id: string): Promise<Kernel> {
    const kernel = this.get(id);
    const tracking = this.#tracking.get(id);
    if (!tracking || tracking.expectingExit) throw conflict(`Kernel ${id} is already restarting`);
    const remote = kernel.process?.remote;
    if (remote) return this.#restartRemote(kernel, tracking);
    tracking.expectingExit = true;
    try {
      await this.#stopProcess(kernel, true);
      kernel.executionState = 'starting';
      await (await this.#launch(kernel)).ready;
      tracking.failures = 0;
    } catch (error) {
      this.#remove(kernel, 'dead');
      throw internalError(`Exception restarting kernel: ${(error as Error).message}`, { cause: error });
    } finally {
      tracking.expectingExit = false;
    }
    return kernel;
  }

  async shutdown(id: string): Promise<void> {
    await this.#shutdown(id, true);
  }

  /** `strict`: a gateway that cannot be reached fails the shutdown and the kernel stays listed. */
  async #shutdown(id: string, strict: boolean): Promise<void> {
    const kernel = this.get(id);
    // Otherwise stopping the process asks the gateway too, and only warns when it cannot.
    if (strict) await kernel.process?.remote?.shutdown();
    const tracking = this.#tracking.get(id);
    if (tracking) tracking.expectingExit = true;
    this.#kernels.delete(id);
    try {
      await this.#stopProcess(kernel, false);
    } finally {
      this.#remove(kernel, undefined);
    }
  }

  /** Shuts every kernel down (with persistence: leaves them running, recorded); refuses new ones afterwards. */
  async shutdownAll(): Promise<void> {
    this.#closed = true;
    if (this.#cullTimer) clearInterval(this.#cullTimer);
    const persistence = this.#options.persistence;
    if (persistence) {
      persistence.close();
      for (const kernel of this.#kernels.values()) {
        kernel.dispose();
        kernel.process?.release?.();
      }
      this.#kernels.clear();
      this.#tracking.clear();
    }
    await Promise.all([
      ...[...this.#kernels.keys()].map((id) => this.#shutdown(id, false).catch(() => {})),
      this.#poolsStarted?.catch(() => {}).then(() => this.#pools?.close()),
    ]);
    // Starts in flight notice the shutdown and kill their process; wait for that too.
    await Promise.allSettled([...this.#starting]);
  }

  /** One culling pass (also run by the timer). Returns the ids shut down. */
  async cullIdle(): Promise<string[]> {
    const { idleTimeout } = this.#culling;
    if (idleTimeout <= 0) return [];
    const victims = idleKernels(this.#kernels.values(), this.#culling, this.#now().getTime());
    for (const k of victims) this.#warn(`Culling kernel ${k.name} (${k.id}): idle for more than ${idleTimeout} s`);
    await Promise.all(victims.map((k) => this.shutdown(k.id).catch(() => {})));
    return victims.map((k) => k.id);
  }

  /** A restart the gateway does in place; the kernel keeps its bridge, clients and id. */
  async #restartRemote(kernel: Kernel, tracking: Tracking): Promise<Kernel> {
    const remote = kernel.process?.remote as RemoteKernel;
    tracking.expectingExit = true;
    const before = kernel.executionState;
    try {
      kernel.executionState = 'restarting';
      await remote.restart();
      await kernel.waitReady(this.#kernelInfoTimeout);
    } catch (error) {
      if (kernel.executionState === 'restarting') kernel.executionState = before;
      throw error;
    } finally {
      tracking.expectingExit = false;
      // Gone while restarting: the exit was expected, so nobody else removes it.
      if (!kernel.process?.isAlive() && this.#kernels.get(kernel.id) === kernel) this.#remove(kernel, 'dead');
    }
    return kernel;
  }

  #stopProcess(kernel: Kernel, restart: boolean): Promise<void> {
    return stopKernelProcess(kernel, restart, this.#options.shutdownWaitMs ?? 5000);
  }

  #remove(kernel: Kernel, finalState: 'dead' | undefined): void {
    if (finalState) {
      kernel.executionState = finalState;
      kernel.emitLifecycle('dead');
    }
    this.#kernels.delete(kernel.id);
    this.#tracking.delete(kernel.id);
    this.#options.persistence?.forget(kernel.id);
    kernel.dispose();
    for (const listener of this.#removedListeners) listener(kernel.id);
  }

  /** The process died without being asked: restart it, or give up after too many failures. */
  async #onExit(kernel: Kernel, process: KernelProcess): Promise<void> {
    const tracking = this.#tracking.get(kernel.id);
    if (!tracking || tracking.expectingExit || kernel.process !== process || this.#closed) return;
    tracking.expectingExit = true;
    kernel.detach();
    await process.kill();
    if (process.remote) {
      // The gateway restarts its kernels itself; one it no longer has is gone for good.
      this.#warn(`Kernel ${kernel.id} (${process.remote.id} on ${process.remote.server}) is gone from there`);
      kernel.reason = 'Kernel is gone from the gateway';
      this.#remove(kernel, 'dead');
      return;
    }
    const autoRestart = this.#options.autoRestart ?? true;
    const limit = this.#options.restartLimit ?? 5;
    const stable = this.#options.stableStartMs ?? 10_000;
    // A kernel that ran for a while before dying starts a fresh count.
    tracking.failures = Date.now() - tracking.startedAt >= stable ? 1 : tracking.failures + 1;
    this.#warn(`Kernel ${kernel.name} (${kernel.id}) died unexpectedly`);
    if (!autoRestart || tracking.failures > limit) {
      kernel.reason = 'Kernel died and could not be restarted';
      this.#remove(kernel, 'dead');
      return;
    }
    kernel.executionState = 'restarting';
    kernel.emitLifecycle('restarting');
    while (!this.#closed && this.#kernels.has(kernel.id)) {
      try {
        await (await this.#launch(kernel)).ready;
        tracking.expectingExit = false;
        kernel.emitLifecycle('restarted');
        return;
      } catch (error) {
        tracking.failures++;
        this.#warn(`Restarting kernel ${kernel.id} failed: ${(error as Error).message}`);
        if (tracking.failures > limit) {
          kernel.reason = 'Kernel died and could not be restarted';
          this.#remove(kernel, 'dead');
          return;
        }
      }
    }
  }
}
