/**
 * Hub mode's rules over a real socket, against a JupyterHub API double: the OAuth flow (state
 * checked, code exchanged with the API token as client secret, identity admitted by its scopes,
 * a signed cookie of nbserve's own), hub tokens, 403s for the API, the hub being down or confused,
 * logout and login pages, and no token in any log. Under plain and escaped JupyterHub prefixes.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { CookieJar } from '../../../testing/cookie-jar.js';
import { type HubDouble, SERVER_API_TOKEN, startHubDouble } from '../../../testing/hub-double.js';
import { startServer, type TestServer } from '../../../testing/server.js';

let hub: HubDouble;
const servers: TestServer[] = [];

beforeAll(async () => {
  hub = await startHubDouble();
});
afterAll(async () => {
  await hub.close();
});
afterEach(async () => {
  hub.mode = 'ok';
  hub.tokens.clear();
  hub.codes.clear();
  hub.requests.length = 0;
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function hubServer(user: string, prefix: string): Promise<TestServer> {
  const server = await startServer({ baseUrl: prefix, hub: hub.config(user, prefix) });
  servers.push(server);
  return server;
}

/** A request as a browser sends it: the jar's cookies, no token. */
async function browse(server: TestServer, jar: CookieJar, relative: string, init: RequestInit = {}) {
  const path = server.path(relative);
  const headers = new Headers(init.headers);
  const cookie = jar.header(path.split('?')[0] as string);
  if (cookie) headers.set('cookie', cookie);
  const response = await server.fetch(relative, { ...init, headers, auth: false });
  jar.store(response, path.split('?')[0] as string);
  return response;
}

/** The hub's half of the flow: alice authorizes, the hub sends her back with a code for `token`. */
async function logIn(server: TestServer, jar: CookieJar, token: string, page = 'tree') {
  const start = await browse(server, jar, page);
  expect(start.status).toBe(302);
  const authorize = new URL(start.headers.get('location') as string, 'http://proxy.invalid');
  const code = `code-${Math.random().toString(36).slice(2)}`;
  hub.codes.set(code, token);
  const query = new URLSearchParams({ code, state: authorize.searchParams.get('state') ?? '' });
  return browse(server, jar, `oauth_callback?${query}`);
}

function allLogs(server: TestServer): string {
  return server.logger.lines.join('\n');
}

const ALICE = { name: 'alice', scopes: ['access:servers!server=alice/', 'read:users:name!user=alice'] };

describe.each([
  { user: 'alice', prefix: '/user/alice/' },
  { user: 'a@b', prefix: '/user/a%40b/' },
])('hub mode at $prefix', ({ user, prefix }) => {
  const me = { name: user, scopes: [`access:servers!server=${user}/`] };

  it('sends browsers through the hub OAuth flow and admits them with a cookie of its own', async () => {
    const server = await hubServer(user, prefix);
    hub.tokens.set('alice-oauth-token', me);
    const jar = new CookieJar();
    const start = await browse(server, jar, 'tree/sub?x=1');
    expect(start.status).toBe(302);
    const location = new URL(start.headers.get('location') as string, 'http://proxy.invalid');
    expect(location.pathname).toBe('/hub/api/oauth2/authorize');
    expect(location.searchParams.get('client_id')).toBe(`jupyterhub-user-${encodeURIComponent(user)}`);
    expect(location.searchParams.get('redirect_uri')).toBe(`${prefix}oauth_callback`);
    expect(location.searchParams.get('response_type')).toBe('code');
    const state = location.searchParams.get('state') ?? '';
    expect(state).toMatch(/^[\w-]{20,}$/);
    const stateCookie = jar.all().find((c) => c.name.endsWith('-oauth-state'));
    expect(stateCookie).toMatchObject({ path: prefix, httpOnly: true });

    const code = 'the-code';
    hub.codes.set(code, 'alice-oauth-token');
    const back = await browse(server, jar, `oauth_callback?code=${code}&state=${state}`);
    expect(back.status).toBe(302);
    expect(back.headers.get('location')).toBe(`${prefix}tree/sub?x=1`);
    const exchange = hub.requests.find((r) => r.path === '/hub/api/oauth2/token');
    const form = new URLSearchParams(exchange?.body);
    expect(Object.fromEntries(form)).toEqual({
      client_id: `jupyterhub-user-${encodeURIComponent(user)}`,
      client_secret: SERVER_API_TOKEN,
      grant_type: 'authorization_code',
      code,
      redirect_uri: `${prefix}oauth_callback`,
    });
    expect(hub.requests.some((r) => r.path === '/hub/api/user' && r.authorization === 'token alice-oauth-token')).toBe(
      true,
    );
    const login = jar.all().find((c) => c.name === `jupyterhub-user-${encodeURIComponent(user)}`.replace('%', '-'));
    expect(login).toMatchObject({ path: prefix, httpOnly: true, sameSite: 'Lax' });
    expect(login?.value).not.toContain('alice-oauth-token'); // encoded and signed, not the bare token
    expect(jar.all().some((c) => c.name.endsWith('-oauth-state'))).toBe(false); // used up

    const page = await browse(server, jar, 'tree');
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('"hubControlPanelUrl":"/hub/home"');
    const api = await browse(server, jar, 'api/contents');
    expect(api.status).toBe(200);
    const identity = (await (await browse(server, jar, 'api/me')).json()) as { identity: { username: string } };
    expect(identity.identity.username).toBe(user);
    // Cookie-authenticated writes still need the XSRF token the page set.
    const noXsrf = await browse(server, jar, 'api/contents', { method: 'POST', body: '{"type":"notebook"}' });
    expect(noXsrf.status).toBe(403);
    const xsrf = jar.get('_xsrf', server.path('api/contents')) ?? '';
    const created = await browse(server, jar, 'api/contents', {
      method: 'POST',
      body: '{"type":"notebook"}',
      headers: { 'X-XSRFToken': xsrf },
    });
    expect(created.status).toBe(201);
    expect(allLogs(server)).not.toContain('alice-oauth-token');
    expect(allLogs(server)).not.toContain(SERVER_API_TOKEN);
  });

  it('answers the API, WebSockets and the readiness probe without credentials as the hub expects', async () => {
    const server = await hubServer(user, prefix);
    const probe = await server.fetch('', { auth: false });
    expect(probe.status).toBe(302); // any non-5xx counts as up
    for (const path of ['api/contents', 'api/kernels', 'api/sessions']) {
      const response = await server.fetch(path, { auth: false, headers: { Accept: 'text/html' } });
      expect(response.status).toBe(403);
      expect(await response.json()).toMatchObject({ message: 'Forbidden', reason: null });
    }
    const ws = new WebSocket(server.wsUrl('api/kernels/x/channels'), { headers: { Origin: server.origin } });
    const status = await new Promise<number>((resolve) => {
      ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      ws.on('open', () => resolve(101));
      ws.on('error', () => resolve(-1));
    });
    ws.terminate();
    expect(status).toBe(403);
    // The local token (the kit's TOKEN) is no way in: only the hub is.
    expect((await server.fetch('api/contents')).status).toBe(403);
  });

  it('refuses identities whose scopes do not grant this server, at login and by token', async () => {
    const server = await hubServer(user, prefix);
    hub.tokens.set('bob-token', { name: 'bob', scopes: ['access:servers!user=bob', 'access:servers!server=bob/'] });
    const jar = new CookieJar();
    const back = await logIn(server, jar, 'bob-token');
    expect(back.status).toBe(403);
    expect(await back.json()).toMatchObject({ message: 'You are not allowed on this server' });
    expect(jar.all().some((c) => c.name.startsWith('jupyterhub-user-'))).toBe(false);
    for (const token of ['bob-token', 'unknown-token']) {
      expect(
        (await server.fetch('api/contents', { auth: false, headers: { Authorization: `token ${token}` } })).status,
      ).toBe(403);
    }
    expect(allLogs(server)).toContain('Refusing user "bob"');
    expect(allLogs(server)).not.toContain('bob-token');
  });

  it('admits hub tokens by header or query, an owner scope, and an unfiltered access:servers', async () => {
    const server = await hubServer(user, prefix);
    hub.tokens.set('t-server', me);
    hub.tokens.set('t-user', { name: user, scopes: [`access:servers!user=${user}`] });
    hub.tokens.set('t-admin', { name: 'root', admin: true, scopes: ['access:servers', 'admin:users'] });
    hub.tokens.set('t-service', { kind: 'service', name: 'cull-idle', scopes: ['access:servers'] });
    for (const token of ['t-server', 't-user', 't-admin', 't-service']) {
      const byHeader = await server.fetch('api/status', { auth: false, headers: { Authorization: `token ${token}` } });
      expect(byHeader.status).toBe(200);
      const bearer = await server.fetch('api/status', { auth: false, headers: { Authorization: `Bearer ${token}` } });
      expect(bearer.status).toBe(200);
    }
    expect((await server.fetch(`api/status?token=t-user`, { auth: false })).status).toBe(200);
    // A token-authenticated write needs no XSRF token.
    const created = await server.fetch('api/contents', {
      auth: false,
      method: 'POST',
      body: '{"type":"file"}',
      headers: { Authorization: 'token t-user' },
    });
    expect(created.status).toBe(201);
  });
});

describe('hub mode: state, cookies and the hub failing', () => {
  it('checks the OAuth state against its cookie', async () => {
    const server = await hubServer('alice', '/user/alice/');
    hub.tokens.set('alice-token', ALICE);
    const jar = new CookieJar();
    const start = await browse(server, jar, 'tree');
    const state = new URL(start.headers.get('location') as string, 'http://x').searchParams.get('state') ?? '';
    hub.codes.set('c1', 'alice-token');
    // Another state than the cookie's, or no cookie at all: 403, nothing exchanged.
    const wrong = await browse(server, jar, `oauth_callback?code=c1&state=${state}x`);
    expect(wrong.status).toBe(403);
    expect(await wrong.json()).toMatchObject({ message: 'OAuth state does not match. Try logging in again.' });
    const noCookie = await server.fetch(`oauth_callback?code=c1&state=${state}`, { auth: false });
    expect(noCookie.status).toBe(403);
    expect(hub.requests.some((r) => r.path === '/hub/api/oauth2/token')).toBe(false);
    // A state cookie from another server (another key) does not pass either.
    const other = await hubServer('alice', '/user/alice/');
    const otherJar = new CookieJar();
    const otherStart = await browse(other, otherJar, 'tree');
    const otherState = new URL(otherStart.headers.get('location') as string, 'http://x').searchParams.get('state');
    const crossed = await browse(server, otherJar, `oauth_callback?code=c1&state=${otherState}`);
    expect(crossed.status).toBe(403);
    // Bad callbacks are 400s: no code, no state, or the hub's error.
    expect((await server.fetch('oauth_callback?state=s', { auth: false })).status).toBe(400);
    expect((await server.fetch('oauth_callback?code=c', { auth: false })).status).toBe(400);
    const denied = await server.fetch('oauth_callback?error=access_denied&error_description=%3Cb%3Eno', {
      auth: false,
    });
    expect(denied.status).toBe(400);
    expect(await denied.json()).toMatchObject({ message: 'JupyterHub did not log you in: <b>no' });
    // A code the hub does not know: 403, no cookie.
    const jar2 = new CookieJar();
    const start2 = await browse(server, jar2, 'tree');
    const state2 = new URL(start2.headers.get('location') as string, 'http://x').searchParams.get('state');
    const unknown = await browse(server, jar2, `oauth_callback?code=nope&state=${state2}`);
    expect(unknown.status).toBe(403);
    expect(jar2.all().some((c) => c.name === 'jupyterhub-user-alice')).toBe(false);
    expect(server.logger.lines.join('\n')).not.toMatch(/code=nope|state=[\w-]{10}/);
  });

  it('ignores tampered or foreign login cookies', async () => {
    const server = await hubServer('alice', '/user/alice/');
    hub.tokens.set('alice-token', ALICE);
    const jar = new CookieJar();
    expect((await logIn(server, jar, 'alice-token')).status).toBe(302);
    const cookie = jar.all().find((c) => c.name === 'jupyterhub-user-alice')?.value ?? '';
    const [token, issued, mac] = cookie.split('.');
    const forged = [
      `${Buffer.from('t-admin').toString('base64url')}.${issued}.${mac}`,
      `${token}.${Number(issued) + 1}.${mac}`,
      `${token}.${issued}`,
      'alice-token',
    ];
    hub.tokens.set('t-admin', { name: 'root', scopes: ['access:servers'] });
    for (const value of forged) {
      const api = await server.fetch('api/contents', {
        auth: false,
        headers: { cookie: `jupyterhub-user-alice=${value}` },
      });
      expect(api.status).toBe(403);
      const page = await server.fetch('tree', { auth: false, headers: { cookie: `jupyterhub-user-alice=${value}` } });
      expect(page.status).toBe(302);
    }
    // The same cookie on a respawned server (a new key) means a new login.
    const respawned = await hubServer('alice', '/user/alice/');
    const again = await respawned.fetch('api/contents', {
      auth: false,
      headers: { cookie: `jupyterhub-user-alice=${cookie}` },
    });
    expect(again.status).toBe(403);
  });

  it('answers 503 when the hub is down, slow to answer or confused, and never leaks the token', async () => {
    const server = await hubServer('alice', '/user/alice/');
    for (const mode of ['error', 'garbage'] as const) {
      hub.mode = mode;
      const response = await server.fetch('api/contents', {
        auth: false,
        headers: { Authorization: `token t-${mode}` },
      });
      expect(response.status).toBe(503);
      const body = (await response.json()) as { message: string };
      expect(body.message).toMatch(/JupyterHub/);
      expect(body.message).not.toContain(`t-${mode}`);
    }
    hub.mode = 'ok';
    const gone = await startServer({
      baseUrl: '/user/alice/',
      hub: hub.config('alice', '/user/alice/', { JUPYTERHUB_API_URL: 'http://127.0.0.1:9/hub/api' }),
    });
    servers.push(gone);
    const unreachable = await gone.fetch('api/contents', { auth: false, headers: { Authorization: 'token t-x' } });
    expect(unreachable.status).toBe(503);
    expect(await unreachable.json()).toMatchObject({
      message: 'JupyterHub could not be reached: GET /hub/api/user failed',
    });
    const logs = [...server.logger.lines, ...gone.logger.lines].join('\n');
    expect(logs).not.toContain('t-error');
    expect(logs).not.toContain(SERVER_API_TOKEN);
  });

  it('sends /login to the hub and /logout through the hub logout', async () => {
    const server = await hubServer('alice', '/user/alice/');
    hub.tokens.set('alice-token', ALICE);
    const anonymous = await server.fetch('login?next=%2Fuser%2Falice%2Fnotebooks%2Fa.ipynb', { auth: false });
    expect(anonymous.status).toBe(302);
    expect(anonymous.headers.get('location')).toMatch(/^\/hub\/api\/oauth2\/authorize\?/);
    const jar = new CookieJar();
    await logIn(server, jar, 'alice-token');
    const loggedIn = await browse(server, jar, 'login?next=%2Fuser%2Falice%2Ftree');
    expect(loggedIn.headers.get('location')).toBe('/user/alice/tree');
    const out = await browse(server, jar, 'logout');
    expect(out.status).toBe(302);
    expect(out.headers.get('location')).toBe('/hub/logout');
    expect(jar.all().some((c) => c.name === 'jupyterhub-user-alice')).toBe(false);
    // Other redirects still may not leave the server: the exception is only the hub's own URLs.
    const offsite = await browse(server, jar, 'login?next=https%3A%2F%2Fevil.example%2F');
    expect(offsite.headers.get('location')).toMatch(/^\/hub\/api\/oauth2\/authorize\?/);
  });

  it('uses JUPYTERHUB_HOST for the hub pages when the hub lives on another origin', async () => {
    const server = await startServer({
      baseUrl: '/user/alice/',
      hub: hub.config('alice', '/user/alice/', { JUPYTERHUB_HOST: 'https://hub.example.org' }),
    });
    servers.push(server);
    const start = await server.fetch('tree', { auth: false, headers: { 'X-Forwarded-Proto': 'https' } });
    expect(start.headers.get('location')).toMatch(/^https:\/\/hub\.example\.org\/hub\/api\/oauth2\/authorize\?/);
    expect(start.headers.get('set-cookie')).toMatch(/; Secure/);
    expect((await server.fetch('logout', { auth: false })).headers.get('location')).toBe(
      'https://hub.example.org/hub/logout',
    );
  });
});
