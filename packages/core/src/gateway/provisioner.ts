import { isNbserveError, unavailable } from '../errors.js';
import type { KernelRecord } from '../kernels/kernel-records.js';
import type {
  ExitInfo,
  KernelProcess,
  KernelProvisioner,
  LaunchRequest,
  RemoteKernel,
} from '../kernels/provisioner.js';
import type { KernelTransport } from '../kernels/transport.js';
import { GatewayChannel } from './channel.js';
import type { GatewayClient } from './client.js';
import { kernelStartEnv } from './env.js';
import { GatewayTransport } from './transport.js';

const DEFAULT_POLL_INTERVAL_MS = 30_000;
/** A shutdown nobody waits for (the server stopping, a failed start) gives the gateway at most this long. */
const KILL_TIMEOUT_MS = 10_000;

export interface GatewayProvisionerOptions {
  client: GatewayClient;
  /** How often the gateway is asked whether it still has this server's kernels (it culls them itself). Default 30 s. */
  pollIntervalMs?: number;
  warn: (message: string) => void;
}

function isNotFound(error: unknown): boolean {
  return isNbserveError(error) && error.kind === 'not-found';
}

/**
 * One kernel on a gateway, seen by the kernel manager as a kernel process: its transport is the
 * gateway's channels WebSocket; interrupt, restart and shutdown are the gateway's REST calls; it
 * "exits" when the gateway no longer has it.
 */
class GatewayKernel implements KernelProcess {
  readonly pid = undefined;
  readonly connected: Promise<KernelTransport>;
  readonly exited: Promise<ExitInfo>;
  readonly remote: RemoteKernel;
  readonly channel: GatewayChannel;
  readonly #client: GatewayClient;
  readonly #transport: GatewayTransport;
  readonly #path: string;
  readonly #warn: (message: string) => void;
  #exit: (info: ExitInfo) => void = () => {};
  #gone = false;
  #deleted = false;
  onGone: () => void = () => {};

  constructor(client: GatewayClient, id: string, warn: (message: string) => void) {
    this.#client = client;
    this.#warn = warn;
    this.#path = `api/kernels/${encodeURIComponent(id)}`;
    this.exited = new Promise((resolve) => {
      this.#exit = resolve;
    });
    this.channel = new GatewayChannel({
      client,
      remoteId: id,
      onMessage: (channel, raw) => this.#transport.deliver(channel, raw),
      onGone: () => this.markGone(),
      warn,
    });
    this.#transport = new GatewayTransport(this.channel);
    this.connected = Promise.resolve(this.#transport);
    this.remote = {
      id,
      server: client.name,
      interrupt: () => this.#post('interrupt', client.options.requestTimeoutMs),
      restart: () => this.#post('restart', client.startTimeoutMs),
      shutdown: () => this.#delete(client.options.requestTimeoutMs),
    };
  }

  async #post(action: 'interrupt' | 'restart', timeoutMs: number): Promise<void> {
    try {
      await this.#client.fetch(`${this.#path}/${action}`, { method: 'POST', body: {}, timeoutMs });
    } catch (error) {
      if (isNotFound(error)) this.markGone();
      throw error;
    }
  }

  async #delete(timeoutMs: number): Promise<void> {
    if (this.#deleted) return;
    try {
      await this.#client.fetch(this.#path, { method: 'DELETE', timeoutMs });
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
    this.#deleted = true;
  }

  /** Whether the gateway still has the kernel: false only when it says 404. */
  async stillThere(): Promise<boolean> {
    try {
      await this.#client.fetch(this.#path);
      return true;
    } catch (error) {
      return !isNotFound(error);
    }
  }

  isAlive(): boolean {
    return !this.#gone;
  }

  /** SIGINT is the gateway's interrupt; the gateway alone signals its kernels otherwise. */
  signal(signal: NodeJS.Signals): void {
    if (signal !== 'SIGINT') return;
    this.remote.interrupt().catch((error: Error) => this.#warn(error.message));
  }

  /** Culled, shut down or lost on the gateway: the kernel manager sees the process exit. */
  markGone(): void {
    if (this.#gone) return;
    this.#gone = true;
    this.#deleted = true;
    this.#close();
  }

  /** Lets go of the kernel, leaving it on the gateway for a later server (`--persist-kernels`). */
  release(): void {
    this.channel.close();
    this.#transport.close();
    this.onGone();
  }

  /** Shuts the kernel down on the gateway (unless it is gone already) and closes its channel. */
  async kill(): Promise<void> {
    if (!this.#gone) {
      await this.#delete(Math.min(this.#client.options.requestTimeoutMs, KILL_TIMEOUT_MS)).catch((error: Error) =>
        this.#warn(`${error.message}; kernel ${this.remote.id} may still run there`),
      );
    }
    this.#gone = true;
    this.#close();
  }

  #close(): void {
    this.channel.close();
    this.#transport.close();
    this.#exit({ code: null, signal: null });
    this.onGone();
  }
}

/**
 * Starts kernels on a Kernel or Enterprise Gateway, as jupyter_server's GatewayKernelManager
 * (https://jupyter-server.readthedocs.io/en/latest/operators/public-server.html#gateway): POST
 * `api/kernels` with the spec's name and the forwarded environment, then the channels WebSocket.
 */
export class GatewayProvisioner implements KernelProvisioner {
  readonly #options: GatewayProvisionerOptions;
  readonly #live = new Set<GatewayKernel>();
  #pollTimer: NodeJS.Timeout | undefined;
  #polling = false;

  constructor(options: GatewayProvisionerOptions) {
    this.#options = options;
  }

  async launch(request: LaunchRequest): Promise<KernelProcess> {
    const { client, warn } = this.#options;
    const env = kernelStartEnv({
      processEnv: client.options.processEnv ?? process.env,
      requestEnv: request.env,
      allowed: client.options.env ?? [],
      workingDir: request.cwd,
      launchTimeoutS: client.launchTimeoutS,
    });
    const model = await client.json('api/kernels', {
      method: 'POST',
      body: { name: request.spec.name, env },
      timeoutMs: client.startTimeoutMs,
    });
    const id = (model as { id?: unknown } | undefined)?.id;
    if (typeof id !== 'string' || id === '') {
      throw unavailable(`Gateway ${client.name} started a kernel without telling its id`);
    }
    const kernel = new GatewayKernel(client, id, warn);
    try {
      await kernel.channel.open();
    } catch (error) {
      await kernel.kill(); // nothing here may keep a kernel running on the gateway
      throw error;
    }
    return this.#track(kernel);
  }

  /** A kernel an earlier server started there, found again by its id; undefined when the gateway no longer has it. */
  async reattach(record: KernelRecord): Promise<KernelProcess | undefined> {
    if (!record.remote) return undefined;
    const kernel = new GatewayKernel(this.#options.client, record.kernelId, this.#options.warn);
    if (!(await kernel.stillThere())) return undefined;
    try {
      await kernel.channel.open();
    } catch (error) {
      kernel.release();
      if (isNotFound(error)) return undefined;
      throw error;
    }
    return this.#track(kernel);
  }

  #track(started: GatewayKernel): GatewayKernel {
    this.#live.add(started);
    started.onGone = () => {
      this.#live.delete(started);
      if (this.#live.size === 0) this.#stopPolling();
    };
    this.#startPolling();
    return started;
  }

  #startPolling(): void {
    const interval = this.#options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS;
    if (this.#pollTimer || interval <= 0) return;
    this.#pollTimer = setInterval(() => void this.poll(), interval);
    this.#pollTimer.unref();
  }

  #stopPolling(): void {
    clearInterval(this.#pollTimer);
    this.#pollTimer = undefined;
  }

  /**
   * Kernels the gateway no longer lists (culled or shut down there) and no longer has when asked
   * one by one, as upstream double-checks, are marked gone. An unreachable gateway decides nothing.
   */
  async poll(): Promise<void> {
    if (this.#polling || this.#live.size === 0) return;
    this.#polling = true;
    try {
      const listed = await this.#options.client.json('api/kernels');
      const ids = new Set(Array.isArray(listed) ? listed.map((m: { id?: unknown }) => m?.id) : []);
      for (const kernel of [...this.#live]) {
        if (ids.has(kernel.remote.id) || (await kernel.stillThere())) continue;
        this.#options.warn(`Kernel ${kernel.remote.id} is no longer on gateway ${this.#options.client.name}`);
        kernel.markGone();
      }
    } catch {
      // unreachable now; the next poll asks again
    } finally {
      this.#polling = false;
    }
  }
}
