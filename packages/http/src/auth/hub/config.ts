import { describeIssues } from '@nbserve/core';
import * as v from 'valibot';

/**
 * What a JupyterHub Spawner tells its single-user server, read from the environment it starts the
 * server with (https://jupyterhub.readthedocs.io/en/stable/reference/spawners.html).
 */
export interface HubConfig {
  /** The server's own hub API token: the OAuth client secret, and the credential of every hub call. */
  apiToken: string;
  /** The hub API, without a trailing slash (`http://127.0.0.1:8081/hub/api`). */
  apiUrl: string;
  /** This server's OAuth client id (`jupyterhub-user-<name>`). */
  clientId: string;
  /** Origin of the hub's public URL for redirects; `''` when the hub shares the proxy's origin. */
  hubHost: string;
  /** The hub's URL prefix, `<JUPYTERHUB_BASE_URL>hub/`. */
  hubPrefix: string;
  /** Where this server is served (`/user/<name>/`), as the proxy forwards it. */
  servicePrefix: string;
  /** Where to listen (`http://127.0.0.1:<port>/user/<name>/`), when the spawner says. */
  serviceUrl: URL | null;
  /** `redirect_uri` of the OAuth flow, exactly as the hub registered it. */
  callbackUrl: string;
  /** The path the OAuth callback is served at (under `servicePrefix`). */
  callbackPath: string;
  /** Any of these scopes admits an identity (`access:servers!server=<user>/<name>`, ...). */
  accessScopes: readonly string[];
  /** Where activity is reported; `null`: not at all. */
  activityUrl: string | null;
  /** Seconds between activity reports; 0 turns them off. */
  activityIntervalSeconds: number;
  /** The server's owner and the server's name (`''` for the default server). */
  user: string;
  serverName: string;
  /** Extra server settings the spawner passes as variables (JupyterHub 2+). */
  rootDir: string | null;
  defaultUrl: string | null;
  debug: boolean;
  disableUserConfig: boolean;
}

/** Every variable nbserve reads in hub mode (docs/jupyterhub.md lists them; a test keeps that so). */
export const HUB_ENV_VARS = [
  'JUPYTERHUB_API_TOKEN',
  'JUPYTERHUB_API_URL',
  'JUPYTERHUB_CLIENT_ID',
  'JUPYTERHUB_HOST',
  'JUPYTERHUB_BASE_URL',
  'JUPYTERHUB_SERVICE_PREFIX',
  'JUPYTERHUB_SERVICE_URL',
  'JUPYTERHUB_OAUTH_CALLBACK_URL',
  'JUPYTERHUB_OAUTH_ACCESS_SCOPES',
  'JUPYTERHUB_OAUTH_SCOPES',
  'JUPYTERHUB_ACTIVITY_URL',
  'JUPYTERHUB_ACTIVITY_INTERVAL',
  'JUPYTERHUB_USER',
  'JUPYTERHUB_SERVER_NAME',
  'JUPYTERHUB_ROOT_DIR',
  'JUPYTERHUB_DEFAULT_URL',
  'JUPYTERHUB_DEBUG',
  'JUPYTERHUB_DISABLE_USER_CONFIG',
] as const;

type Env = Readonly<Record<string, string | undefined>>;

const NonEmpty = v.pipe(v.string(), v.trim(), v.minLength(1, 'is empty'), v.maxLength(4096));
const HttpUrl = v.pipe(NonEmpty, v.url('is not a URL'), v.regex(/^https?:\/\//i, 'is not an http(s) URL'));
/** A `/`-path with neither a scheme nor `..` segments. */
const PathPrefix = v.pipe(
  v.string(),
  v.maxLength(4096),
  v.regex(/^\/[^\s?#\\]*$/, 'is not a path starting with /'),
  v.check((p) => !p.split('/').includes('..'), 'contains ..'),
);
const ScopeList = v.pipe(v.array(v.pipe(v.string(), v.maxLength(1024))), v.maxLength(1000));
const Interval = v.pipe(
  v.string(),
  v.trim(),
  v.regex(/^\d{1,7}$/, 'is not a whole number of seconds'),
  v.transform(Number),
);
/** JupyterHub's true-ish environment values. */
const Flag = v.pipe(
  v.string(),
  v.transform((s) => ['1', 'true', 'yes', 'on'].includes(s.trim().toLowerCase())),
);

const HubEnv = v.object({
  JUPYTERHUB_API_TOKEN: NonEmpty,
  JUPYTERHUB_API_URL: v.optional(HttpUrl, 'http://127.0.0.1:8081/hub/api'),
  JUPYTERHUB_CLIENT_ID: v.pipe(NonEmpty, v.maxLength(255)),
  JUPYTERHUB_HOST: v.optional(v.union([v.literal(''), HttpUrl]), ''),
  JUPYTERHUB_BASE_URL: v.optional(PathPrefix, '/'),
  JUPYTERHUB_SERVICE_PREFIX: v.optional(PathPrefix, '/'),
  JUPYTERHUB_SERVICE_URL: v.optional(HttpUrl),
  JUPYTERHUB_OAUTH_CALLBACK_URL: v.optional(v.union([PathPrefix, HttpUrl])),
  JUPYTERHUB_OAUTH_ACCESS_SCOPES: v.optional(v.string()),
  JUPYTERHUB_OAUTH_SCOPES: v.optional(v.string()),
  JUPYTERHUB_ACTIVITY_URL: v.optional(v.union([v.literal(''), HttpUrl]), ''),
  JUPYTERHUB_ACTIVITY_INTERVAL: v.optional(Interval, '300'),
  JUPYTERHUB_USER: v.pipe(NonEmpty, v.maxLength(255)),
  JUPYTERHUB_SERVER_NAME: v.optional(v.pipe(v.string(), v.maxLength(255)), ''),
  JUPYTERHUB_ROOT_DIR: v.optional(v.pipe(v.string(), v.maxLength(4096))),
  JUPYTERHUB_DEFAULT_URL: v.optional(v.pipe(v.string(), v.maxLength(4096))),
  JUPYTERHUB_DEBUG: v.optional(Flag, ''),
  JUPYTERHUB_DISABLE_USER_CONFIG: v.optional(Flag, ''),
});

const withSlash = (p: string) => (p.endsWith('/') ? p : `${p}/`);

function parseScopes(raw: string | undefined, name: string): string[] | null {
  if (raw === undefined || raw.trim() === '') return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new Error(`${name} is not JSON`);
  }
  const result = v.safeParse(ScopeList, parsed);
  if (!result.success) throw new Error(`${name} is not a JSON list of scopes: ${describeIssues(result.issues)}`);
  return result.output;
}

/** True when the environment looks like a hub spawned this process (hub mode turns on by itself). */
export function spawnedByHub(env: Env): boolean {
  return Boolean(env.JUPYTERHUB_SERVICE_URL && env.JUPYTERHUB_API_TOKEN);
}

/**
 * The hub settings from the environment; throws an Error naming each bad variable (never its value:
 * one of them is the API token). Without access scopes (hubs before 3.0 may leave them out), the
 * owner's server and the owner are the scopes that admit.
 */
export function hubConfigFromEnv(env: Env): HubConfig {
  const picked: Record<string, string> = {};
  for (const name of HUB_ENV_VARS) {
    const value = env[name];
    if (value !== undefined) picked[name] = value;
  }
  const parsed = v.safeParse(HubEnv, picked);
  if (!parsed.success) {
    const problems = parsed.issues.map((issue) => {
      const key = v.getDotPath(issue) ?? 'environment';
      return issue.received === 'undefined' ? `${key} is not set` : `${key} ${issue.message}`;
    });
    throw new Error(`Cannot run as a JupyterHub server: ${problems.join('; ')}`);
  }
  const e = parsed.output;
  const servicePrefix = withSlash(e.JUPYTERHUB_SERVICE_PREFIX);
  const callbackUrl = e.JUPYTERHUB_OAUTH_CALLBACK_URL ?? `${servicePrefix}oauth_callback`;
  const callbackPath = new URL(callbackUrl, 'http://hub.invalid').pathname;
  if (!callbackPath.startsWith(servicePrefix)) {
    throw new Error(`Cannot run as a JupyterHub server: JUPYTERHUB_OAUTH_CALLBACK_URL is not under ${servicePrefix}`);
  }
  const server = `${e.JUPYTERHUB_USER}/${e.JUPYTERHUB_SERVER_NAME}`;
  const accessScopes = parseScopes(e.JUPYTERHUB_OAUTH_ACCESS_SCOPES, 'JUPYTERHUB_OAUTH_ACCESS_SCOPES') ??
    parseScopes(e.JUPYTERHUB_OAUTH_SCOPES, 'JUPYTERHUB_OAUTH_SCOPES') ?? [
      `access:servers!server=${server}`,
      `access:servers!user=${e.JUPYTERHUB_USER}`,
    ];
  return {
    apiToken: e.JUPYTERHUB_API_TOKEN,
    apiUrl: e.JUPYTERHUB_API_URL.replace(/\/+$/, ''),
    clientId: e.JUPYTERHUB_CLIENT_ID,
    hubHost: e.JUPYTERHUB_HOST.replace(/\/+$/, ''),
    hubPrefix: `${withSlash(e.JUPYTERHUB_BASE_URL)}hub/`,
    servicePrefix,
    serviceUrl: e.JUPYTERHUB_SERVICE_URL === undefined ? null : new URL(e.JUPYTERHUB_SERVICE_URL),
    callbackUrl,
    callbackPath,
    accessScopes,
    activityUrl: e.JUPYTERHUB_ACTIVITY_URL === '' ? null : e.JUPYTERHUB_ACTIVITY_URL,
    activityIntervalSeconds: e.JUPYTERHUB_ACTIVITY_INTERVAL,
    user: e.JUPYTERHUB_USER,
    serverName: e.JUPYTERHUB_SERVER_NAME,
    rootDir: e.JUPYTERHUB_ROOT_DIR || null,
    defaultUrl: e.JUPYTERHUB_DEFAULT_URL || null,
    debug: e.JUPYTERHUB_DEBUG,
    disableUserConfig: e.JUPYTERHUB_DISABLE_USER_CONFIG,
  };
}

/** The hub page a path names (`home`, `logout`, `api/oauth2/authorize`), as a browser should be sent there. */
export function hubPageUrl(config: HubConfig, page: string): string {
  return `${config.hubHost}${config.hubPrefix}${page}`;
}
