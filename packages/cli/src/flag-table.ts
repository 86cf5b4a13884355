import type { ComputedDefaults, Defaults } from '@nbserve/http';
import { OPERATIONS_FLAGS } from './flag-table-operations.js';

/**
 * Every flag of `nbserve [root]`, in one table. To add a flag, add a row: commander, `--help`,
 * `--flag=value`, `--x`/`--no-x` pairs and docs/configuration.md all follow from it. A `list`
 * flag may also be repeated; `pairs` is a repeatable `NAME=VALUE`, collected into an object.
 */
export type FlagType = 'boolean' | 'string' | 'integer' | 'number' | 'list' | 'size' | 'pairs';

export interface FlagSpec {
  /** Long name without dashes: `port` is `--port`, a boolean `browser` is also `--no-browser`. */
  name: string;
  type: FlagType;
  /**
   * The option this flag sets, a key of `DEFAULTS` or `COMPUTED_DEFAULTS` of @nbserve/http, where
   * `--help` and the docs read its default (flag-default-text.ts).
   */
  option: string;
  description: string;
  /** For `integer` and `number`, and `pairs` whose values are whole numbers: the allowed range. */
  min?: number;
  max?: number;
  /** Placeholder in `--help`, e.g. `<port>`. */
  valueName?: string;
  /** When something else than the default applies, e.g. in hub mode; `--help` shows it after the default. */
  defaultNote?: string;
  /** Other spellings, as JupyterHub spawners pass them (`--debug` is `--log-level=debug`). */
  aliases?: readonly FlagAlias[];
}

/** `--<name>` read as this flag; with `value` the alias takes no value of its own. */
export interface FlagAlias {
  name: string;
  value?: string;
}

/** A flag whose option has a default in @nbserve/http's tables (checked when compiling, not in the types we ship). */
type DefaultedFlag = FlagSpec & { option: keyof Defaults | keyof ComputedDefaults };

export const FLAGS: readonly FlagSpec[] = [
  {
    name: 'port',
    type: 'integer',
    option: 'port',
    min: 0,
    max: 65535,
    valueName: 'port',
    description: 'port to listen on; 0 picks a free one',
  },
  {
    name: 'port-retries',
    type: 'integer',
    option: 'portRetries',
    min: 0,
    max: 1000,
    valueName: 'n',
    description: 'how many following ports to try when the port is busy; 0 fails at once',
  },
  {
    name: 'ip',
    type: 'string',
    option: 'ip',
    valueName: 'address',
    description: 'interface to bind; anything but loopback exposes the server to the network',
  },
  {
    name: 'token',
    type: 'string',
    option: 'token',
    valueName: 'token',
    description: 'auth token (also from $NBSERVE_TOKEN or $JUPYTER_TOKEN); "" disables authentication (dangerous)',
  },
  {
    name: 'certfile',
    type: 'string',
    option: 'certfile',
    valueName: 'file',
    description: 'PEM certificate file; with --keyfile the server speaks HTTPS and WSS (cookies become Secure)',
  },
  {
    name: 'keyfile',
    type: 'string',
    option: 'keyfile',
    valueName: 'file',
    description: 'PEM private key file for --certfile',
  },
  {
    name: 'base-url',
    type: 'string',
    option: 'baseUrl',
    valueName: 'path',
    description: 'URL prefix of every route, e.g. /nb/',
  },
  {
    name: 'notebook-dir',
    type: 'string',
    option: 'notebookDir',
    valueName: 'dir',
    description: 'directory to serve, the same as the root argument (as JupyterHub spawners pass it)',
  },
  {
    name: 'default-url',
    type: 'string',
    option: 'defaultUrl',
    valueName: 'path',
    description: 'where GET / goes, relative to the base URL',
    defaultNote: '$JUPYTERHUB_DEFAULT_URL in hub mode',
    aliases: [{ name: 'SingleUserNotebookApp.default_url' }],
  },
  {
    name: 'hub',
    type: 'boolean',
    option: 'hubMode',
    description:
      'run as a JupyterHub single-user server: hub OAuth login and tokens, activity reports (--no-hub: never)',
  },
  {
    name: 'disable-user-config',
    type: 'boolean',
    option: 'disableUserConfig',
    description: "ignore the config dir's nbserve_config.json (the login password)",
    defaultNote: '$JUPYTERHUB_DISABLE_USER_CONFIG in hub mode',
  },
  {
    name: 'browser',
    type: 'boolean',
    option: 'openBrowser',
    description: 'open the dashboard in a web browser at start (--no-browser: do not)',
  },
  {
    name: 'allow-hidden',
    type: 'boolean',
    option: 'allowHidden',
    description: 'list and serve hidden files (dot-files)',
  },
  {
    name: 'allow-origin',
    type: 'list',
    option: 'allowOrigin',
    valueName: 'origins',
    description: 'comma-separated origins allowed to call the API cross-origin, or * for any',
  },
  {
    name: 'allow-origin-pat',
    type: 'string',
    option: 'allowOriginPattern',
    valueName: 'regex',
    description: 'regular expression an allowed origin must match completely (it is anchored at both ends)',
  },
  {
    name: 'allow-remote-access',
    type: 'boolean',
    option: 'allowRemoteAccess',
    description: 'accept any Host header while bound to loopback (turns off the DNS-rebinding guard)',
  },
  {
    name: 'allowed-hosts',
    type: 'list',
    option: 'allowedHosts',
    valueName: 'hosts',
    description: 'comma-separated host names accepted besides localhost, 127.0.0.1 and ::1',
  },
  {
    name: 'max-body-size',
    type: 'size',
    option: 'maxBodySize',
    valueName: 'bytes',
    description: 'largest request body accepted; a number of bytes with an optional K, M or G suffix',
  },
  {
    name: 'max-copy-folder-size-mb',
    type: 'integer',
    option: 'maxCopyFolderSizeMb',
    min: 0,
    max: 1_048_576,
    valueName: 'MB',
    description: 'largest directory a copy duplicates (total size of its files); a bigger one is refused with 400',
  },
  {
    name: 'checkpoints-keep',
    type: 'integer',
    option: 'checkpointsKeep',
    min: 1,
    max: 1000,
    valueName: 'n',
    description:
      "checkpoints kept per file; each checkpoint adds one and the oldest beyond n go (1 is jupyter_server's behaviour)",
  },
  {
    name: 'disable-check-xsrf',
    type: 'boolean',
    option: 'disableCheckXsrf',
    description: 'skip the XSRF check for cookie-authenticated requests (not recommended)',
  },
  {
    name: 'config-dir',
    type: 'string',
    option: 'configDir',
    valueName: 'dir',
    description: 'user configuration: nbserve_config.json (password) and nbconfig/ frontend settings',
  },
  {
    name: 'data-dir',
    type: 'string',
    option: 'dataDir',
    valueName: 'dir',
    description: 'persistent server data (the login cookie secret)',
  },
  {
    name: 'runtime-dir',
    type: 'string',
    option: 'runtimeDir',
    valueName: 'dir',
    description: 'runtime files (kernel connection files, the browser-open file)',
  },
  {
    name: 'log-level',
    type: 'string',
    option: 'logLevel',
    valueName: 'level',
    description: 'debug or info (log every request), warn, error; --debug is --log-level=debug',
    defaultNote: 'debug when $JUPYTERHUB_DEBUG is set in hub mode',
    aliases: [{ name: 'debug', value: 'debug' }],
  },
  {
    name: 'log-format',
    type: 'string',
    option: 'logFormat',
    valueName: 'format',
    description:
      'text, or json: one JSON object a line (time, level, message; request id, route, status, ms, kernel id), never the token',
  },
  {
    name: 'authenticate-metrics',
    type: 'boolean',
    option: 'authenticateMetrics',
    description:
      'GET /metrics needs the token or login cookie like the API (--no-authenticate-metrics: open to anyone)',
  },
  {
    name: 'default-kernel-name',
    type: 'string',
    option: 'defaultKernelName',
    valueName: 'name',
    description: 'kernelspec started when a client names none',
  },
  {
    name: 'kernel-info-timeout',
    type: 'integer',
    option: 'kernelInfoTimeout',
    min: 1,
    max: 3600,
    valueName: 'seconds',
    description: 'how long a starting kernel may take to answer kernel_info before the start fails',
  },
  {
    name: 'cull-idle-timeout',
    type: 'integer',
    option: 'cullIdleTimeout',
    min: 0,
    max: 31_536_000,
    valueName: 'seconds',
    description: 'shut kernels down after this many seconds without activity; 0 never',
  },
  {
    name: 'cull-interval',
    type: 'integer',
    option: 'cullInterval',
    min: 1,
    max: 86_400,
    valueName: 'seconds',
    description: 'how often to look for idle kernels to cull',
  },
  {
    name: 'cull-connected',
    type: 'boolean',
    option: 'cullConnected',
    description: 'also cull idle kernels that still have open connections',
  },
  {
    name: 'cull-busy',
    type: 'boolean',
    option: 'cullBusy',
    description: 'also cull kernels that are busy',
  },
  {
    name: 'persist-kernels',
    type: 'boolean',
    option: 'persistKernels',
    description:
      'keep kernels running when the server stops or crashes; the next server on the same runtime dir adopts them',
  },
  {
    name: 'iopub-msg-rate-limit',
    type: 'integer',
    option: 'iopubMsgRateLimit',
    min: 0,
    max: 100_000_000,
    valueName: 'msgs/s',
    description: 'iopub messages per second sent to one client before output is paused; 0 unlimited',
  },
  {
    name: 'iopub-data-rate-limit',
    type: 'integer',
    option: 'iopubDataRateLimit',
    min: 0,
    max: 1_000_000_000_000,
    valueName: 'bytes/s',
    description: 'iopub stream bytes per second sent to one client before output is paused; 0 unlimited',
  },
  {
    name: 'kernel-buffer-max-bytes',
    type: 'size',
    option: 'kernelBufferMaxBytes',
    valueName: 'bytes',
    description: 'kernel output kept per disconnected client for replay on reconnect (oldest dropped first)',
  },
  {
    name: 'kernel-buffer-max-age',
    type: 'integer',
    option: 'kernelBufferMaxAge',
    min: 1,
    max: 86_400,
    valueName: 'seconds',
    description: 'how long kernel output is kept for a disconnected client',
  },
  {
    name: 'gateway-url',
    type: 'string',
    option: 'gatewayUrl',
    valueName: 'url',
    description:
      'run kernels on this Kernel or Enterprise Gateway (http or https) instead of this machine; see docs/gateway.md',
  },
  {
    name: 'gateway-auth-token',
    type: 'string',
    option: 'gatewayAuthToken',
    valueName: 'token',
    description: 'token sent to the gateway as Authorization: token <token>',
  },
  {
    name: 'gateway-header',
    type: 'pairs',
    option: 'gatewayHeaders',
    valueName: 'name=value',
    description: 'extra header on every gateway request and WebSocket; repeat for more',
  },
  {
    name: 'gateway-request-timeout',
    type: 'integer',
    option: 'gatewayRequestTimeout',
    min: 1,
    max: 86_400,
    valueName: 'seconds',
    description:
      'how long a gateway request may take before it fails with 503 (kernel starts: at least KERNEL_LAUNCH_TIMEOUT + 2)',
  },
  {
    name: 'gateway-env',
    type: 'list',
    option: 'gatewayEnv',
    valueName: 'names',
    description:
      'environment variables forwarded to gateway kernels besides every KERNEL_*; comma-separated or repeated',
  },
  {
    name: 'terminals',
    type: 'boolean',
    option: 'terminals',
    description: 'offer terminals: /api/terminals, New > Terminal (--no-terminals: every terminal route is a 404)',
  },
  {
    name: 'terminal-shell',
    type: 'string',
    option: 'terminalShell',
    valueName: 'command',
    description: 'the shell a terminal runs, with its arguments split at spaces, e.g. "bash --norc"',
  },
  {
    name: 'terminals-cull-inactive-timeout',
    type: 'integer',
    option: 'terminalsCullInactiveTimeout',
    min: 0,
    max: 31_536_000,
    valueName: 'seconds',
    description: 'terminate terminals after this many seconds without input or output; 0 never',
  },
  {
    name: 'terminals-cull-interval',
    type: 'integer',
    option: 'terminalsCullInterval',
    min: 1,
    max: 86_400,
    valueName: 'seconds',
    description: 'how often to look for inactive terminals to terminate',
  },
  {
    name: 'kernel-pool',
    type: 'pairs',
    option: 'kernelPools',
    min: 0,
    max: 64,
    valueName: 'kernelspec=n',
    description:
      'keep n started kernels of a kernelspec ready for new sessions and kernels; repeat for more (ipykernel only; python3=1 recommended)',
  },
  {
    name: 'collaboration',
    type: 'boolean',
    option: 'collaboration',
    description:
      'live documents: shared editing and server-side cell runs (--no-collaboration: /api/collaboration and the execute route are 404s)',
  },
  {
    name: 'collaboration-save-delay',
    type: 'integer',
    option: 'collaborationSaveDelay',
    min: 0,
    max: 3600,
    valueName: 'seconds',
    description: 'save a shared document this many seconds after its last change',
  },
  {
    name: 'expose-app-in-browser',
    type: 'boolean',
    option: 'exposeAppInBrowser',
    description: "JupyterLab's page exposes its app as window.jupyterapp (for tests and scripts)",
  },
  ...OPERATIONS_FLAGS,
] satisfies readonly DefaultedFlag[];
