import path from 'node:path';
import type {
  BuiltinKernelSpec,
  CheckpointStore,
  CollaborationOptions,
  ContentsStore,
  PtySpawner,
} from '@nbserve/core';
import type { HubConfig } from './auth/hub/config.js';
import { decodeLikeRouter } from './base-url.js';
import {
  DEFAULTS,
  type Defaults,
  defaultConfigDir,
  defaultDataDir,
  defaultRuntimeDir,
  generateToken,
} from './defaults.js';

/**
 * Everything that configures one nbserve instance; the CLI maps flags onto this. `resolveOptions`
 * fills what a caller leaves out, from `DEFAULTS` (defaults.ts) where the default is one value.
 */
export interface NbserveOptions {
  /** Directory served as the contents root. */
  root: string;
  /** URL prefix of every route, always starting and ending with `/`. */
  baseUrl: string;
  /** Auth token; `''` disables auth entirely. */
  token: string;
  /** Serve and list dot-files. */
  allowHidden: boolean;
  /** Largest accepted request body in bytes. */
  maxBodySize: number;
  /** Largest directory (total file size, MB) a contents copy duplicates, as jupyter_server's `max_copy_folder_size_mb`. */
  maxCopyFolderSizeMb: number;
  /** Storage behind /api/contents and /files; default a FileSystemStore over `root`. */
  contentsStore?: ContentsStore;
  /** Where checkpoints live; default `.ipynb_checkpoints/` files inside the contents store. */
  checkpointStore?: CheckpointStore;
  /** Checkpoints the default checkpoint store keeps per file, oldest dropped first; at least 1. */
  checkpointsKeep: number;
  /** Where user configuration lives: `nbserve_config.json` (password) and `nbconfig/<section>.json`. */
  configDir: string;
  /** Where persistent server data lives (the cookie secret). */
  dataDir: string;
  /** Where runtime files live (kernel connection files, server info). */
  runtimeDir: string;
  /** Interface the server binds to; decides whether the Host allow-list applies. */
  ip: string;
  /** Extra origins allowed for cross-origin API requests: exact origins or `*`. */
  allowOrigin: readonly string[];
  /** Regular expression an origin must match completely to be allowed (anchored at both ends). */
  allowOriginPattern: string;
  /** Accept any Host header even when bound to a loopback address (disables the DNS-rebinding guard). */
  allowRemoteAccess: boolean;
  /** Host names accepted in addition to the loopback names when remote access is off. */
  allowedHosts: readonly string[];
  /** Skip the XSRF check for cookie-authenticated unsafe requests (not recommended). */
  disableCheckXsrf: boolean;
  /** Receives request and warning lines; tokens are already redacted. */
  logger: Logger;
  /** How to run ipyparallel's `ipcluster`; default `/usr/bin/python3 -m ipyparallel.cluster`. */
  ipclusterCommand?: readonly string[];
  /** Where IPython `profile_*` dirs are looked for; default `$IPYTHONDIR` (or `~/.ipython`), then the cwd. */
  profileSearchDirs?: readonly string[];
  /** How to run nbconvert for formats beyond the built-in exporters; `false`: built-ins only. */
  nbconvertCommand?: readonly string[] | false;
  /** The Python with docutils for `/rstservice/render`; `false`: the built-in renderer only. */
  docutilsPython?: string | false;
  /** Kernelspecs registered in code (the built-in JavaScript kernel); a spec on disk of the same name wins. */
  builtinKernelSpecs?: readonly BuiltinKernelSpec[];
  /** Kernel started when a request names none; default `python3` when installed, else the first built-in. */
  defaultKernelName?: string;
  /** `kernels` directories searched for kernelspecs, replacing Jupyter's search path. */
  kernelSpecDirs?: readonly string[];
  /** When non-empty, only these kernelspecs are listed and may be started. */
  allowedKernelSpecs?: readonly string[];
  /**
   * Started, ready kernels kept per kernelspec name, taken by new kernels and sessions and refilled
   * in the background (docs/kernel-pools.md). Only ipykernel kernelspecs; off with a gateway.
   */
  kernelPools: Readonly<Record<string, number>>;
  /** Seconds to wait for a new kernel's `kernel_info_reply`. */
  kernelInfoTimeout: number;
  /** Seconds a kernel gets to exit on shutdown (half after shutdown_request, half after SIGTERM). */
  shutdownWaitTime: number;
  /** Shut kernels down after this many idle seconds; 0 = never. */
  cullIdleTimeout: number;
  /** Seconds between culling passes. */
  cullInterval: number;
  /** Cull kernels even with open connections. */
  cullConnected: boolean;
  /** Cull kernels even while busy. */
  cullBusy: boolean;
  /** Kernels outlive the server; the next server on the same runtime dir adopts them (docs/kernels.md). */
  persistKernels: boolean;
  /** IOPub messages per second a client may receive; 0 = unlimited. */
  iopubMsgRateLimit: number;
  /** IOPub stream bytes per second a client may receive; 0 = unlimited. */
  iopubDataRateLimit: number;
  /** Window of the IOPub rate limits in seconds. */
  rateLimitWindow: number;
  /** Bytes kept per disconnected kernel client for replay on reconnect; 0 = no replay. */
  kernelBufferMaxBytes: number;
  /** Seconds a disconnected kernel client's messages are kept for replay. */
  kernelBufferMaxAge: number;
  /** Seconds between WebSocket pings on kernel channels and terminals; 0 = off. */
  wsPingInterval: number;
  /** `GET /metrics` needs the token or the login cookie, like the API. */
  authenticateMetrics: boolean;
  /**
   * Kernels' stdout/stderr go to `logger` line by line (as warnings, with the kernel id) instead
   * of straight to the server's own stdout/stderr. The CLI sets it for `--log-format json`.
   */
  logKernelOutput?: boolean;
  /** Where `GET /` goes, relative to the base URL (`/tree`, `/notebooks/x.ipynb`). */
  defaultUrl: string;
  /** Ignore the user's configuration file (`nbserve_config.json`, the login password). */
  disableUserConfig: boolean;
  /**
   * Run as a JupyterHub single-user server: the hub's OAuth login and tokens replace the local
   * token and password, and activity is reported to the hub (`hubConfigFromEnv()` reads it).
   */
  hub?: HubConfig;
  /**
   * A Kernel or Enterprise Gateway (http or https URL) that runs every kernel instead of this
   * machine: kernelspecs and kernels come from it, channels are proxied (docs/gateway.md).
   */
  gatewayUrl?: string;
  /** Sent to the gateway as `Authorization: token <token>`. */
  gatewayAuthToken?: string;
  /** Extra headers on every gateway request and WebSocket handshake. */
  gatewayHeaders?: Readonly<Record<string, string>>;
  /** Seconds a gateway request may take. */
  gatewayRequestTimeout: number;
  /** Variables of the server's environment forwarded at kernel start besides every `KERNEL_*`. */
  gatewayEnv: readonly string[];
  /** Offer terminals (`/api/terminals`, `/terminals/…`); `false`: every terminal route is a 404. */
  terminals: boolean;
  /** The terminals' shell command (a string is split at spaces); default `$SHELL` or `/bin/sh`, as a login shell. */
  terminalShell?: string | readonly string[];
  /** Terminate terminals without input or output for this many seconds; 0 = never. */
  terminalsCullInactiveTimeout: number;
  /** Seconds between passes looking for inactive terminals. */
  terminalsCullInterval: number;
  /**
   * Where terminals get their pseudo-terminals; default `@lydell/node-pty`, loaded on first use.
   * When it throws, terminals are off and one line says why.
   */
  loadPty?: () => PtySpawner;
  /** Live documents: `/api/collaboration/…` and `POST /api/kernels/<id>/execute` (docs/collaboration.md). */
  collaboration: boolean;
  /** Seconds between a shared document's last change and its save. */
  collaborationSaveDelay: number;
  /**
   * The built JupyterLab app directory (`@nbserve/jupyterlab`'s `dist/`, docs/jupyterlab.md);
   * default `lab/` beside the CLI bundle, else the workspace's build. `/lab` is a 404 without one.
   */
  labAppDir?: string;
  /** `labextensions` folders searched for prebuilt extensions, replacing Jupyter's data path. */
  labExtensionsDirs?: readonly string[];
  /** JupyterLab's page config `exposeAppInBrowser`: the app is `window.jupyterapp` (for tests and scripts). */
  exposeAppInBrowser: boolean;
  /** The audit log: a file appended to, or `-` for stderr (docs/operations.md); none when unset. */
  auditLog?: string;
  /** The code of an `execute_request` in the audit log: `text`, or `hash` (its SHA-256). */
  auditLogCode: 'text' | 'hash';
  /** Bytes after which the audit log is rotated; 0 = never. */
  auditLogMaxBytes: number;
  /** Rotated audit log files kept (`<file>.1` … `<file>.<n>`). */
  auditLogBackups: number;
  /** Memory the server and its kernels and terminals may use, in bytes (`limits.memory.rss`); 0 = none. */
  memLimit: number;
  /** `limits.memory.warn` once less than this fraction of `memLimit` is left. */
  memWarningThreshold: number;
  /** `/api/metrics/v1` reports `cpu_percent` and `cpu_count` too. */
  trackCpuPercent: boolean;
  /** CPUs (`limits.cpu.cpu`); 0 = no limit. */
  cpuLimit: number;
  /** Embedders and tests: the rooms' other limits and timings (see `COLLABORATION_DEFAULTS` in core). */
  collaborationTuning?: Readonly<Partial<Omit<CollaborationOptions, 'contents' | 'dataDir' | 'warn'>>>;
}

/**
 * Structured details of a log line (request id, route, status, …), for loggers that write them out
 * (the CLI's `--log-format json`); a logger may ignore them, the message says it all for people.
 */
export type LogFields = Readonly<Record<string, string | number | boolean | undefined>>;

/** A sink for log lines. Every line the server emits has secrets redacted first, fields included. */
export interface Logger {
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

/** Logs warnings and errors to stderr; request lines are dropped unless a logger is given. */
export const defaultLogger: Logger = {
  info: () => {},
  warn: (message) => console.warn(`[nbserve] ${message}`),
  error: (message) => console.error(`[nbserve] ${message}`),
};

export type OptionsInput = Partial<NbserveOptions> & Pick<NbserveOptions, 'root'>;

/**
 * Fills every option left out: from `defaults` (`DEFAULTS` unless a test passes another table), and
 * the computed ones from the environment. A missing token is a fresh random one: auth is on by default.
 */
export function resolveOptions(input: OptionsInput, defaults: Defaults = DEFAULTS): NbserveOptions {
  const dataDir = input.dataDir ?? defaultDataDir();
  return {
    ...input,
    root: input.root,
    baseUrl: normalizeBaseUrl(input.baseUrl ?? defaults.baseUrl),
    token: input.token ?? generateToken(),
    allowHidden: input.allowHidden ?? defaults.allowHidden,
    maxBodySize: input.maxBodySize ?? defaults.maxBodySize,
    maxCopyFolderSizeMb: input.maxCopyFolderSizeMb ?? defaults.maxCopyFolderSizeMb,
    checkpointsKeep: input.checkpointsKeep ?? defaults.checkpointsKeep,
    configDir: input.configDir ?? defaultConfigDir(),
    dataDir,
    runtimeDir: input.runtimeDir ?? (input.dataDir ? path.join(dataDir, 'runtime') : defaultRuntimeDir()),
    ip: input.ip ?? defaults.ip,
    allowOrigin: input.allowOrigin ?? defaults.allowOrigin,
    allowOriginPattern: input.allowOriginPattern ?? defaults.allowOriginPattern,
    allowRemoteAccess: input.allowRemoteAccess ?? defaults.allowRemoteAccess,
    allowedHosts: input.allowedHosts ?? defaults.allowedHosts,
    disableCheckXsrf: input.disableCheckXsrf ?? defaults.disableCheckXsrf,
    logger: input.logger ?? defaultLogger,
    kernelInfoTimeout: input.kernelInfoTimeout ?? defaults.kernelInfoTimeout,
    shutdownWaitTime: input.shutdownWaitTime ?? defaults.shutdownWaitTime,
    cullIdleTimeout: input.cullIdleTimeout ?? defaults.cullIdleTimeout,
    cullInterval: input.cullInterval ?? defaults.cullInterval,
    cullConnected: input.cullConnected ?? defaults.cullConnected,
    cullBusy: input.cullBusy ?? defaults.cullBusy,
    persistKernels: input.persistKernels ?? defaults.persistKernels,
    iopubMsgRateLimit: input.iopubMsgRateLimit ?? defaults.iopubMsgRateLimit,
    iopubDataRateLimit: input.iopubDataRateLimit ?? defaults.iopubDataRateLimit,
    rateLimitWindow: input.rateLimitWindow ?? defaults.rateLimitWindow,
    kernelBufferMaxBytes: input.kernelBufferMaxBytes ?? defaults.kernelBufferMaxBytes,
    kernelBufferMaxAge: input.kernelBufferMaxAge ?? defaults.kernelBufferMaxAge,
    wsPingInterval: input.wsPingInterval ?? defaults.wsPingInterval,
    authenticateMetrics: input.authenticateMetrics ?? defaults.authenticateMetrics,
    defaultUrl: input.defaultUrl ?? defaults.defaultUrl,
    disableUserConfig: input.disableUserConfig ?? defaults.disableUserConfig,
    gatewayRequestTimeout: input.gatewayRequestTimeout ?? defaults.gatewayRequestTimeout,
    gatewayEnv: input.gatewayEnv ?? defaults.gatewayEnv,
    terminals: input.terminals ?? defaults.terminals,
    kernelPools: input.kernelPools ?? defaults.kernelPools,
    terminalsCullInactiveTimeout: input.terminalsCullInactiveTimeout ?? defaults.terminalsCullInactiveTimeout,
    terminalsCullInterval: input.terminalsCullInterval ?? defaults.terminalsCullInterval,
    collaboration: input.collaboration ?? defaults.collaboration,
    collaborationSaveDelay: input.collaborationSaveDelay ?? defaults.collaborationSaveDelay,
    exposeAppInBrowser: input.exposeAppInBrowser ?? defaults.exposeAppInBrowser,
    auditLogCode: auditLogCode(input.auditLogCode ?? defaults.auditLogCode),
    auditLogMaxBytes: input.auditLogMaxBytes ?? defaults.auditLogMaxBytes,
    auditLogBackups: input.auditLogBackups ?? defaults.auditLogBackups,
    memLimit: input.memLimit ?? envNumber('MEM_LIMIT', 0),
    memWarningThreshold: input.memWarningThreshold ?? defaults.memWarningThreshold,
    trackCpuPercent: input.trackCpuPercent ?? defaults.trackCpuPercent,
    cpuLimit: input.cpuLimit ?? defaults.cpuLimit,
  };
}

function auditLogCode(value: string): 'text' | 'hash' {
  if (value === 'text' || value === 'hash') return value;
  throw new Error(`Invalid audit log code setting ${JSON.stringify(value)}: use text or hash`);
}

/** A whole number of bytes from the environment (`MEM_LIMIT`, as jupyter-resource-usage reads it); else `fallback`. */
function envNumber(name: string, fallback: number): number {
  const raw = process.env[name]?.trim();
  if (!raw || !/^\d+$/.test(raw)) return fallback;
  return Number(raw);
}

/**
 * `/`-wrapped base URL with single slashes. Only plain path characters and well-formed percent
 * escapes are allowed: the value ends up in every Location header and cookie path, so `?`, `#`,
 * `\\`, `..` or spaces are refused; and since it is also a route, a segment may not read as a route
 * pattern (`:name`, `*`, `{}`) once decoded.
 */
export function normalizeBaseUrl(baseUrl: string): string {
  let url = baseUrl.trim();
  if (!url.startsWith('/')) url = `/${url}`;
  if (!url.endsWith('/')) url = `${url}/`;
  url = url.replace(/\/{2,}/g, '/');
  const invalid = () => new Error(`Invalid base URL ${JSON.stringify(baseUrl)}: use a plain path such as /nb/`);
  if (!/^[A-Za-z0-9._~!$&'()*+,;=:@%/-]*$/.test(url) || /%(?![0-9A-Fa-f]{2})/.test(url)) throw invalid();
  let routed: string;
  try {
    routed = decodeLikeRouter(url);
  } catch {
    throw invalid(); // an escape that is not UTF-8
  }
  const segments = [...url.split('/'), ...routed.split('/')];
  if (segments.some((part) => part === '..' || part === '.' || part.startsWith(':') || /[*{}]/.test(part))) {
    throw invalid();
  }
  return url;
}
