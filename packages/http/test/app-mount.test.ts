import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { upgradeWebSocket } from '@hono/node-server';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createTestApp, type TestApp } from '../../../testing/server.js';
import { TOKEN } from '../../../testing/token.js';
import { createApp } from '../src/app.js';
import { normalizeBaseUrl } from '../src/options.js';
import { attachToServer, KERNEL_WS_PROTOCOL, listen, type RunningServer } from '../src/serve.js';

const auth = { Authorization: `token ${TOKEN}` };

/** A WebSocket echo route, so the bridges can be tested without the kernel routes. */
function echoRoute(host: Hono, path: string) {
  host.get(
    path,
    upgradeWebSocket(() => ({
      onMessage(event, ws) {
        ws.send(`echo:${String(event.data)}`);
      },
    })),
  );
}

function openWebSocket(url: string, options: WebSocket.ClientOptions = {}, protocols: string[] = []) {
  return new Promise<WebSocket>((resolve, reject) => {
    const ws = new WebSocket(url, protocols, options);
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
    ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
  });
}

function echo(ws: WebSocket, text: string): Promise<string> {
  return new Promise((resolve) => {
    ws.once('message', (data) => resolve(String(data)));
    ws.send(text);
  });
}

describe('--base-url', () => {
  let f: TestApp;
  beforeAll(async () => {
    f = await createTestApp({ baseUrl: '/nb/' });
  });
  afterAll(() => f.close());

  it('prefixes every route and Location header', async () => {
    expect((await f.app.request('http://localhost/nb/api')).status).toBe(200);
    expect((await f.app.request('http://localhost/api')).status).toBe(404);
    const login = await f.app.request('http://localhost/nb/tree/x');
    expect(login.headers.get('location')).toBe(`/nb/login?next=${encodeURIComponent('/nb/tree/x')}`);
    const slash = await f.app.request('http://localhost/nb/tree/x/?q=1', { headers: auth });
    expect(slash.headers.get('location')).toBe('/nb/tree/x?q=1');
    const cookie = (await f.app.request(`http://localhost/nb/api/status?token=${TOKEN}`)).headers.getSetCookie();
    expect(cookie.find((c) => c.startsWith('username-'))).toMatch(/Path=\/nb\//);
  });

  it('the login form posts under the base URL and returns to a next inside it', async () => {
    const html = await (await f.app.request('http://localhost/nb/login?next=%2Fnb%2Ftree')).text();
    expect(html).toContain('action="/nb/login?next=%2Fnb%2Ftree"');
    const outside = await (await f.app.request('http://localhost/nb/login?next=%2Felsewhere')).text();
    expect(outside).toContain('action="/nb/login?next=%2Fnb%2F"');
  });
});

describe('mounted in a host Hono app', () => {
  let f: TestApp;
  let host: Hono;
  beforeAll(async () => {
    f = await createTestApp({ baseUrl: '/inner/' });
    host = new Hono();
    host.get('/', (c) => c.text('host home'));
    host.route('/tools', f.app);
  });
  afterAll(() => f.close());

  it('serves under the mount path plus base URL, and Locations include both', async () => {
    expect(await (await host.request('http://localhost/')).text()).toBe('host home');
    const api = await host.request('http://localhost/tools/inner/api');
    expect(await api.json()).toEqual({ version: expect.any(String) });
    const page = await host.request('http://localhost/tools/inner/tree');
    expect(page.headers.get('location')).toBe(`/tools/inner/login?next=${encodeURIComponent('/tools/inner/tree')}`);
    const slash = await host.request('http://localhost/tools/inner/a/b/', { headers: auth });
    expect(slash.headers.get('location')).toBe('/tools/inner/a/b');
    const notFound = await host.request('http://localhost/tools/inner/api/nothing', { headers: auth });
    expect(await notFound.json()).toEqual({ message: 'Not Found', reason: null });
  });

  it('logs in under the mount path', async () => {
    const res = await host.request(`http://localhost/tools/inner/tree?token=${TOKEN}`, {
      headers: { accept: 'text/html' },
    });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/tools/inner/tree');
    expect(res.headers.getSetCookie().find((c) => c.startsWith('username-'))).toMatch(/Path=\/tools\/inner\//);
  });

  it('serves over a real socket with WebSockets through listen(), choosing the kernel subprotocol', async () => {
    const outer = new Hono();
    echoRoute(outer, '/echo');
    outer.route('/tools', f.app);
    const running: RunningServer = await listen(outer, { port: 0 });
    try {
      const api = await fetch(`${running.url}tools/inner/api/status`, { headers: auth });
      expect(api.status).toBe(200);
      const wsUrl = `${running.url.replace('http', 'ws')}echo`;
      const ws = await openWebSocket(wsUrl, {}, ['other', KERNEL_WS_PROTOCOL]);
      expect(ws.protocol).toBe(KERNEL_WS_PROTOCOL);
      expect(await echo(ws, 'hi')).toBe('echo:hi');
      ws.close();
      const plain = await openWebSocket(wsUrl);
      expect(plain.protocol).toBe('');
      plain.close();
    } finally {
      await running.close();
    }
  });
});

describe('prefixes as the client sent them', () => {
  it('a base URL with escapes the router decodes (%20) routes, and Locations and cookies repeat it', async () => {
    const f = await createTestApp({ baseUrl: '/a%20b/' });
    try {
      expect((await f.app.request('http://localhost/a%20b/api/status', { headers: auth })).status).toBe(200);
      const root = await f.app.request(`http://localhost/a%20b/?token=${TOKEN}`, { headers: { accept: 'text/html' } });
      expect(root.headers.get('location')).toBe('/a%20b/');
      expect(root.headers.getSetCookie().find((c) => c.startsWith('username-'))).toMatch(/Path=\/a%20b\//);
      const page = await f.app.request('http://localhost/a%20b/tree', { headers: auth });
      expect(await page.text()).toContain('"baseUrl":"/a%20b/"');
    } finally {
      await f.close();
    }
  });

  it('a host mount with a parameter puts the value the client sent in Locations, not the pattern', async () => {
    const f = await createTestApp();
    try {
      const host = new Hono().route('/:tenant', f.app);
      const login = await host.request('http://localhost/acme/tree');
      expect(login.headers.get('location')).toBe(`/acme/login?next=${encodeURIComponent('/acme/tree')}`);
      const created = await host.request('http://localhost/acme/api/contents', {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ type: 'file', ext: '.txt' }),
      });
      expect(created.headers.get('location')).toBe('/acme/api/contents/untitled.txt');
      expect((await host.request('http://localhost/acme/', { headers: auth })).headers.get('location')).toBe(
        '/acme/tree',
      );
    } finally {
      await f.close();
    }
  });
});

describe('attached to a foreign http.Server', () => {
  let f: TestApp;
  let server: http.Server;
  let base: string;
  beforeAll(async () => {
    f = await createTestApp({ baseUrl: '/nb/' });
    const host = new Hono();
    echoRoute(host, '/nb/echo');
    host.route('/', f.app);
    server = http.createServer();
    const { handleRequest } = attachToServer(server, host, { prefix: '/nb/' });
    server.on('request', (req, res) => {
      if (req.url?.startsWith('/nb/')) return handleRequest(req, res);
      res.end('foreign server');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await f.close();
  });

  it('leaves the host its own routes and serves nbserve under its prefix', async () => {
    expect(await (await fetch(`http://${base}/other`)).text()).toBe('foreign server');
    expect((await fetch(`http://${base}/nb/api`)).status).toBe(200);
    expect((await fetch(`http://${base}/nb/api/status`)).status).toBe(403);
    expect((await fetch(`http://${base}/nb/api/status`, { headers: auth })).status).toBe(200);
    // The prefix with its trailing slash is nbserve's root, as printed.
    const root = await fetch(`http://${base}/nb/`, { headers: auth, redirect: 'manual' });
    expect(root.status).toBe(302);
    expect(root.headers.get('location')).toBe('/nb/tree');
  });

  it('bridges WebSocket upgrades and picks the kernel subprotocol', async () => {
    const ws = await openWebSocket(`ws://${base}/nb/echo`, {}, [KERNEL_WS_PROTOCOL]);
    expect(ws.protocol).toBe(KERNEL_WS_PROTOCOL);
    expect(await echo(ws, 'x')).toBe('echo:x');
    ws.close();
  });

  it("runs nbserve's checks on bridged upgrades: a foreign Origin gets 403", async () => {
    await expect(
      openWebSocket(`ws://${base}/nb/api/kernels/abc/channels`, { headers: { ...auth, origin: 'http://evil.com' } }),
    ).rejects.toThrow('HTTP 403');
    await expect(openWebSocket(`ws://${base}/nb/api/kernels/abc/channels`)).rejects.toThrow('HTTP 403');
  });
});

describe('createApp defaults', () => {
  it('generates a random 48-hex token when none is given', () => {
    const a = createApp({ root: '/nonexistent', configDir: '/nonexistent', dataDir: '/nonexistent' });
    const b = createApp({ root: '/nonexistent', configDir: '/nonexistent', dataDir: '/nonexistent' });
    expect(a.services.options.token).toMatch(/^[0-9a-f]{48}$/);
    expect(a.services.options.token).not.toBe(b.services.options.token);
  });
});

describe('base URL validation', () => {
  it.each([
    ['nb', '/nb/'],
    ['/nb', '/nb/'],
    ['//nb//x//', '/nb/x/'],
    ['', '/'],
  ])('normalizes %j to %s', (input, expected) => {
    expect(normalizeBaseUrl(input)).toBe(expected);
  });

  it.each(['/a%40b/', '/user/a%40b/', '/user/a@b/', '/a%20b/', '/a:b/', '/x%2Fy/'])('keeps %j as given', (input) => {
    expect(normalizeBaseUrl(input)).toBe(input);
  });

  it.each([
    '/a b/',
    '/x?y/',
    '/x#y',
    '/a\\b/',
    '/../x/',
    '/./',
    '/<script>/',
    // malformed or non-UTF-8 escapes, and what decodes to a dot segment or a route pattern
    '/a%zz/',
    '/a%/',
    '/%FF/',
    '/%2E%2E/x/',
    '/:user/',
    '/a*/',
    '/%2A/',
    '/%7Bx%7D/',
  ])('refuses %j', (input) => {
    expect(() => normalizeBaseUrl(input)).toThrow(/Invalid base URL/);
  });
});
