import { InvalidArgumentError } from 'commander';
import * as v from 'valibot';

/**
 * Every flag of `nbserve [root]`, in one table. To add a flag, add a row: commander, `--help`,
 * `--flag=value`, `--x`/`--no-x` pairs and docs/configuration.md all follow from it. A `list`
 * flag may also be repeated; `pairs` is a repeatable `NAME=VALUE`, collected into an object.
 */
export type FlagType = 'boolean' | 'string' | 'integer' | 'list' | 'size' | 'pairs';

export interface FlagSpec {
  /** Long name without dashes: `port` is `--port`, a boolean `browser` is also `--no-browser`. */
  name: string;
  type: FlagType;
  /** The serve option this flag sets. */
  option: string;
  description: string;
  /** What `--help` shows as the default. */
  defaultText?: string;
  /** For `integer`: the allowed range. */
  min?: number;
  max?: number;
  /** Placeholder in `--help`, e.g. `<port>`. */
  valueName?: string;
}

export const FLAGS: readonly FlagSpec[] = [
  {
    name: 'port',
    type: 'integer',
    option: 'port',
    min: 0,
    max: 65535,
    valueName: 'port',
    description: 'port to listen on; 0 picks a free one',
    defaultText: '8888',
  },
  {
    name: 'port-retries',
    type: 'integer',
    option: 'portRetries',
    min: 0,
    max: 1000,
    valueName: 'n',
    description: 'how many following ports to try when the port is busy; 0 fails at once',
    defaultText: '50',
  },
  {
    name: 'ip',
    type: 'string',
    option: 'ip',
    valueName: 'address',
    description: 'interface to bind; anything but loopback exposes the server to the network',
    defaultText: '127.0.0.1',
  },
  {
    name: 'token',
    type: 'string',
    option: 'token',
    valueName: 'token',
    description: 'auth token (also from $NBSERVE_TOKEN or $JUPYTER_TOKEN); "" disables authentication (dangerous)',
    defaultText: 'random 48 hex characters',
  },
  {
    name: 'certfile',
    type: 'string',
    option: 'certfile',
    valueName: 'file',
    description: 'PEM certificate file; with --keyfile the server speaks HTTPS and WSS (cookies become Secure)',
    defaultText: 'none (plain HTTP)',
  },
  {
    name: 'keyfile',
    type: 'string',
    option: 'keyfile',
    valueName: 'file',
    description: 'PEM private key file for --certfile',
    defaultText: 'none',
  },
  {
    name: 'base-url',
    type: 'string',
    option: 'baseUrl',
    valueName: 'path',
    description: 'URL prefix of every route, e.g. /nb/',
    defaultText: '/',
  },
  {
    name: 'browser',
    type: 'boolean',
    option: 'openBrowser',
    description: 'open the dashboard in a web browser at start (--no-browser: do not)',
    defaultText: 'true',
  },
  {
    name: 'allow-hidden',
    type: 'boolean',
    option: 'allowHidden',
    description: 'list and serve hidden files (dot-files)',
    defaultText: 'false',
  },
  {
    name: 'allow-origin',
    type: 'list',
    option: 'allowOrigin',
    valueName: 'origins',
    description: 'comma-separated origins allowed to call the API cross-origin, or * for any',
    defaultText: 'none',
  },
  {
    name: 'allow-origin-pat',
    type: 'string',
    option: 'allowOriginPattern',
    valueName: 'regex',
    description: 'regular expression an allowed origin must match completely (it is anchored at both ends)',
    defaultText: 'none',
  },
  {
    name: 'allow-remote-access',
    type: 'boolean',
    option: 'allowRemoteAccess',
    description: 'accept any Host header while bound to loopback (turns off the DNS-rebinding guard)',
    defaultText: 'false',
  },
  {
    name: 'allowed-hosts',
    type: 'list',
    option: 'allowedHosts',
    valueName: 'hosts',
    description: 'comma-separated host names accepted besides localhost, 127.0.0.1 and ::1',
    defaultText: 'none',
  },
  {
    name: 'max-body-size',
    type: 'size',
    option: 'maxBodySize',
    valueName: 'bytes',
    description: 'largest request body accepted; a number of bytes with an optional K, M or G suffix',
    defaultText: '512M',
  },
  {
    name: 'max-copy-folder-size-mb',
    type: 'integer',
    option: 'maxCopyFolderSizeMb',
    min: 0,
    max: 1_048_576,
    valueName: 'MB',
    description: 'largest directory a copy duplicates (total size of its files); a bigger one is refused with 400',
    defaultText: '500',
  },
  {
    name: 'disable-check-xsrf',
    type: 'boolean',
    option: 'disableCheckXsrf',
    description: 'skip the XSRF check for cookie-authenticated requests (not recommended)',
    defaultText: 'false',
  },
  {
    name: 'config-dir',
    type: 'string',
    option: 'configDir',
    valueName: 'dir',
    description: 'user configuration: nbserve_config.json (password) and nbconfig/ frontend settings',
    defaultText: '$NBSERVE_CONFIG_DIR, $JUPYTER_CONFIG_DIR or ~/.nbserve',
  },
  {
    name: 'data-dir',
    type: 'string',
    option: 'dataDir',
    valueName: 'dir',
    description: 'persistent server data (the login cookie secret)',
    defaultText: '$NBSERVE_DATA_DIR or ~/.local/share/nbserve',
  },
  {
    name: 'runtime-dir',
    type: 'string',
    option: 'runtimeDir',
    valueName: 'dir',
    description: 'runtime files (kernel connection files, the browser-open file)',
    defaultText: '$JUPYTER_RUNTIME_DIR or $XDG_RUNTIME_DIR/nbserve',
  },
  {
    name: 'log-level',
    type: 'string',
    option: 'logLevel',
    valueName: 'level',
    description: 'debug or info (log every request), warn, error',
    defaultText: 'warn',
  },
  {
    name: 'default-kernel-name',
    type: 'string',
    option: 'defaultKernelName',
    valueName: 'name',
    description: 'kernelspec started when a client names none',
    defaultText: 'python3 when installed, else the first built-in kernel',
  },
  {
    name: 'kernel-info-timeout',
    type: 'integer',
    option: 'kernelInfoTimeout',
    min: 1,
    max: 3600,
    valueName: 'seconds',
    description: 'how long a starting kernel may take to answer kernel_info before the start fails',
    defaultText: '60',
  },
  {
    name: 'cull-idle-timeout',
    type: 'integer',
    option: 'cullIdleTimeout',
    min: 0,
    max: 31_536_000,
    valueName: 'seconds',
    description: 'shut kernels down after this many seconds without activity; 0 never',
    defaultText: '0',
  },
  {
    name: 'cull-interval',
    type: 'integer',
    option: 'cullInterval',
    min: 1,
    max: 86_400,
    valueName: 'seconds',
    description: 'how often to look for idle kernels to cull',
    defaultText: '300',
  },
  {
    name: 'cull-connected',
    type: 'boolean',
    option: 'cullConnected',
    description: 'also cull idle kernels that still have open connections',
    defaultText: 'false',
  },
  {
    name: 'cull-busy',
    type: 'boolean',
    option: 'cullBusy',
    description: 'also cull kernels that are busy',
    defaultText: 'false',
  },
  {
    name: 'iopub-msg-rate-limit',
    type: 'integer',
    option: 'iopubMsgRateLimit',
    min: 0,
    max: 100_000_000,
    valueName: 'msgs/s',
    description: 'iopub messages per second sent to one client before output is paused; 0 unlimited',
    defaultText: '0',
  },
  {
    name: 'iopub-data-rate-limit',
    type: 'integer',
    option: 'iopubDataRateLimit',
    min: 0,
    max: 1_000_000_000_000,
    valueName: 'bytes/s',
    description: 'iopub stream bytes per second sent to one client before output is paused; 0 unlimited',
    defaultText: '0',
  },
  {
    name: 'kernel-buffer-max-bytes',
    type: 'size',
    option: 'kernelBufferMaxBytes',
    valueName: 'bytes',
    description: 'kernel output kept per disconnected client for replay on reconnect (oldest dropped first)',
    defaultText: '16M',
  },
  {
    name: 'kernel-buffer-max-age',
    type: 'integer',
    option: 'kernelBufferMaxAge',
    min: 1,
    max: 86_400,
    valueName: 'seconds',
    description: 'how long kernel output is kept for a disconnected client',
    defaultText: '300',
  },
  {
    name: 'gateway-url',
    type: 'string',
    option: 'gatewayUrl',
    valueName: 'url',
    description:
      'run kernels on this Kernel or Enterprise Gateway (http or https) instead of this machine; see docs/gateway.md',
    defaultText: '$JUPYTER_GATEWAY_URL, else none (local kernels)',
  },
  {
    name: 'gateway-auth-token',
    type: 'string',
    option: 'gatewayAuthToken',
    valueName: 'token',
    description: 'token sent to the gateway as Authorization: token <token>',
    defaultText: '$JUPYTER_GATEWAY_AUTH_TOKEN, else none',
  },
  {
    name: 'gateway-header',
    type: 'pairs',
    option: 'gatewayHeaders',
    valueName: 'name=value',
    description: 'extra header on every gateway request and WebSocket; repeat for more',
    defaultText: 'none',
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
    defaultText: '42',
  },
  {
    name: 'gateway-env',
    type: 'list',
    option: 'gatewayEnv',
    valueName: 'names',
    description:
      'environment variables forwarded to gateway kernels besides every KERNEL_*; comma-separated or repeated',
    defaultText: 'none',
  },
];

const BOOLEAN_VALUES: Record<string, boolean> = {
  true: true,
  yes: true,
  '1': true,
  false: false,
  no: false,
  '0': false,
};

/**
 * Commander only takes `--flag=value` for flags with values; rewrite `--x=true|false` (also yes/no,
 * 1/0) of boolean flags into `--x` / `--no-x` so every flag accepts the `=value` form.
 */
export function normalizeBooleanArgs(argv: readonly string[], flags: readonly FlagSpec[] = FLAGS): string[] {
  const booleans = new Set(flags.filter((f) => f.type === 'boolean').map((f) => f.name));
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--') {
      out.push(...argv.slice(i));
      break;
    }
    const match = /^--(no-)?([a-z][a-z0-9-]*)=(.*)$/s.exec(arg);
    if (match && booleans.has(match[2] as string)) {
      const value = BOOLEAN_VALUES[(match[3] ?? '').toLowerCase()];
      if (value === undefined) {
        throw new InvalidArgumentError(
          `--${match[1] ?? ''}${match[2]} takes true or false, not ${JSON.stringify(match[3])}`,
        );
      }
      const on = match[1] ? !value : value;
      out.push(on ? `--${match[2]}` : `--no-${match[2]}`);
    } else {
      out.push(arg);
    }
  }
  return out;
}

function fail(flag: FlagSpec, message: string): never {
  throw new InvalidArgumentError(`--${flag.name}: ${message}`);
}

const SizeSchema = v.pipe(
  v.string(),
  v.trim(),
  v.regex(/^\d+(?:\.\d+)?\s*(?:[kKmMgG](?:i?[bB])?|[bB])?$/, 'expected bytes, e.g. 1048576 or 512M'),
);

/** Parses one flag value by its type, with a message that names the flag. */
export function parseFlagValue(flag: FlagSpec, raw: string): unknown {
  switch (flag.type) {
    case 'integer': {
      const parsed = v.safeParse(v.pipe(v.string(), v.trim(), v.regex(/^\d+$/), v.transform(Number)), raw);
      if (!parsed.success) fail(flag, `expected a whole number, got ${JSON.stringify(raw)}`);
      const value = parsed.output;
      if ((flag.min !== undefined && value < flag.min) || (flag.max !== undefined && value > flag.max)) {
        fail(flag, `must be between ${flag.min} and ${flag.max}`);
      }
      return value;
    }
    case 'size': {
      const parsed = v.safeParse(SizeSchema, raw);
      if (!parsed.success) fail(flag, `expected bytes (e.g. 1048576 or 512M), got ${JSON.stringify(raw)}`);
      const match = /^(\d+(?:\.\d+)?)\s*([kKmMgG])?/.exec(parsed.output);
      const unit = { k: 1024, m: 1024 ** 2, g: 1024 ** 3 }[(match?.[2] ?? '').toLowerCase()] ?? 1;
      const bytes = Math.floor(Number(match?.[1]) * unit);
      if (bytes < 1) fail(flag, 'must be at least 1 byte');
      return bytes;
    }
    case 'pairs': {
      const match = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+)=([^\r\n]*)$/.exec(raw);
      if (!match) fail(flag, `expected NAME=VALUE, got ${JSON.stringify(raw)}`);
      return [match[1] as string, match[2] as string];
    }
    case 'list':
      return raw
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item !== '');
    default:
      return raw;
  }
}
