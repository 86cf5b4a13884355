import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../testing/server.js';
import { TOKEN } from '../../../testing/token.js';
import { redactUrl } from '../src/middleware/request-log.js';
import { type RunningServer, serve } from '../src/serve.js';

const auth = { Authorization: `token ${TOKEN}` };
const url = (p: string) => `http://localhost${p}`;

describe('app middleware in-process', () => {
  let f: TestApp;
  beforeAll(async () => {
    f = await createTestApp({ maxBodySize: 1024 });
  });
  afterAll(() => f.close());

  it('puts the security headers on every response, errors and redirects included', async () => {
    for (const [target, init] of [
      ['/api/status', { headers: auth }],
      ['/api/status', {}],
      ['/tree', {}],
      ['/api/nope', { headers: auth }],
      ['/login', {}],
    ] as const) {
      const res = await f.app.request(url(target), init);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('referrer-policy')).toBe('same-origin');
      expect(res.headers.get('x-frame-options')).toBe('SAMEORIGIN');
      expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'self'");
    }
  });

  it('API answers are not cacheable unless a route says otherwise; pages keep their own policy', async () => {
    const api = await f.app.request(url('/api/status'), { headers: auth });
    expect(api.headers.get('cache-control')).toBe('no-store');
    const denied = await f.app.request(url('/api/status'));
    expect(denied.headers.get('cache-control')).toBe('no-store');
    const login = await f.app.request(url('/login'));
    expect(login.headers.get('cache-control')).toBe('no-store');
  });

  it('redirects a trailing slash away, keeping the query', async () => {
    const res = await f.app.request(url('/tree/sub/?a=1&b=2'), { headers: auth });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/tree/sub?a=1&b=2');
  });

  it.each([
    ['//evil.com/', '/evil.com'],
    ['///evil.com//', '/evil.com'],
    ['/%2Fevil.com/', '/'],
    ['/%09/evil.com/', '/'],
    ['/%5C/evil.com/', '/'],
  ])('trailing-slash redirect of %s is never off-site (-> %s)', async (target, location) => {
    const res = await f.app.request(`http://localhost${target}`, { headers: auth });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe(location);
  });

  it('JSON 404 under /api, HTML 404 elsewhere', async () => {
    const api = await f.app.request(url('/api/does-not-exist'), { headers: auth });
    expect(api.status).toBe(404);
    expect(await api.json()).toEqual({ message: 'Not Found', reason: null });
    const page = await f.app.request(url('/no/such/page'), { headers: auth });
    expect(page.status).toBe(404);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(await page.text()).toContain('404');
  });

  it('refuses bodies over maxBodySize with 413 JSON and changes nothing', async () => {
    const big = JSON.stringify({ x: 'y'.repeat(2000) });
    const res = await f.app.request(url('/api/config/big'), {
      method: 'PUT',
      headers: { ...auth, 'content-type': 'application/json' },
      body: big,
    });
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ message: expect.stringContaining('1024'), reason: null });
    const after = await f.app.request(url('/api/config/big'), { headers: auth });
    expect(await after.json()).toEqual({});
  });

  it('never logs the token: query tokens are redacted, headers are not logged', async () => {
    await f.app.request(url(`/api/status?token=${TOKEN}`));
    await f.app.request(url('/api/status?token=wrong-token-value'));
    await f.app.request(url('/tree?TOKEN=abc&x=1'), { headers: auth });
    const log = f.logger.lines.join('\n');
    expect(log).toContain('/api/status?token=%5Bsecret%5D');
    expect(log).not.toContain(TOKEN);
    expect(log).not.toContain('wrong-token-value');
  });

  it('redactUrl hides token, _xsrf and password parameters', () => {
    expect(redactUrl('/a?token=s3cret&x=1')).toBe('/a?token=%5Bsecret%5D&x=1');
    expect(redactUrl('/a?x=1&_xsrf=abc&password=p')).toBe('/a?x=1&_xsrf=%5Bsecret%5D&password=%5Bsecret%5D');
    expect(redactUrl('/plain')).toBe('/plain');
    // Mangled names a client may still have meant as the token (the API fuzzer sent `??token=`).
    for (const query of ['??token=s3cret', '?%20Token=s3cret', '?auth_token=s3cret', '?token%5B%5D=s3cret']) {
      expect(redactUrl(`/a${query}`)).not.toContain('s3cret');
    }
  });
});

describe('app middleware over a real socket', () => {
  let f: TestApp;
  let running: RunningServer;
  beforeAll(async () => {
    f = await createTestApp({ maxBodySize: 1024 });
    running = await serve({
      root: `${f.dir}/root`,
      configDir: `${f.dir}/config`,
      dataDir: `${f.dir}/data`,
      token: TOKEN,
      logger: f.logger,
      maxBodySize: 1024,
      port: 0,
    });
  });
  afterAll(async () => {
    await running.close();
    await f.close();
  });

  it('answers /api and /api/status over TCP', async () => {
    expect(running.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const res = await fetch(`${running.url}api`);
    expect(await res.json()).toEqual({ version: expect.any(String) });
    const status = await fetch(`${running.url}api/status`, { headers: auth });
    expect(status.status).toBe(200);
  });

  it('413 for a streamed body without Content-Length that grows too big', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request(`${running.url}api/config/streamed`, {
        method: 'PUT',
        headers: { ...auth, 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
      });
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.write('{"x":"');
      for (let i = 0; i < 10; i++) req.write('z'.repeat(500));
      req.end('"}');
    });
    expect(status).toBe(413);
    const after = await fetch(`${running.url}api/config/streamed`, { headers: auth });
    expect(await after.json()).toEqual({});
  });

  it('answers a rebound Host with 403 over TCP', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      http
        .get(`${running.url}api/status`, { headers: { ...auth, host: 'attacker.example:80' } }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        })
        .on('error', reject);
    });
    expect(status).toBe(403);
  });
});
