import type { KernelManager } from '@nbserve/core';
import type { WebSocket } from 'ws';
import type { Actor } from '../audit/actor.js';
import { type FanoutOptions, KernelFanout } from './kernel-fanout.js';

/** The channels WebSocket endpoints of one server: a fan-out per kernel with open channels. */
export class ChannelsHub {
  readonly #kernels: KernelManager;
  readonly #options: FanoutOptions;
  readonly #fanouts = new Map<string, KernelFanout>();

  constructor(kernels: KernelManager, options: FanoutOptions) {
    this.#kernels = kernels;
    this.#options = options;
    kernels.onRemoved((id) => {
      this.#fanouts.get(id)?.dispose();
      this.#fanouts.delete(id);
    });
  }

  /** Hands an accepted WebSocket to the kernel's fan-out. The kernel must exist. */
  connect(kernelId: string, ws: WebSocket, sessionId: string | undefined, actor?: Actor): void {
    const kernel = this.#kernels.get(kernelId);
    let fanout = this.#fanouts.get(kernelId);
    if (!fanout || fanout.kernel !== kernel) {
      fanout = new KernelFanout(kernel, this.#options);
      this.#fanouts.set(kernelId, fanout);
    }
    fanout.attach(ws, sessionId, actor);
  }

  /** Open kernel WebSockets, for `/api/status`. */
  get connections(): number {
    let n = 0;
    for (const f of this.#fanouts.values()) n += f.connections;
    return n;
  }

  /** Disconnected sessions of a kernel kept for replay. */
  detachedSessions(kernelId: string): number {
    return this.#fanouts.get(kernelId)?.detachedSessions ?? 0;
  }

  /** Dropped client frames per kernel (bad framing, bad channel). */
  badFrames(kernelId: string): number {
    return this.#fanouts.get(kernelId)?.badFrames ?? 0;
  }

  close(): void {
    for (const fanout of this.#fanouts.values()) fanout.dispose(1001, 'Server shutting down');
    this.#fanouts.clear();
  }
}
