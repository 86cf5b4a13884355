import type { Activity } from '../activity.js';
import { type MetricFamily, renderExposition } from './exposition.js';
import { Histogram } from './histogram.js';
import { type PoolCounts, poolFamilies } from './pool.js';
import { processFamilies } from './process.js';
import { ResourceUsage, type UsageLimits } from './resource-usage.js';

/** The kinds of WebSocket the open-sockets gauge tells apart. */
export type WebSocketKind = 'kernel' | 'legacy_kernel' | 'terminal' | 'collaboration';

const WEBSOCKET_KINDS: readonly WebSocketKind[] = ['kernel', 'legacy_kernel', 'terminal', 'collaboration'];

/** What `trackWebSocket` needs of a socket: `ws`'s WebSocket, or anything that says when it closed. */
export interface ClosableSocket {
  once(event: 'close', listener: () => void): unknown;
}

/**
 * The numbers behind `GET /metrics`, under jupyter_server's metric and label names
 * (https://github.com/jupyter-server/jupyter_server/blob/main/jupyter_server/prometheus/metrics.py),
 * plus the process metrics Node's client exports and the open WebSockets. Counts that live
 * elsewhere are read at scrape time through the `kernelNames` and `countTerminals` hooks, which
 * the services replace, as `Activity` does for `/api/status`.
 */
export class Metrics {
  readonly #requests = new Histogram('http_request_duration_seconds', 'duration in seconds for all HTTP requests', [
    'method',
    'handler',
    'status_code',
  ]);
  readonly #sockets = new Map<WebSocketKind, number>(WEBSOCKET_KINDS.map((kind) => [kind, 0]));
  /** Every kernelspec seen running: its series stays (at 0) after its last kernel stopped, as in Python. */
  readonly #kernelTypes = new Set<string>();
  readonly #activity: Activity;

  /** The kernelspec name of every running kernel; the kernel services replace this. */
  kernelNames: () => Iterable<string> = () => [];
  /**
   * The number of running terminals. Unset while no terminal manager exists: the gauge then reads
   * 0, as jupyter_server's does with terminals disabled. A terminal manager sets it once.
   */
  countTerminals: (() => number) | undefined;
  /** `--kernel-pool`'s kernels, not yet taken; the kernel services replace this. */
  kernelPools: () => PoolCounts = () => new Map();

  /** Memory and CPU of the server, its kernels and terminals (`/api/metrics/v1` and the usage gauges). */
  readonly resources: ResourceUsage;

  constructor(activity: Activity, limits: UsageLimits) {
    this.#activity = activity;
    this.resources = new ResourceUsage(limits);
  }

  /** One finished request. `handler` is the route pattern (bounded), never the raw path. */
  observeRequest(method: string, handler: string, status: number, seconds: number): void {
    this.#requests.observe([method, handler, String(status)], seconds);
  }

  /** Counts a WebSocket as open until it closes. Call once per accepted socket. */
  trackWebSocket(kind: WebSocketKind, socket: ClosableSocket): void {
    this.#sockets.set(kind, (this.#sockets.get(kind) ?? 0) + 1);
    socket.once('close', () => {
      this.#sockets.set(kind, Math.max(0, (this.#sockets.get(kind) ?? 0) - 1));
    });
  }

  families(): MetricFamily[] {
    const kernels = new Map<string, number>();
    for (const name of this.kernelNames()) {
      this.#kernelTypes.add(name);
      kernels.set(name, (kernels.get(name) ?? 0) + 1);
    }
    const started = this.#activity.started.getTime() / 1000;
    const last = this.#activity.lastActivity.getTime() / 1000;
    const gauge = (name: string, help: string, value: number): MetricFamily => ({
      name,
      help,
      type: 'gauge',
      samples: [{ name, value }],
    });
    return [
      this.#requests.family(),
      {
        name: 'kernel_currently_running_total',
        help: 'counter for how many kernels are running labeled by type',
        type: 'gauge',
        samples: [...this.#kernelTypes].sort().map((type) => ({
          name: 'kernel_currently_running_total',
          labels: { type },
          value: kernels.get(type) ?? 0,
        })),
      },
      gauge(
        'terminal_currently_running_total',
        'counter for how many terminals are running',
        this.countTerminals?.() ?? 0,
      ),
      gauge('jupyter_server_started_timestamp_seconds', 'Timestamp of when this Jupyter Server was started', started),
      gauge(
        'jupyter_server_last_activity_timestamp_seconds',
        'Timestamp of last seen activity on this Jupyter Server',
        last,
      ),
      gauge(
        'jupyter_server_active_duration_seconds',
        'Number of seconds this Jupyter Server has been active',
        Math.max(0, last - started),
      ),
      {
        name: 'nbserve_open_websockets',
        help: 'WebSocket connections open now, by kind (kernel channels, legacy per-channel kernel sockets, terminals, shared documents)',
        type: 'gauge',
        samples: [...this.#sockets].map(([kind, value]) => ({
          name: 'nbserve_open_websockets',
          labels: { kind },
          value,
        })),
      },
      ...poolFamilies(this.kernelPools()),
      ...this.resources.families(),
      ...processFamilies(),
    ];
  }

  /** The exposition `GET /metrics` serves. */
  render(): string {
    return renderExposition(this.families());
  }
}
