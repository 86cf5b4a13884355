import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';

const MiB = 1024 * 1024;

const defaults = {
  /** Port `serve()` tries first; 0 picks a free one. */
  port: 8888,
  /** How many following ports `serve()` tries when the port is busy. */
  portRetries: 50,
  ip: '127.0.0.1',
  baseUrl: '/',
  /** Where `GET /` goes, relative to the base URL. */
  defaultUrl: '/tree',
  disableUserConfig: false,
  /** The `nbserve` command opens the dashboard in a browser at start. */
  openBrowser: true,
  /** The `nbserve` command's log level: `debug`, `info`, `warn` or `error`. */
  logLevel: 'warn',
  /** The `nbserve` command's log lines: `text`, or `json` (one object a line). */
  logFormat: 'text',
  allowHidden: false,
  allowOrigin: [] as readonly string[],
  allowOriginPattern: '',
  allowRemoteAccess: false,
  allowedHosts: [] as readonly string[],
  disableCheckXsrf: false,
  /** Bytes. */
  maxBodySize: 512 * MiB,
  /** MB, as jupyter_server's `max_copy_folder_size_mb`. */
  maxCopyFolderSizeMb: 500,
  /** Checkpoints kept per file, at least 1 (jupyter_server keeps 1). */
  checkpointsKeep: 5,
  /** Seconds. */
  kernelInfoTimeout: 60,
  /** Seconds. */
  shutdownWaitTime: 5,
  /** Seconds; 0 = never cull. */
  cullIdleTimeout: 0,
  /** Seconds. */
  cullInterval: 300,
  cullConnected: false,
  cullBusy: false,
  /** Kernels outlive the server (SIGTERM or a crash) and the next server on the same dirs adopts them. */
  persistKernels: false,
  /** Messages per second; 0 = unlimited. */
  iopubMsgRateLimit: 0,
  /** Bytes per second; 0 = unlimited. */
  iopubDataRateLimit: 0,
  /** Seconds. */
  rateLimitWindow: 3,
  /** Bytes; 0 = no replay. */
  kernelBufferMaxBytes: 16 * MiB,
  /** Seconds. */
  kernelBufferMaxAge: 300,
  /** Seconds; 0 = no pings. */
  wsPingInterval: 30,
  /** `GET /metrics` asks for the token or login cookie, like the API. */
  authenticateMetrics: true,
  /** Seconds, as jupyter_server's `GatewayClient.request_timeout`. */
  gatewayRequestTimeout: 42,
  /** Names of variables forwarded to gateway kernels besides every `KERNEL_*`. */
  gatewayEnv: [] as readonly string[],
  /** Terminals (`/api/terminals`, New > Terminal); `false`: every terminal route is a 404. */
  terminals: true,
  /**
   * Started, ready kernels kept per kernelspec name (`--kernel-pool python3=1`); none by default.
   * Only ipykernel kernelspecs can be pooled (docs/kernel-pools.md).
   */
  kernelPools: {} as Readonly<Record<string, number>>,
  /** Seconds; 0 = never cull terminals. */
  terminalsCullInactiveTimeout: 0,
  /** Seconds. */
  terminalsCullInterval: 300,
  /** Live documents (`/api/collaboration/…`, server-side cell execution); `false`: those routes are 404s. */
  collaboration: true,
  /** Seconds between a shared document's last change and its save to disk. */
  collaborationSaveDelay: 1,
  /** JupyterLab's page config `exposeAppInBrowser` (`window.jupyterapp`). */
  exposeAppInBrowser: false,
  /** Audit lines record the code a client runs as `text`, or its SHA-256 (`hash`). */
  auditLogCode: 'text' as 'text' | 'hash',
  /** Bytes; the audit log is rotated before it grows past this; 0 = never. */
  auditLogMaxBytes: 100 * MiB,
  /** Rotated audit log files kept. */
  auditLogBackups: 5,
  /** Fraction of `memLimit` left below which `/api/metrics/v1` says `warn`, as jupyter-resource-usage. */
  memWarningThreshold: 0.1,
  /** `/api/metrics/v1` also reports CPU use (`cpu_percent`, `cpu_count`). */
  trackCpuPercent: false,
  /** CPUs the server may use, in `limits.cpu`; 0 = no limit (jupyter-resource-usage reads `CPU_LIMIT`). */
  cpuLimit: 0,
};

/** The type of `DEFAULTS`, for a table with other values (tests, embedders with their own defaults). */
export type Defaults = Readonly<typeof defaults>;

/**
 * Every default of nbserve's settings that is one fixed value, in one table (fastify's
 * `defaultInitOptions` is the model): `resolveOptions` fills the options left out from it,
 * `serve()` its port, and the `nbserve` command's `--help` and docs/configuration.md print it.
 * Keys are option names (`NbserveOptions`, `ListenOptions`, and the command's `openBrowser`,
 * `logLevel` and `logFormat`), in the options' units: seconds, bytes, MB.
 */
export const DEFAULTS: Defaults = Object.freeze(defaults);

/**
 * Defaults that are not one fixed value — worked out at start from the environment or what is
 * installed, or no value at all — as `--help` and the docs describe them.
 */
export const COMPUTED_DEFAULTS = Object.freeze({
  token: 'random 48 hex characters',
  certfile: 'none (plain HTTP)',
  keyfile: 'none',
  configDir: '$NBSERVE_CONFIG_DIR, $JUPYTER_CONFIG_DIR or ~/.nbserve',
  dataDir: '$NBSERVE_DATA_DIR, $XDG_DATA_HOME/nbserve or ~/.local/share/nbserve',
  runtimeDir: '$NBSERVE_RUNTIME_DIR, $JUPYTER_RUNTIME_DIR, $XDG_RUNTIME_DIR/nbserve or <data dir>/runtime',
  defaultKernelName: 'python3 when installed, else the first built-in kernel',
  gatewayUrl: '$JUPYTER_GATEWAY_URL, else none (local kernels)',
  gatewayAuthToken: '$JUPYTER_GATEWAY_AUTH_TOKEN, else none',
  gatewayHeaders: 'none',
  notebookDir: 'the root argument, else $JUPYTERHUB_ROOT_DIR in hub mode, else the current directory',
  hubMode: 'on when $JUPYTERHUB_SERVICE_URL and $JUPYTERHUB_API_TOKEN are set',
  terminalShell: '$SHELL (else /bin/sh) as a login shell',
  auditLog: 'none (no audit log)',
  memLimit: '$MEM_LIMIT (bytes), else no limit',
});

export type ComputedDefaults = typeof COMPUTED_DEFAULTS;

type Env = Readonly<Record<string, string | undefined>>;

/** `NBSERVE_CONFIG_DIR`, else `JUPYTER_CONFIG_DIR`, else `~/.nbserve`. */
export function defaultConfigDir(env: Env = process.env): string {
  return env.NBSERVE_CONFIG_DIR || env.JUPYTER_CONFIG_DIR || path.join(os.homedir(), '.nbserve');
}

/** `NBSERVE_DATA_DIR`, else `$XDG_DATA_HOME/nbserve`, else `~/.local/share/nbserve`. */
export function defaultDataDir(env: Env = process.env): string {
  if (env.NBSERVE_DATA_DIR) return env.NBSERVE_DATA_DIR;
  const xdg = env.XDG_DATA_HOME || path.join(os.homedir(), '.local', 'share');
  return path.join(xdg, 'nbserve');
}

/** `NBSERVE_RUNTIME_DIR`, else `JUPYTER_RUNTIME_DIR`, else `$XDG_RUNTIME_DIR/nbserve`, else `<dataDir>/runtime`. */
export function defaultRuntimeDir(env: Env = process.env): string {
  if (env.NBSERVE_RUNTIME_DIR) return env.NBSERVE_RUNTIME_DIR;
  if (env.JUPYTER_RUNTIME_DIR) return env.JUPYTER_RUNTIME_DIR;
  if (env.XDG_RUNTIME_DIR) return path.join(env.XDG_RUNTIME_DIR, 'nbserve');
  return path.join(defaultDataDir(env), 'runtime');
}

/** A fresh random auth token: 24 random bytes as 48 hex characters. */
export function generateToken(): string {
  return randomBytes(24).toString('hex');
}
