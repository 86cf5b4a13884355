import type { NbserveOptions } from './options.js';

/**
 * The core managers one nbserve instance serves. Built once from options by
 * `createServices`, or passed in by an embedder who built them itself.
 */
export interface Services {
  readonly options: Readonly<NbserveOptions>;
  /** Stops everything the managers started (kernels, timers, watchers). Idempotent. */
  close(): Promise<void>;
}

export function createServices(options: NbserveOptions): Services {
  let closed = false;
  return {
    options,
    async close() {
      if (closed) return;
      closed = true;
    },
  };
}
