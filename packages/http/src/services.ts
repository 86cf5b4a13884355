import { createHash } from 'node:crypto';
import path from 'node:path';
import {
  ClusterManager,
  ConfigSections,
  ContentsManager,
  ExportManager,
  FileSystemStore,
  IpclusterProvider,
  LegacyNotebookRegistry,
  LegacyNotebooks,
  RstService,
} from '@nbserve/core';
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
  /** IPython parallel clusters behind `/clusters` and `/api/clusters`. */
  readonly clusters: ClusterManager;
  /** The formats of `/api/nbconvert` and `/nbconvert/<format>`. */
  readonly exporters: ExportManager;
  /** reStructuredText rendering for `/rstservice/render`. */
  readonly rst: RstService;
  /** The older single-directory notebook routes' view of `contents` (ids <-> top-level notebooks). */
  readonly legacyNotebooks: LegacyNotebooks;
  /** Stops everything the managers started (kernels, timers, watchers). Idempotent. */
  close(): Promise<void>;
}

export function createServices(options: NbserveOptions): Services {
  let closed = false;
  const contents = createContentsManager(options);
  const clusters = createClusterManager(options);
  return {
    options,
    auth: new Authenticator(options),
    config: new ConfigSections(options.configDir),
    activity: new Activity(),
    contents,
    clusters,
    exporters: new ExportManager({ nbconvert: options.nbconvertCommand === false ? false : nbconvertOptions(options) }),
    rst: new RstService({ docutils: options.docutilsPython === false ? false : docutilsOptions(options) }),
    legacyNotebooks: new LegacyNotebooks(contents, legacyRegistry(options)),
    identity: anonymousIdentity(),
    async close() {
      if (closed) return;
      closed = true;
      await clusters.idle(); // a stop in flight finishes; running clusters outlive the server by design
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

function createClusterManager(options: NbserveOptions): ClusterManager {
  const provider = new IpclusterProvider(options.ipclusterCommand ? { command: options.ipclusterCommand } : {});
  return new ClusterManager({
    provider,
    ...(options.profileSearchDirs ? { profileSearchDirs: options.profileSearchDirs } : {}),
  });
}

function nbconvertOptions(options: NbserveOptions): { command?: readonly string[] } {
  return Array.isArray(options.nbconvertCommand) ? { command: options.nbconvertCommand } : {};
}

function docutilsOptions(options: NbserveOptions): { python?: string } {
  return typeof options.docutilsPython === 'string' ? { python: options.docutilsPython } : {};
}

/** Legacy ids persist per contents root, so two servers on different roots never share aliases. */
function legacyRegistry(options: NbserveOptions): LegacyNotebookRegistry {
  const key = createHash('sha256').update(path.resolve(options.root)).digest('hex').slice(0, 16);
  return new LegacyNotebookRegistry({ file: path.join(options.dataDir, 'legacy-notebook-ids', `${key}.json`) });
}
