import type { Kernel } from './kernel.js';
import type { CullingOptions } from './manager-options.js';

/**
 * The kernels one culling pass shuts down: idle longer than the timeout, and (unless the options
 * say otherwise) without connections and not busy; never one starting or restarting, nor a
 * gateway's (a gateway culls its kernels itself). Pooled kernels are not listed, so never culled.
 */
export function idleKernels(kernels: Iterable<Kernel>, culling: CullingOptions, now: number): Kernel[] {
  const { idleTimeout, connected, busy } = culling;
  return [...kernels].filter(
    (k) =>
      now - k.lastActivity.getTime() > idleTimeout * 1000 &&
      (connected || k.connections === 0) &&
      (busy || k.executionState !== 'busy') &&
      k.executionState !== 'starting' &&
      k.executionState !== 'restarting' &&
      k.process?.remote === undefined,
  );
}

/** The timer of culling passes, or undefined when culling is off. */
export function cullingTimer(culling: CullingOptions, pass: () => void): NodeJS.Timeout | undefined {
  if (culling.idleTimeout <= 0 || culling.interval <= 0) return undefined;
  const timer = setInterval(pass, culling.interval * 1000);
  timer.unref();
  return timer;
}
