import { promises as fs } from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { selfSignedCert } from '../../../testing/certs.js';
import { makeTempDir, removeDir } from '../../../testing/temp.js';
import { TOKEN } from '../../../testing/token.js';
import { listen, type RunningServer, serve } from '../src/serve.js';

let dir: string;
let cert: Buffer;
let certfile: string;
let keyfile: string;

beforeAll(async () => {
  dir = await makeTempDir();
  // A real self-signed certificate for 127.0.0.1, made by openssl for this run.
  ({ certfile, keyfile, cert } = await selfSignedCert(dir));
  await fs.mkdir(path.join(dir, 'root'));
});
afterAll(() => removeDir(dir));

function get(url: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }>(
    (resolve, reject) => {
      https
        .get(url, { ca: cert, headers }, (res) => {
          let body = '';
          res.on('data', (d) => {
            body += String(d);
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
        })
        .on('error', reject);
    },
  );
}

describe('HTTPS', () => {
  let running: Awaited<ReturnType<typeof serve>>;
  beforeAll(async () => {
    running = await serve({
      root: path.join(dir, 'root'),
      configDir: path.join(dir, 'config'),
      dataDir: path.join(dir, 'data'),
      token: TOKEN,
      port: 0,
      certfile,
      keyfile,
    });
  });
  afterAll(() => running.close());

  it('serves over TLS with an https URL', async () => {
    expect(running.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/$/);
    const res = await get(`${running.url}api`);
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toEqual({ version: expect.any(String) });
  });

  it('marks the login and XSRF cookies Secure', async () => {
    const res = await get(`${running.url}tree?token=${TOKEN}`, { accept: 'text/html' });
    expect(res.status).toBe(302);
    const cookies = [res.headers['set-cookie'] ?? []].flat();
    const login = cookies.find((c) => c.startsWith('username-'));
    expect(login).toMatch(/; Secure/);
    expect(cookies.find((c) => c.startsWith('_xsrf='))).toMatch(/; Secure/);
  });

  it('refuses a plain-HTTP client', async () => {
    await expect(fetch(running.url.replace('https:', 'http:'))).rejects.toThrow();
  });
});

describe('WSS through listen()', () => {
  let running: RunningServer;
  beforeAll(async () => {
    const { Hono } = await import('hono');
    const { upgradeWebSocket } = await import('@hono/node-server');
    const host = new Hono();
    host.get(
      '/echo',
      upgradeWebSocket(() => ({
        onMessage(event, ws) {
          ws.send(`tls:${String(event.data)}`);
        },
      })),
    );
    running = await listen(host, { port: 0, certfile, keyfile });
  });
  afterAll(() => running.close());

  it('upgrades a wss:// connection', async () => {
    const ws = new WebSocket(`${running.url.replace('https', 'wss')}echo`, { ca: cert });
    await new Promise((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('error', reject);
    });
    const reply = new Promise<string>((resolve) => ws.once('message', (d) => resolve(String(d))));
    ws.send('ping');
    expect(await reply).toBe('tls:ping');
    ws.close();
  });
});

describe('TLS configuration errors', () => {
  it.each([
    [{ certfile: 'x.pem' }, 'both a certificate file and a key file'],
    [{ keyfile: 'x.pem' }, 'both a certificate file and a key file'],
    [{ certfile: '/nonexistent/cert.pem', keyfile: '/nonexistent/key.pem' }, 'Cannot read the certificate file'],
  ])('%j -> %s', async (tls, message) => {
    await expect(
      serve({
        root: path.join(dir, 'root'),
        configDir: path.join(dir, 'config'),
        dataDir: path.join(dir, 'data'),
        token: TOKEN,
        port: 0,
        ...tls,
      }),
    ).rejects.toThrow(message);
  });
});
