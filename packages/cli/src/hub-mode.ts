import os from 'node:os';
import path from 'node:path';
import { DEFAULTS, HubClient, type HubConfig, hubConfigFromEnv, type Logger, spawnedByHub } from '@nbserve/http';

type Env = Readonly<Record<string, string | undefined>>;

/** The flags hub mode reads or fills in. */
export interface HubFlags {
  /** `--hub` / `--no-hub`. */
  hubMode?: boolean;
  ip?: string;
  port?: number;
  portRetries?: number;
  baseUrl?: string;
  defaultUrl?: string;
  logLevel?: string;
  disableUserConfig?: boolean;
  allowRemoteAccess?: boolean;
  certfile?: string;
}

/** What hub mode sets: the hub itself, and the spawner's settings under any flag given. */
export interface HubSettings {
  hub: HubConfig;
  ip: string;
  port: number;
  portRetries: number;
  baseUrl: string;
  defaultUrl?: string;
  logLevel?: string;
  disableUserConfig: boolean;
  allowRemoteAccess: boolean;
  /** The spawner's notebook dir (`~` expanded), used when no root was given. */
  rootDir?: string;
}

function expandHome(dir: string, env: Env): string {
  if (dir !== '~' && !dir.startsWith('~/')) return dir;
  return path.join(env.HOME || os.homedir(), dir.slice(1));
}

/**
 * Hub mode's settings, or `null` outside it: `--hub`, or a hub's variables in the environment
 * unless `--no-hub`. Flags win over what the spawner says, as with Jupyter's single-user server;
 * the spawner's port is the one the hub's proxy will use, so no other port is tried. Remote Host
 * headers are accepted (the hub's public name reaches a server bound to loopback), which is safe
 * because every request needs an identity the hub vouches for. Throws when a variable is wrong.
 */
export function hubSettings(flags: HubFlags, env: Env = process.env): HubSettings | null {
  if (flags.hubMode === false || (flags.hubMode !== true && !spawnedByHub(env))) return null;
  const hub = hubConfigFromEnv(env);
  const service = hub.serviceUrl;
  if (service?.protocol === 'https:' && flags.certfile === undefined) {
    throw new Error("JupyterHub's internal_ssl is not supported: JUPYTERHUB_SERVICE_URL must be http");
  }
  const defaultPort = service?.protocol === 'https:' ? 443 : 80;
  const servicePort = service ? Number(service.port || defaultPort) : DEFAULTS.port;
  const serviceIp = service ? service.hostname.replace(/^\[(.*)\]$/, '$1') : DEFAULTS.ip;
  const defaultUrl = flags.defaultUrl ?? hub.defaultUrl ?? undefined;
  const logLevel = flags.logLevel ?? (hub.debug ? 'debug' : undefined);
  return {
    hub,
    ip: flags.ip ?? serviceIp,
    port: flags.port ?? servicePort,
    portRetries: flags.portRetries ?? 0,
    baseUrl: flags.baseUrl ?? hub.servicePrefix,
    ...(defaultUrl === undefined ? {} : { defaultUrl }),
    ...(logLevel === undefined ? {} : { logLevel }),
    disableUserConfig: flags.disableUserConfig ?? hub.disableUserConfig,
    allowRemoteAccess: flags.allowRemoteAccess ?? true,
    ...(hub.rootDir ? { rootDir: expandHome(hub.rootDir, env) } : {}),
  };
}

/**
 * Asks the hub API once before serving, as Jupyter's single-user server does: a few tries over
 * about half a minute (a hub under load answers late), then the start fails.
 */
export async function waitForHub(
  hub: HubConfig,
  logger: Logger,
  sleep: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
): Promise<void> {
  const client = new HubClient(hub, { timeoutMs: 10_000 });
  const attempts = 5;
  for (let attempt = 1; ; attempt++) {
    try {
      await client.ping();
      return;
    } catch (error) {
      const message = error instanceof Error ? error.message : 'error';
      if (attempt >= attempts) throw new Error(`${message} (${hub.apiUrl}, ${attempts} attempts)`);
      logger.warn(`${message} (${hub.apiUrl}, attempt ${attempt}/${attempts}); trying again`);
      await sleep(Math.min(2 ** attempt, 16) * 1000);
    }
  }
}
