import http from 'node:http';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, startServer, type TestApp } from '../../../testing/server.js';
import { TOKEN } from '../../../testing/token.js';
import { checkWebSocketOrigin, hostAllowed, originMatches } from '../src/auth/origin.js';
import { attachToServer } from '../src/serve.js';

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

describe('a Host header that is no host, over a real socket', () => {
  // Found by the API fuzzer: a WebSocket upgrade with `Host: <svg/onload=x()>` was answered 500
  // (node-server builds the request URL from Host and only its plain-request path maps that to 400).
  const raw = (port: number, lines: string[]) =>
    new Promise<string>((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1', () => socket.write(`${lines.join('\r\n')}\r\n\r\n`));
      let answer = '';
      socket.on('data', (chunk) => {
        answer += chunk.toString('latin1');
      });
      socket.on('end', () => resolve(answer));
      socket.on('error', reject);
      socket.setTimeout(10_000, () => socket.destroy()); // a server that neither answers nor closes
    });
  const upgrade = (path: string, host: string) => [
    `GET ${path} HTTP/1.1`,
    `Host: ${host}`,
    'Upgrade: websocket',
    'Connection: Upgrade',
    'Sec-WebSocket-Version: 13',
    'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==',
    `Authorization: token ${TOKEN}`,
  ];
  const BAD_HOSTS = ['<svg/onload=fz4()>', '"><img src=x>', 'a b', 'exa mple:1'];

  it.each(BAD_HOSTS)(
    'Host %j: 400 for a request and for an upgrade, never 500; the server keeps serving',
    async (host) => {
      const running = await startServer();
      try {
        for (const target of ['/api/kernels/x/channels', '/api/status']) {
          expect((await raw(running.port, upgrade(target, host))).split('\r\n')[0]).toBe('HTTP/1.1 400 Bad Request');
        }
        const plain = await raw(running.port, ['GET /api/status HTTP/1.1', `Host: ${host}`, 'Connection: close']);
        expect(plain.split('\r\n')[0]).toBe('HTTP/1.1 400 Bad Request');
        expect((await running.fetch('api/status')).status).toBe(200);
      } finally {
        await running.close();
      }
    },
  );

  it('the same through attachToServer (nbserve inside a foreign http.Server)', async () => {
    const { app, close } = await createTestApp();
    const server = http.createServer();
    const { handleRequest, detach } = attachToServer(server, app);
    server.on('request', handleRequest);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    try {
      const answer = await raw(port, upgrade('/api/kernels/x/channels', BAD_HOSTS[0] as string));
      expect(answer.split('\r\n')[0]).toBe('HTTP/1.1 400 Bad Request');
    } finally {
      detach();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await close();
    }
  });
});
