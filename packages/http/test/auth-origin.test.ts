import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../testing/server.js';
import { TOKEN } from '../../../testing/token.js';
import { checkWebSocketOrigin, hostAllowed, originMatches } from '../src/auth/origin.js';

const auth = { Authorization: `token ${TOKEN}` };

describe('Origin checks on the API', () => {
  let f: TestApp;
  beforeAll(async () => {
    f = await createTestApp({
      allowOrigin: ['https://exact.example.org'],
      allowOriginPattern: 'https://trusted\\.example\\.com',
    });
  });
  afterAll(() => f.close());

  const get = (origin: string | null, host = 'localhost:8888') =>
    f.app.request(`http://${host}/api/status`, {
      headers: { ...auth, host, ...(origin === null ? {} : { origin }) },
    });

  it.each([
    [null, 200],
    ['http://localhost:8888', 200],
    ['https://exact.example.org', 200],
    ['https://trusted.example.com', 200],
    ['https://trusted.example.com.evil.com', 404],
    ['https://evil.com/https://trusted.example.com', 404],
    ['https://xtrusted.example.com', 404],
    ['http://localhost:9999', 404],
    ['http://localhost:8888.evil.com', 404],
    ['https://exact.example.org.evil.com', 404],
    ['null', 404],
    ['http://evil.com', 404],
  ])('Origin %s -> %i', async (origin, status) => {
    const res = await get(origin);
    expect(res.status).toBe(status);
    if (status === 404) expect(await res.json()).toEqual({ message: 'Not Found', reason: null });
  });

  it('adds CORS headers for configured origins only', async () => {
    const allowed = await get('https://trusted.example.com');
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://trusted.example.com');
    const same = await get('http://localhost:8888');
    expect(same.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('answers a CORS preflight without authentication', async () => {
    const res = await f.app.request('http://localhost/api/contents/x', {
      method: 'OPTIONS',
      headers: { origin: 'https://exact.example.org', 'access-control-request-method': 'PUT' },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-headers')).toBe(
      'accept, content-type, authorization, x-xsrftoken, x-csrftoken',
    );
    expect(res.headers.get('access-control-allow-methods')).toBe('GET, PUT, POST, PATCH, DELETE, OPTIONS');
    expect(res.headers.get('access-control-allow-origin')).toBe('https://exact.example.org');
  });

  it('refuses a WebSocket upgrade from a foreign origin with 403, before any route runs', async () => {
    const res = await f.app.request('http://localhost:8888/api/kernels/x/channels', {
      headers: { ...auth, host: 'localhost:8888', upgrade: 'websocket', origin: 'http://evil.com' },
    });
    expect(res.status).toBe(403);
  });

  it('refuses a cookie-authenticated WebSocket without Origin', async () => {
    const res = await f.app.request('http://localhost:8888/api/kernels/x/channels', {
      headers: { host: 'localhost:8888', upgrade: 'websocket' },
    });
    expect(res.status).toBe(403);
  });
});

describe('checkWebSocketOrigin', () => {
  const options = { allowOrigin: [] as string[], allowOriginPattern: 'https://(a|b)\\.example\\.com' };
  it.each([
    [{ origin: 'http://localhost:8888', host: 'localhost:8888' }, false, true],
    [{ origin: 'http://127.0.0.1:8888', host: 'localhost:8888' }, false, false],
    [{ origin: 'https://a.example.com', host: 'localhost:8888' }, false, true],
    [{ origin: 'https://a.example.com.evil.com', host: 'localhost:8888' }, false, false],
    [{ origin: 'https://ab.example.com', host: 'localhost:8888' }, false, false],
    [{ host: 'localhost:8888' }, false, false],
    [{ host: 'localhost:8888' }, true, true],
    [{ origin: 'http://evil.com', host: 'localhost:8888' }, true, false],
  ])('%j tokenAuthenticated=%s -> %s', (headers, tokenAuthenticated, expected) => {
    expect(checkWebSocketOrigin(headers, options, tokenAuthenticated)).toBe(expected);
  });

  it('allowOrigin * allows anything', () => {
    expect(checkWebSocketOrigin({ host: 'h' }, { allowOrigin: ['*'], allowOriginPattern: '' }, false)).toBe(true);
    expect(originMatches('http://evil.com', 'h', { allowOrigin: ['*'], allowOriginPattern: '' })).toBe(true);
  });

  it('a broken pattern matches nothing instead of throwing', () => {
    expect(originMatches('http://x', 'y', { allowOrigin: [], allowOriginPattern: '(' })).toBe(false);
  });
});

describe('Host allow-list against DNS rebinding', () => {
  const local = { ip: '127.0.0.1', allowRemoteAccess: false, allowedHosts: ['nb.internal'] };
  it.each([
    ['localhost:8888', true],
    ['127.0.0.1:8888', true],
    ['[::1]:8888', true],
    ['LOCALHOST', true],
    ['nb.internal:8888', true],
    ['evil.com', false],
    ['localhost.evil.com:8888', false],
    ['127.0.0.1.evil.com', false],
    ['nb.internal.evil.com', false],
    [undefined, false],
  ])('Host %s -> %s', (host, expected) => {
    expect(hostAllowed(host, local)).toBe(expected);
  });

  it('does not apply when remote access is allowed or the server binds a public interface', () => {
    expect(hostAllowed('evil.com', { ...local, allowRemoteAccess: true })).toBe(true);
    expect(hostAllowed('evil.com', { ...local, ip: '0.0.0.0' })).toBe(true);
  });

  it('the app answers 403 for a rebound Host, even with a valid token', async () => {
    const f = await createTestApp();
    try {
      const res = await f.app.request('http://evil.com/api/status', { headers: { ...auth, host: 'evil.com' } });
      expect(res.status).toBe(403);
      expect((await res.json()).reason).toBeNull();
      const ok = await f.app.request('http://localhost/api/status', { headers: { ...auth, host: 'localhost:1234' } });
      expect(ok.status).toBe(200);
    } finally {
      await f.close();
    }
  });
});
