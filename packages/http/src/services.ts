import { createHash } from 'node:crypto';
import path from 'node:path';
import {
  type CellExecutor,
  ClusterManager,
  type CollaborationManager,
  ConfigSections,
  ContentsManager,
  EventBus,
  ExportManager,
  FileSignatureStore,
  FileSystemStore,
  GatewayClient,
  GatewayKernelSpecs,
  GatewayProvisioner,
  IpclusterProvider,
  KernelManager,
  type KernelManagerOptions,
  KernelPersistence,
  type KernelProvisioner,
  KernelSpecManager,
  type KernelSpecSource,
  LegacyNotebookRegistry,
  LegacyNotebooks,
  LentBuffers,
  LocalProvisioner,
  loadOrCreateSecret,
  MemorySessionStore,
  NotebookNotary,
  PidRegistry,
  RstService,
  SessionManager,
  sweepOrphanTemps,
} from '@nbserve/core';
import { builtinKernelSpecs } from '@nbserve/kernel-js';
import { Activity } from './activity.js';
import { AuditedKernelManager } from './audit/audited-kernels.js';
import { Auditor } from './audit/auditor.js';
import { auditContents } from './audit/contents.js';
import { executeRecorder } from './audit/execute.js';
import { Authenticator } from './auth/authenticator.js';
import { HubAuth } from './auth/hub/hub-auth.js';
import { anonymousIdentity, type Identity, namedIdentity } from './auth/identity.js';
import { adoptPersistedKernels, resumeCellRuns } from './kernel-adoption.js';
import { createLabServices, type LabServices } from './lab/lab-services.js';
import { Metrics } from './metrics/metrics.js';
import type { NbserveOptions } from './options.js';
import { createTerminalServices, type TerminalServices } from './terminal-services.js';
import { SOCKET_HIGH_WATER_BYTES, SOCKET_OVERFLOW_BYTES } from './ws/channel-socket.js';
import { ChannelsHub } from './ws/channels-hub.js';

/**
 * The core managers one nbserve instance serves. Built once from options by
 * `createServices`, or passed in by an embedder who built them itself.
 */
export interface Services {
  readonly options: Readonly<NbserveOptions>;
  /** Token, password and login cookies. */
  readonly auth: Authenticator;
  /** JupyterHub's OAuth login, tokens and activity reports, in hub mode; else `null`. */
  readonly hub: HubAuth | null;
  /** The frontend settings store behind `/api/config/<section>`. */
  readonly config: ConfigSections;
  /** Start time, last activity and live counts for `/api/status`. */
  readonly activity: Activity;
  /** The audit log (`--audit-log`): who did what; `null` when off. */
  readonly audit: Auditor | null;
  /** Request durations, running kernels and terminals, open WebSockets for `/metrics`. */
  readonly metrics: Metrics;
  /** The one user of this server (`/api/me`). */
  readonly identity: Identity;
  /** Files, directories, notebooks and checkpoints behind `/api/contents` and `/files`. */
  readonly contents: ContentsManager;
  /** The big buffers this server lends: request bodies are read into them, `contents` reads and saves in them. */
  readonly lent: LentBuffers;
  /** IPython parallel clusters behind `/clusters` and `/api/clusters`. */
  readonly clusters: ClusterManager;
  /** The formats of `/api/nbconvert` and `/nbconvert/<format>`. */
  readonly exporters: ExportManager;
  /** reStructuredText rendering for `/rstservice/render`. */
  readonly rst: RstService;
  /** The older single-directory notebook routes' view of `contents` (ids <-> top-level notebooks). */
  readonly legacyNotebooks: LegacyNotebooks;
  /** Kernelspecs on disk and built in (or a gateway's), behind `/api/kernelspecs`. */
  readonly kernelspecs: KernelSpecSource;
  /** Running kernels behind `/api/kernels`. */
  readonly kernels: KernelManager;
  /** Settles once the kernels an earlier server left running are adopted (`--persist-kernels`); `serve()` waits for it. */
  readonly kernelsAdopted: Promise<void>;
  /** Path <-> kernel bindings behind `/api/sessions`. */
  readonly sessions: SessionManager;
  /** The kernel channels WebSockets (fan-out, replay buffers). */
  readonly channels: ChannelsHub;
  /**
   * Terminals behind `/api/terminals` and their WebSockets, built on first use (the first page or
   * terminal request: the pty module costs ~15 ms and ~3 MB, which an API-only server never pays);
   * `null` when they are off (`terminals: false`, or no pseudo-terminals on this machine).
   */
  readonly terminals: TerminalServices | null;
  /**
   * Live documents (docs/collaboration.md): the shared documents and the server-side cell runs,
   * loaded and built on first use (Yjs and its kin are a third of the server's code, which a start
   * would otherwise compile); `null` when collaboration is off (`collaboration: false`).
   */
  readonly collaboration: Promise<CollaborationServices> | null;
  /** JupyterLab's server side (`/lab`, `/lab/api/…`), reading nothing before its first request. */
  readonly lab: LabServices;
  /** jupyter_server's event bus (`/api/events/subscribe`): contents events. */
  readonly events: EventBus;
  /** Stops everything the managers started (kernels, timers, watchers). Idempotent. */
  close(): Promise<void>;
}

export interface CollaborationServices {
  readonly documents: CollaborationManager;
  readonly executor: CellExecutor;
  /** The room WebSocket's close codes (jupyter-collaboration's). */
  readonly closeCodes: typeof import('@nbserve/core/collaboration').ROOM_CLOSE_CODES;
}

/** How long after start the temp files of interrupted saves are swept. */
const SWEEP_DELAY_MS = 1000;

export function createServices(options: NbserveOptions): Services {
  let closed = false;
  let collaboration: Promise<CollaborationServices> | null | undefined;
  const lent = new LentBuffers();
  const contents = createContentsManager(options, lent);
  // Not before the first requests: on a big root the walk would compete with them.
  setTimeout(() => {
    if (!closed) sweepOrphanTempFiles(options);
  }, SWEEP_DELAY_MS).unref();
  // Managers no first request needs are built on first use, so start-up does no work for them.
  let clusters: ClusterManager | undefined;
  let exporters: ExportManager | undefined;
  let rst: RstService | undefined;
  let legacyNotebooks: LegacyNotebooks | undefined;
  let terminals: TerminalServices | null | undefined;
  let lab: LabServices | undefined;
  const activity = new Activity();
  // First: a log that cannot be written stops the start before anything is started.
  const audit = options.auditLog ? new Auditor({ ...options, auditLog: options.auditLog }) : null;
  const { kernelspecs, kernels, sessions, channels, adopted, persistence } = createKernelServices(
    options,
    activity,
    audit,
  );
  activity.countKernels = () => kernels.list().length;
  activity.countConnections = () => channels.connections;
  const metrics = new Metrics(activity, options);
  metrics.resources.kernels = () =>
    kernels
      .list()
      .map(({ id, name }) => ({ id, name, pid: kernels.has(id) ? kernels.get(id).process?.pid : undefined }));
  metrics.kernelNames = () => kernels.list().map((kernel) => kernel.name);
  metrics.kernelPools = () => kernels.poolCounts();
  // Read without the getter below, so a scrape does not create the terminals.
  metrics.countTerminals = () => (terminals ? terminals.manager.list().length : 0);
  const hub = options.hub ? new HubAuth(options.hub, { logger: options.logger }) : null;
  const services: Services = {
    options,
    auth: new Authenticator(options),
    hub,
    config: new ConfigSections(options.configDir),
    activity,
    audit,
    metrics,
    contents,
    lent,
    get clusters() {
      clusters ??= createClusterManager(options);
      return clusters;
    },
    get exporters() {
      exporters ??= new ExportManager({
        nbconvert: options.nbconvertCommand === false ? false : nbconvertOptions(options),
        // Built-ins only: no PDF printed by Chromium either.
        ...(options.nbconvertCommand === false ? { pdf: false as const } : {}),
      });
      return exporters;
    },
    get rst() {
      rst ??= new RstService({ docutils: options.docutilsPython === false ? false : docutilsOptions(options) });
      return rst;
    },
    get legacyNotebooks() {
      legacyNotebooks ??= new LegacyNotebooks(contents, legacyRegistry(options));
      return legacyNotebooks;
    },
    identity: hub ? namedIdentity(hub.config.user) : anonymousIdentity(),
    kernelspecs,
    kernels,
    kernelsAdopted: adopted,
    sessions,
    channels,
    get terminals() {
      if (terminals === undefined) {
        terminals = closed ? null : createTerminalServices(options, activity);
        // Every end is a stop: a DELETE (its request's actor), a shell that exits, a cull (the server's).
        if (audit) terminals?.manager.onRemoved((name) => audit.record('terminal.stop', { terminal: name }));
      }
      return terminals;
    },
    get collaboration() {
      if (collaboration === undefined) {
        collaboration = closed || !options.collaboration ? null : createCollaboration(options, contents, kernels);
      }
      return collaboration;
    },
    get lab() {
      lab ??= createLabServices(options);
      return lab;
    },
    events: new EventBus(),
    async close() {
      if (closed) return;
      closed = true;
      // Persisted kernels keep their records as they are now: closing the clients below is the server leaving, not them.
      persistence?.close();
      hub?.close();
      const documents = await collaboration?.catch(() => null);
      documents?.executor.close();
      await documents?.documents.close();
      channels.close();
      terminals?.sockets.close();
      await Promise.all([kernels.shutdownAll(), terminals?.manager.close()]);
      await clusters?.idle(); // a stop in flight finishes; running clusters outlive the server by design
      audit?.close();
    },
  };
  if (audit) services.events.onContents(auditContents(audit)); // the contents routes emit, the audit log listens
  void adopted.then(() => resumeCellRuns(kernels, services.collaboration));
  return services;
}

/**
 * Starts `--kernel-pool` in the background (`serve()` awaits it, so a pool that cannot be is a
 * start-up error there); pools are local only: with a gateway they are off, said once.
 */
function startKernelPools(options: NbserveOptions, kernels: KernelManager): void {
  if (Object.keys(options.kernelPools).length === 0) return;
  if (options.gatewayUrl) {
    options.logger.warn('Kernel pools are off with a gateway: its kernels start there (--kernel-pool ignored)');
    return;
  }
  kernels.startPools().catch((error: Error) => options.logger.error(`Kernel pools not started: ${error.message}`));
}

function createContentsManager(options: NbserveOptions, lent: LentBuffers): ContentsManager {
  return new ContentsManager({
    lent,
    store: options.contentsStore ?? new FileSystemStore(options.root),
    ...(options.checkpointStore ? { checkpoints: options.checkpointStore } : {}),
    checkpointsKeep: options.checkpointsKeep,
    allowHidden: options.allowHidden,
    maxCopyFolderBytes: options.maxCopyFolderSizeMb * 1024 * 1024,
    // Trust survives restarts: the secret and the signatures live in the data dir, as in Jupyter.
    notary: new NotebookNotary({
      secret: () => loadOrCreateSecret(path.join(options.dataDir, 'notebook_secret')),
      signatures: new FileSignatureStore(path.join(options.dataDir, 'nbsignatures.json')),
    }),
  });
}

/**
 * Temp files of saves a killed server left behind (in the root and nbserve's own directories)
 * are removed in the background at start: only nbserve's temp names whose writer is gone.
 */
function sweepOrphanTempFiles(options: NbserveOptions): void {
  const dirs = [options.dataDir, options.configDir, options.runtimeDir];
  const sweeps = dirs.map((dir) => sweepOrphanTemps(dir));
  if (!options.contentsStore) sweeps.push(new FileSystemStore(options.root).sweepOrphanTemps());
  void Promise.all(sweeps.map((sweep) => sweep.catch(() => 0))).then((counts) => {
    const removed = counts.reduce((a, b) => a + b, 0);
    if (removed > 0) options.logger.info(`Removed ${removed} temporary file(s) left by an interrupted save`);
  });
}

async function createCollaboration(
  options: NbserveOptions,
  contents: ContentsManager,
  kernels: KernelManager,
): Promise<CollaborationServices> {
  const { CellExecutor, CollaborationManager, ROOM_CLOSE_CODES } = await import('@nbserve/core/collaboration');
  const documents = new CollaborationManager({
    contents,
    dataDir: options.dataDir,
    saveDelayMs: options.collaborationSaveDelay * 1000,
    ...options.collaborationTuning,
    warn: (message) => options.logger.warn(message),
  });
  return { documents, executor: new CellExecutor(kernels, documents), closeCodes: ROOM_CLOSE_CODES };
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

/** Where kernels run: on a gateway when one is configured (docs/gateway.md). */
function gatewayBackend(options: NbserveOptions, gatewayUrl: string, warn: (message: string) => void) {
  const client = new GatewayClient({
    url: gatewayUrl,
    ...(options.gatewayAuthToken ? { authToken: options.gatewayAuthToken } : {}),
    ...(options.gatewayHeaders ? { headers: options.gatewayHeaders } : {}),
    requestTimeoutMs: options.gatewayRequestTimeout * 1000,
    env: options.gatewayEnv,
  });
  const kernelspecs = new GatewayKernelSpecs(client, {
    ...(options.allowedKernelSpecs ? { allowed: [...options.allowedKernelSpecs] } : {}),
    defaultName: options.defaultKernelName,
    user: process.env.KERNEL_USERNAME,
  });
  return { kernelspecs, provisioner: new GatewayProvisioner({ client, warn }) };
}

/**
 * Local kernels: specs on disk and built in, processes on this machine (orphans of a crashed run
 * reaped first, except the persisted kernels in `spare`, which are adopted).
 */
function localBackend(options: NbserveOptions, warn: (message: string) => void, spare: ReadonlySet<string>) {
  const kernelspecs = new KernelSpecManager({
    ...(options.kernelSpecDirs ? { dirs: [...options.kernelSpecDirs] } : {}),
    // The built-in JavaScript and TypeScript kernels are always offered unless the embedder
    // passes its own list (an empty list turns them off).
    builtin: [...(options.builtinKernelSpecs ?? builtinKernelSpecs())],
    ...(options.defaultKernelName ? { defaultName: options.defaultKernelName } : {}),
    ...(options.allowedKernelSpecs ? { allowed: [...options.allowedKernelSpecs] } : {}),
    warn,
  });
  const registry = new PidRegistry(options.runtimeDir);
  const reaped = registry.reapOrphans(spare);
  if (reaped.length > 0) warn(`Killed ${reaped.length} kernel(s) left behind by a previous server`);
  const provisioner = new LocalProvisioner({
    runtimeDir: options.runtimeDir,
    registry,
    persist: options.persistKernels,
    ...(options.logKernelOutput
      ? { output: (line, stream, kernelId) => options.logger.warn(line, { kernel_id: kernelId, stream }) }
      : {}),
  });
  return { kernelspecs, provisioner };
}

/** Kernelspecs, kernels, sessions, channels. */
function createKernelServices(options: NbserveOptions, activity: Activity, audit: Auditor | null) {
  const warn = (message: string) => options.logger.warn(message);
  // Kernels an earlier server on this runtime dir left running (`--persist-kernels`), to adopt.
  const persistence = options.persistKernels ? new KernelPersistence(options.runtimeDir, warn) : undefined;
  const found = persistence?.records.orphans() ?? { records: [], ids: new Set<string>() };
  const { kernelspecs, provisioner }: { kernelspecs: KernelSpecSource; provisioner: KernelProvisioner } =
    options.gatewayUrl ? gatewayBackend(options, options.gatewayUrl, warn) : localBackend(options, warn, found.ids);
  const managerOptions: KernelManagerOptions = {
    kernelspecs,
    provisioner,
    rootDir: options.root,
    kernelInfoTimeoutMs: options.kernelInfoTimeout * 1000,
    shutdownWaitMs: options.shutdownWaitTime * 1000,
    culling: {
      idleTimeout: options.cullIdleTimeout,
      interval: options.cullInterval,
      connected: options.cullConnected,
      busy: options.cullBusy,
    },
    ...(options.gatewayUrl ? {} : { pools: options.kernelPools }),
    ...(persistence ? { persistence } : {}),
    warn,
  };
  const kernels = audit ? new AuditedKernelManager(managerOptions, audit) : new KernelManager(managerOptions);
  startKernelPools(options, kernels);
  const store = new MemorySessionStore();
  const sessions = new SessionManager({ kernels, store });
  const adopted = persistence
    ? adoptPersistedKernels({ persistence, store, records: found.records, kernels, kernelspecs, provisioner, warn })
    : Promise.resolve();
  const channels = new ChannelsHub(kernels, {
    pingIntervalMs: options.wsPingInterval * 1000,
    highWaterBytes: SOCKET_HIGH_WATER_BYTES,
    overflowBytes: SOCKET_OVERFLOW_BYTES,
    rateLimit: {
      msgRate: options.iopubMsgRateLimit,
      dataRate: options.iopubDataRateLimit,
      windowSeconds: options.rateLimitWindow,
    },
    replayMaxBytes: options.kernelBufferMaxBytes,
    replayMaxAgeMs: options.kernelBufferMaxAge * 1000,
    warn,
    onActivity: () => activity.touch(),
    ...(audit ? { onExecute: executeRecorder(audit, sessions) } : {}),
  });
  return { kernelspecs, kernels, sessions, channels, adopted, persistence };
}
