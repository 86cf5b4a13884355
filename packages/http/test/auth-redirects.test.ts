import { promises as fs } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setCookies } from '../../../testing/cookie-jar.js';
import { createTestApp, type TestApp } from '../../../testing/server.js';
import { TOKEN } from '../../../testing/token.js';
import type { NbserveApp } from '../src/app.js';
import { listen, type RunningServer } from '../src/serve.js';

/**
 * Every redirect the server sends, fed hostile targets: wherever a browser would go with the
 * `Location` we answer (resolved by the WHATWG URL parser against the request URL, over http and
 * https), it stays on this server and under the base URL.
 */

/** Hostile `next=` values and request paths; `BASE` stands for the base URL without its slash. */
const HOSTILE = [
  '//evil.example',
  '///evil.example',
  '//evil.example/BASE/',
  '/\\evil.example',
  '\\/evil.example',
  '\\\\evil.example',
  '/\\/evil.example',
  '/%2F/evil.example',
  '/%2f%2fevil.example',
  '%2F%2Fevil.example',
  '/%5Cevil.example',
  '/%5C%5Cevil.example',
  '/%255C%255Cevil.example',
  '/%252F%252Fevil.example',
  '/%25252F%25252Fevil.example',
  '/\t/evil.example',
  '/\n/evil.example',
  '/\r\n/evil.example',
  '\t//evil.example',
  ' //evil.example',
  '/%09/evil.example',
  '/%0a/evil.example',
  '/%0d%0aLocation:%20//evil.example',
  'BASE/../..//evil.example',
  'BASE/./../..//evil.example',
  'BASE/%2e%2e/%2e%2e//evil.example',
  'BASE/.%2E/.%2e//evil.example',
  'BASE/..%2F..%2F%2Fevil.example',
  'BASE/..\\..\\\\evil.example',
  'BASE/\t..//evil.example',
  'javascript:alert(1)',
  'JaVaScRiPt:alert(1)',
  ' javascript:alert(1)',
  'java\nscript:alert(1)',
  'data:text/html,<script>alert(1)</script>',
  'http://evil.example',
  'https://evil.example/',
  'http:evil.example',
  'https:evil.example',
  'http:/\\evil.example',
  'ftp://evil.example/',
  '//evil.example@localhost/',
  'http://localhost@evil.example/',
  'http://user:pw@localhost/BASE/',
  'http://localhost:9999/BASE/tree',
  '//localhost:9999/BASE/tree',
  'http://127.0.0.1/BASE/tree',
  '/other/tree',
  'BASEx/tree',
];

const BASES = ['/', '/nb/'];

function fill(value: string, base: string): string {
  return value.replaceAll('BASE', base.slice(0, -1));
}

/** Asserts that a browser following `location` from `requestUrl` stays on the server, under `base`. */
function expectLocal(location: string | null, requestUrl: string, base: string): void {
  expect(location, `no Location for ${requestUrl}`).not.toBeNull();
  const target = location as string;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
  expect(target, `Location ${JSON.stringify(target)}`).not.toMatch(/[\\\u0000-\u001f\u007f]/);
  expect(target.startsWith('//'), `Location ${JSON.stringify(target)}`).toBe(false);
  for (const scheme of ['http', 'https']) {
    const from = new URL(requestUrl.replace(/^https?:/, `${scheme}:`));
    const landed = new URL(target, from);
    expect(landed.origin, `${JSON.stringify(target)} from ${from.href}`).toBe(from.origin);
    const underBase = landed.pathname === base.slice(0, -1) || landed.pathname.startsWith(base);
    expect(underBase, `${JSON.stringify(target)} lands on ${landed.pathname}`).toBe(true);
    // Decoded by a proxy or a later hop, the path still names no other host.
    expect(decodeURIComponent(landed.pathname.replace(/%(?![0-9a-f]{2})/gi, '%25'))).not.toMatch(/^\/[/\\]/);
  }
}

function isRedirect(status: number): boolean {
  return status >= 300 && status < 400;
}

/** Follows same-server redirects in-process (cookies kept) and checks every hop. */
async function followAll(
  app: NbserveApp,
  base: string,
  start: string,
  init: RequestInit & { headers: Record<string, string> },
): Promise<Response> {
  let url = start;
  let response = await app.request(url, init);
  const cookies = new Map<string, string>();
  for (let hop = 0; hop < 5 && isRedirect(response.status); hop++) {
    expectLocal(response.headers.get('location'), url, base);
    for (const [name, { value }] of setCookies(response)) cookies.set(name, value);
    url = new URL(response.headers.get('location') as string, url).href;
    const cookie = [...cookies].map(([n, v]) => `${n}=${v}`).join('; ');
    response = await app.request(url, { headers: { ...init.headers, cookie } });
  }
  return response;
}

/** Logs in through `?token=` under `base`; the Cookie header a browser then sends. */
async function loginCookiesAt(app: NbserveApp, base: string): Promise<{ cookie: string; xsrf: string }> {
  const response = await app.request(`http://localhost${base}api/status?token=${TOKEN}`);
  const login = [...setCookies(response)].find(([name]) => name.startsWith('username-'));
  if (!login) throw new Error('no login cookie was set');
  const xsrf = 'x5rfx5rfx5rfx5rf';
  return { cookie: `${login[0]}=${login[1].value}; _xsrf=${xsrf}`, xsrf };
}

const NAVIGATE = { 'sec-fetch-mode': 'navigate', accept: 'text/html' };

describe.each(BASES)('every redirect stays on the server (base %s)', (base) => {
  let f: TestApp;
  let server: RunningServer;
  let login: { cookie: string; xsrf: string };
  const origin = 'http://localhost';
  const at = (p: string) => `${origin}${base}${p}`;

  beforeAll(async () => {
    f = await createTestApp({ baseUrl: base });
    const root = path.join(f.dir, 'root');
    const notebook = JSON.stringify({ nbformat: 4, nbformat_minor: 5, metadata: {}, cells: [] });
    // Names that look like the hostile targets: their page redirects must stay local too.
    for (const name of ['\\evil.example', '%2F%2Fevil.example', 'a b']) {
      await fs.mkdir(path.join(root, name));
      await fs.writeFile(path.join(root, `${name}.ipynb`), notebook);
      await fs.writeFile(path.join(root, `${name}.txt`), 'text');
    }
    server = await listen(f.app, { port: 0, ip: '127.0.0.1', baseUrl: base });
    login = await loginCookiesAt(f.app, base);
  });

  afterAll(async () => {
    await server?.close();
    await f?.close();
  });

  it.each(HOSTILE)('POST /login next=%j (form and query)', async (raw) => {
    const next = fill(raw, base);
    for (const where of ['form', 'query'] as const) {
      const form = new URLSearchParams({ password: TOKEN, _xsrf: login.xsrf });
      if (where === 'form') form.set('next', next);
      const url = where === 'query' ? at(`login?next=${encodeURIComponent(next)}`) : at('login');
      const res = await f.app.request(url, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `_xsrf=${login.xsrf}` },
        body: form.toString(),
      });
      expect(res.status).toBe(302);
      expectLocal(res.headers.get('location'), url, base);
    }
  });

  it.each(HOSTILE)('GET /login?next=%j when logged in (cookie, token header, ?token=)', async (raw) => {
    const query = `next=${encodeURIComponent(fill(raw, base))}`;
    const byCookie = await f.app.request(at(`login?${query}`), { headers: { cookie: login.cookie } });
    expect(byCookie.status).toBe(302);
    expectLocal(byCookie.headers.get('location'), at(`login?${query}`), base);
    const byHeader = await f.app.request(at(`login?${query}`), { headers: { authorization: `token ${TOKEN}` } });
    expect(byHeader.status).toBe(302);
    expectLocal(byHeader.headers.get('location'), at(`login?${query}`), base);
    const final = await followAll(f.app, base, at(`login?token=${TOKEN}&${query}`), { headers: NAVIGATE });
    expect(isRedirect(final.status)).toBe(false);
  });

  it('GET /logout never redirects, whatever next= says', async () => {
    const res = await f.app.request(at(`logout?next=${encodeURIComponent('//evil.example')}`), {
      headers: { cookie: login.cookie },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('location')).toBeNull();
  });

  /** Request paths as a client may send them, unnormalized, over a real socket. */
  const sendable = HOSTILE.filter((h) => /^[\x21-\x7e]+$/.test(h));

  function rawGet(requestPath: string, headers: Record<string, string>): Promise<http.IncomingMessage> {
    return new Promise((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port: server.port, path: requestPath, headers }, (res) => {
        res.resume();
        resolve(res);
      });
      req.on('error', reject);
      req.end();
    });
  }

  it.each(sendable)('paths: %j as ?token= login, unauthenticated page, trailing slash, /api/notebooks', async (raw) => {
    const hostile = fill(raw, base);
    const asPath = hostile.startsWith('/') ? hostile : `/${hostile}`;
    const requests: Array<[string, Record<string, string>]> = [
      [`${asPath}?token=${TOKEN}`, NAVIGATE],
      [`${base}${asPath.slice(1)}?token=${TOKEN}`, NAVIGATE],
      [asPath, NAVIGATE],
      [`${base}tree/${asPath.slice(1)}`, NAVIGATE],
      [`${asPath}/`, { cookie: login.cookie }],
      [`${base}${asPath.slice(1)}/`, { cookie: login.cookie }],
      [`${base}${asPath.slice(1)}//`, { cookie: login.cookie }],
      [`${base}api/notebooks${asPath}`, { authorization: `token ${TOKEN}` }],
      [`${base}api/notebooks/${asPath}`, { authorization: `token ${TOKEN}` }],
      [`${base}?next=${encodeURIComponent(hostile)}`, { cookie: login.cookie }],
    ];
    for (const [requestPath, headers] of requests) {
      const res = await rawGet(requestPath, { host: `127.0.0.1:${server.port}`, ...headers });
      if (!isRedirect(res.statusCode ?? 0)) continue;
      const location = (res.headers.location as string | undefined) ?? null;
      expectLocal(location, `http://127.0.0.1:${server.port}${requestPath}`, base);
    }
  });

  it('page, nbconvert and legacy redirects of hostile-looking names stay local', async () => {
    const headers = { cookie: login.cookie };
    const checked: string[] = [];
    for (const name of ['\\evil.example', '%2F%2Fevil.example', 'a b']) {
      const enc = encodeURIComponent(name);
      for (const page of [
        `tree/${enc}.ipynb`,
        `tree/${enc}.txt`,
        `notebooks/${enc}`,
        `notebooks/${enc}.txt`,
        `edit/${enc}`,
        `print/${enc}`,
        `print/${enc}.txt`,
        `nbconvert/html/${enc}`,
        `nbconvert/html/${enc}.txt`,
        `${enc}.ipynb`,
      ]) {
        const res = await f.app.request(at(page), { headers });
        if (!isRedirect(res.status)) continue;
        expectLocal(res.headers.get('location'), at(page), base);
        checked.push(page);
      }
    }
    // The legacy `/<name>.ipynb` redirect leads to `/<id>`, which leads to the notebook page.
    const legacy = await followAll(f.app, base, at('a%20b.ipynb'), { headers });
    expect(legacy.status).toBe(200);
    expect(checked.length).toBeGreaterThanOrEqual(18);
  });
});
