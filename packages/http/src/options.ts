import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import type { BuiltinKernelSpec, CheckpointStore, ContentsStore } from '@nbserve/core';
import { decodeLikeRouter } from './base-url.js';

/** Everything that configures one nbserve instance; the CLI maps flags onto this. */
export interface NbserveOptions {
  /** Directory served as the contents root. */
  root: string;
  /** URL prefix of every route, always starting and ending with `/`. Default `/`. */
  baseUrl: string;
  /** Auth token; `''` disables auth entirely. */
  token: string;
  /** Serve and list dot-files. */
  allowHidden: boolean;
  /** Largest accepted request body in bytes. */
  maxBodySize: number;
  /** Largest directory (total file size, MB) a contents copy duplicates, as jupyter_server's `max_copy_folder_size_mb`. Default 500. */
  maxCopyFolderSizeMb?: number;
  /** Storage behind /api/contents and /files; default a FileSystemStore over `root`. */
  contentsStore?: ContentsStore;
  /** Where checkpoints live; default `.ipynb_checkpoints/` files inside the contents store. */
  checkpointStore?: CheckpointStore;
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
  /** Seconds to wait for a new kernel's `kernel_info_reply`. Default 60. */
  kernelInfoTimeout?: number;
  /** Seconds a kernel gets to exit on shutdown (half after shutdown_request, half after SIGTERM). Default 5. */
  shutdownWaitTime?: number;
  /** Shut kernels down after this many idle seconds; 0 = never (default). */
  cullIdleTimeout?: number;
  /** Seconds between culling passes. Default 300. */
  cullInterval?: number;
  /** Cull kernels even with open connections. Default false. */
  cullConnected?: boolean;
  /** Cull kernels even while busy. Default false. */
  cullBusy?: boolean;
  /** IOPub messages per second a client may receive; 0 = unlimited (default). */
  iopubMsgRateLimit?: number;
  /** IOPub stream bytes per second a client may receive; 0 = unlimited (default). */
  iopubDataRateLimit?: number;
  /** Window of the IOPub rate limits in seconds. Default 3. */
  rateLimitWindow?: number;
  /** Bytes kept per disconnected kernel client for replay on reconnect; 0 = no replay. Default 16 MiB. */
  kernelBufferMaxBytes?: number;
  /** Seconds a disconnected kernel client's messages are kept for replay. Default 300. */
  kernelBufferMaxAge?: number;
  /** Seconds between WebSocket pings on kernel channels; 0 = off. Default 30. */
  wsPingInterval?: number;
  /**
   * A Kernel or Enterprise Gateway (http or https URL) that runs every kernel instead of this
   * machine: kernelspecs and kernels come from it, channels are proxied (docs/gateway.md).
   */
  gatewayUrl?: string;
  /** Sent to the gateway as `Authorization: token <token>`. */
  gatewayAuthToken?: string;
  /** Extra headers on every gateway request and WebSocket handshake. */
  gatewayHeaders?: Readonly<Record<string, string>>;
  /** Seconds a gateway request may take. Default 42 (`DEFAULT_GATEWAY_REQUEST_TIMEOUT`). */
  gatewayRequestTimeout?: number;
  /** Variables of the server's environment forwarded at kernel start besides every `KERNEL_*`. */
  gatewayEnv?: readonly string[];
}

/** A sink for log lines. Every line the server emits has secrets redacted first. */
export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export const DEFAULT_MAX_BODY_SIZE = 512 * 1024 * 1024;
/** Seconds a gateway request may take, as jupyter_server's `GatewayClient.request_timeout`. */
export const DEFAULT_GATEWAY_REQUEST_TIMEOUT = 42;

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

/** `JUPYTER_RUNTIME_DIR`, else `$XDG_RUNTIME_DIR/nbserve`, else `<dataDir>/runtime`. */
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

/** Logs warnings and errors to stderr; request lines are dropped unless a logger is given. */
export const defaultLogger: Logger = {
  info: () => {},
  warn: (message) => console.warn(`[nbserve] ${message}`),
  error: (message) => console.error(`[nbserve] ${message}`),
};

export type OptionsInput = Partial<NbserveOptions> & Pick<NbserveOptions, 'root'>;

/** Fills every option left out. A missing token is a fresh random one: auth is on by default. */
export function resolveOptions(input: OptionsInput): NbserveOptions {
  const dataDir = input.dataDir ?? defaultDataDir();
  return {
    ...input,
    root: input.root,
    baseUrl: normalizeBaseUrl(input.baseUrl),
    token: input.token ?? generateToken(),
    allowHidden: input.allowHidden ?? false,
    maxBodySize: input.maxBodySize ?? DEFAULT_MAX_BODY_SIZE,
    configDir: input.configDir ?? defaultConfigDir(),
    dataDir,
    runtimeDir: input.runtimeDir ?? (input.dataDir ? path.join(dataDir, 'runtime') : defaultRuntimeDir()),
    ip: input.ip ?? '127.0.0.1',
    allowOrigin: input.allowOrigin ?? [],
    allowOriginPattern: input.allowOriginPattern ?? '',
    allowRemoteAccess: input.allowRemoteAccess ?? false,
    allowedHosts: input.allowedHosts ?? [],
    disableCheckXsrf: input.disableCheckXsrf ?? false,
    logger: input.logger ?? defaultLogger,
  };
}

/**
 * `/`-wrapped base URL with single slashes. Only plain path characters and well-formed percent
 * escapes are allowed: the value ends up in every Location header and cookie path, so `?`, `#`,
 * `\\`, `..` or spaces are refused; and since it is also a route, a segment may not read as a route
 * pattern (`:name`, `*`, `{}`) once decoded.
 */
export function normalizeBaseUrl(baseUrl: string | undefined): string {
  let url = (baseUrl ?? '/').trim();
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
