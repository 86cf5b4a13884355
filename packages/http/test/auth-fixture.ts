import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type CreateAppOptions, createApp, type NbserveApp } from '../src/app.js';
import type { Logger } from '../src/options.js';

export const TOKEN = 'a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718';

/** A logger that keeps every line, so tests can assert what (never) gets logged. */
export function memoryLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    info: (m) => lines.push(`info ${m}`),
    warn: (m) => lines.push(`warn ${m}`),
    error: (m) => lines.push(`error ${m}`),
  };
}

export interface Fixture {
  app: NbserveApp;
  dir: string;
  logger: ReturnType<typeof memoryLogger>;
  cleanup(): Promise<void>;
}

/** An app over fresh temp dirs (root, config, data) with a fixed token and a capturing logger. */
export async function makeFixture(options: Partial<CreateAppOptions> = {}): Promise<Fixture> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'nbserve-auth-'));
  for (const sub of ['root', 'config', 'data']) await fs.mkdir(path.join(dir, sub));
  const logger = memoryLogger();
  const app = createApp({
    root: path.join(dir, 'root'),
    configDir: path.join(dir, 'config'),
    dataDir: path.join(dir, 'data'),
    token: TOKEN,
    logger,
    ...options,
  });
  return {
    app,
    dir,
    logger,
    async cleanup() {
      await app.close();
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
}

/** `name=value` pairs of every Set-Cookie header, keyed by name. */
export function setCookies(response: Response): Map<string, { value: string; raw: string }> {
  const map = new Map<string, { value: string; raw: string }>();
  for (const raw of response.headers.getSetCookie()) {
    const [pair = ''] = raw.split(';');
    const eq = pair.indexOf('=');
    map.set(pair.slice(0, eq), { value: pair.slice(eq + 1), raw });
  }
  return map;
}

/** Logs in through `?token=` and returns the Cookie header a browser would then send. */
export async function loginCookies(app: NbserveApp, host = 'localhost'): Promise<{ cookie: string; xsrf: string }> {
  const response = await app.request(`http://${host}/api/status?token=${TOKEN}`);
  const cookies = setCookies(response);
  const login = [...cookies].find(([name]) => name.startsWith('username-'));
  if (!login) throw new Error('no login cookie was set');
  const xsrf = 'x5rfx5rfx5rfx5rf';
  return { cookie: `${login[0]}=${login[1].value}; _xsrf=${xsrf}`, xsrf };
}
