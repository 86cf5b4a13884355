import { ConfigSections, ContentsManager, FileSystemStore } from '@nbserve/core';
import { Activity } from './activity.js';
import { Authenticator } from './auth/authenticator.js';
import { anonymousIdentity, type Identity } from './auth/identity.js';
import type { NbserveOptions } from './options.js';

/**
 * The core managers one nbserve instance serves. Built once from options by
 * `createServices`, or passed in by an embedder who built them itself.
 */
export interface Services {
  readonly options: Readonly<NbserveOptions>;
  /** Token, password and login cookies. */
  readonly auth: Authenticator;
  /** The frontend settings store behind `/api/config/<section>`. */
  readonly config: ConfigSections;
  /** Start time, last activity and live counts for `/api/status`. */
  readonly activity: Activity;
  /** The one user of this server (`/api/me`). */
  readonly identity: Identity;
  /** Files, directories, notebooks and checkpoints behind `/api/contents` and `/files`. */
  readonly contents: ContentsManager;
  /** Stops everything the managers started (kernels, timers, watchers). Idempotent. */
  close(): Promise<void>;
}

export function createServices(options: NbserveOptions): Services {
  let closed = false;
  return {
    options,
    auth: new Authenticator(options),
    config: new ConfigSections(options.configDir),
    activity: new Activity(),
    contents: createContentsManager(options),
    identity: anonymousIdentity(),
    async close() {
      if (closed) return;
      closed = true;
    },
  };
}

function createContentsManager(options: NbserveOptions): ContentsManager {
  return new ContentsManager({
    store: options.contentsStore ?? new FileSystemStore(options.root),
    ...(options.checkpointStore ? { checkpoints: options.checkpointStore } : {}),
    allowHidden: options.allowHidden,
  });
}
