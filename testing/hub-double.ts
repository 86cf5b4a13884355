/**
 * A small stand-in for JupyterHub's API, for the edge cases a real hub will not produce on demand
 * (a hub that is down, slow or confused, tokens with odd scopes). It answers what a single-user
 * server asks, in the shapes JupyterHub 3.0 uses: `GET /hub/api`, `GET /hub/api/user`,
 * `POST /hub/api/oauth2/token`, `POST /hub/api/users/<name>/activity`; and, for browser tests, an
 * authorize endpoint that approves at once and the logout and home pages. The real hub is exercised by
 * packages/cli/test/hub-e2e.test.ts (with testing/jupyterhub.ts).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { type HubConfig, hubConfigFromEnv } from '@nbserve/http';

export interface DoubleUser {
  kind?: string;
  name: string;
  admin?: boolean;
  scopes: string[];
}

export interface RecordedRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  body: string;
}

export interface HubDouble {
  url: string;
  /** The server's own API token (the OAuth client secret). */
  apiToken: string;
  /** Token -> owner, for `GET /hub/api/user`. */
  tokens: Map<string, DoubleUser>;
  /** OAuth code -> the token it is exchanged for. */
  codes: Map<string, string>;
  requests: RecordedRequest[];
  /**
   * The token whose owner `GET /hub/api/oauth2/authorize` logs in: the double approves at once and
   * sends the browser to `redirect_uri` with a code for it (`null`: it refuses with 403).
   */
  authorizeAs: string | null;
  /** What the hub does with every request: answer, fail with a status, send garbage, or hang. */
  mode: 'ok' | 'error' | 'garbage' | 'hang';
  /** The environment a spawner would give a server `user`'s server, at `prefix`. */
  env(user: string, prefix: string, extra?: Record<string, string>): Record<string, string>;
  config(user: string, prefix: string, extra?: Record<string, string>): HubConfig;
  close(): Promise<void>;
}

export const SERVER_API_TOKEN = 'server-api-token-0123456789abcdef';

export async function startHubDouble(): Promise<HubDouble> {
  const tokens = new Map<string, DoubleUser>();
  const codes = new Map<string, string>();
  const requests: RecordedRequest[] = [];
  const hanging = new Set<http.ServerResponse>();
  const double = { mode: 'ok', authorizeAs: null } as HubDouble;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const path = new URL(req.url ?? '/', 'http://hub.invalid').pathname;
      requests.push({ method: req.method ?? 'GET', path, authorization: req.headers.authorization, body });
      const json = (status: number, value: unknown) => {
        res.writeHead(status, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify(value));
      };
      if (double.mode === 'hang') {
        hanging.add(res);
        return;
      }
      if (double.mode === 'error') return json(500, { status: 500, message: 'internal error' });
      if (double.mode === 'garbage') {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        return res.end('{"name": 42');
      }
      const token = /^token (\S+)$/.exec(req.headers.authorization ?? '')?.[1];
      if (req.method === 'GET' && path === '/hub/api') return json(200, { version: '3.0.0' });
      if (req.method === 'GET' && path === '/hub/api/oauth2/authorize') {
        const query = new URL(req.url ?? '/', 'http://hub.invalid').searchParams;
        if (double.authorizeAs === null) return json(403, { status: 403, message: 'Forbidden' });
        const code = `code-${codes.size}-${Date.now()}`;
        codes.set(code, double.authorizeAs);
        const back = new URL(query.get('redirect_uri') ?? '/', `http://${req.headers.host}`);
        back.searchParams.set('code', code);
        back.searchParams.set('state', query.get('state') ?? '');
        res.writeHead(302, { Location: back.href });
        return res.end();
      }
      if (req.method === 'GET' && (path === '/hub/logout' || path === '/hub/home')) {
        res.writeHead(200, { 'Content-Type': 'text/html' });
        return res.end(`<!doctype html><title>JupyterHub ${path}</title><h1>${path}</h1>`);
      }
      if (req.method === 'GET' && path === '/hub/api/user') {
        const user = token === undefined ? undefined : tokens.get(token);
        if (!user) return json(403, { status: 403, message: 'Forbidden' });
        return json(200, { kind: 'user', admin: false, groups: [], session_id: null, ...user });
      }
      if (req.method === 'POST' && path === '/hub/api/oauth2/token') {
        const form = new URLSearchParams(body);
        const issued = codes.get(form.get('code') ?? '');
        const clientOk =
          form.get('client_secret') === double.apiToken && form.get('grant_type') === 'authorization_code';
        if (!issued || !clientOk) return json(400, { error: 'invalid_grant' });
        codes.delete(form.get('code') ?? '');
        return json(200, { access_token: issued, token_type: 'Bearer' });
      }
      if (req.method === 'POST' && /^\/hub\/api\/users\/[^/]+\/activity$/.test(path)) {
        if (token !== double.apiToken) return json(403, { status: 403, message: 'Forbidden' });
        res.writeHead(200);
        return res.end();
      }
      json(404, { status: 404, message: 'Not Found' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const env = (user: string, prefix: string, extra: Record<string, string> = {}) => ({
    JUPYTERHUB_API_TOKEN: SERVER_API_TOKEN,
    JUPYTERHUB_API_URL: `${url}/hub/api`,
    JUPYTERHUB_CLIENT_ID: `jupyterhub-user-${encodeURIComponent(user)}`,
    JUPYTERHUB_HOST: '',
    JUPYTERHUB_BASE_URL: '/',
    JUPYTERHUB_SERVICE_PREFIX: prefix,
    JUPYTERHUB_SERVICE_URL: `http://127.0.0.1:0${prefix}`,
    JUPYTERHUB_OAUTH_CALLBACK_URL: `${prefix}oauth_callback`,
    JUPYTERHUB_OAUTH_ACCESS_SCOPES: JSON.stringify([`access:servers!server=${user}/`, `access:servers!user=${user}`]),
    JUPYTERHUB_ACTIVITY_URL: `${url}/hub/api/users/${user}/activity`,
    JUPYTERHUB_USER: user,
    JUPYTERHUB_SERVER_NAME: '',
    ...extra,
  });
  return Object.assign(double, {
    url,
    apiToken: SERVER_API_TOKEN,
    tokens,
    codes,
    requests,
    env,
    config: (user: string, prefix: string, extra?: Record<string, string>) =>
      hubConfigFromEnv(env(user, prefix, extra)),
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  });
}
