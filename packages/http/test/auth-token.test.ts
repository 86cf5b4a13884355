import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setCookies } from '../../../testing/cookie-jar.js';
import { createTestApp, loginCookies, type TestApp } from '../../../testing/server.js';
import { TOKEN } from '../../../testing/token.js';

let f: TestApp;
beforeAll(async () => {
  f = await createTestApp();
});
afterAll(() => f.close());

const url = (p: string) => `http://localhost${p}`;

describe('token authentication', () => {
  it('GET /api needs no auth and reports a version', async () => {
    const res = await f.app.request(url('/api'));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ version: expect.stringMatching(/^2\.\d+\.\d+$/) });
  });

  it('refuses the API without credentials: 403 JSON, never a redirect', async () => {
    const res = await f.app.request(url('/api/status'));
    expect(res.status).toBe(403);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(await res.json()).toEqual({ message: 'Forbidden', reason: null });
  });

  it('redirects pages to /login with next=', async () => {
    const res = await f.app.request(url('/tree/sub?x=1'));
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe(`/login?next=${encodeURIComponent('/tree/sub?x=1')}`);
    const head = await f.app.request(url('/tree'), { method: 'HEAD' });
    expect(head.status).toBe(302);
    const post = await f.app.request(url('/tree'), { method: 'POST' });
    expect(post.status).toBe(403);
  });

  it.each([
    ['token', `token ${TOKEN}`],
    ['Bearer', `Bearer ${TOKEN}`],
    ['lower-case bearer', `bearer ${TOKEN}`],
    ['upper-case TOKEN', `TOKEN ${TOKEN}`],
  ])('accepts Authorization: %s', async (_name, header) => {
    const res = await f.app.request(url('/api/status'), { headers: { Authorization: header } });
    expect(res.status).toBe(200);
    expect(setCookies(res).size).toBe(0);
  });

  it.each([
    ['wrong token', `token ${TOKEN.slice(0, -1)}x`],
    ['prefix of the token', `token ${TOKEN.slice(0, 10)}`],
    ['token plus extra', `token ${TOKEN}0`],
    ['unknown scheme', `Basic ${TOKEN}`],
    ['empty', 'token '],
  ])('rejects Authorization with %s', async (_name, header) => {
    const res = await f.app.request(url('/api/status'), { headers: { Authorization: header } });
    expect(res.status).toBe(403);
  });

  it('?token= authenticates and sets an HttpOnly SameSite=Lax login cookie named after the Host', async () => {
    const res = await f.app.request(`http://127.0.0.1:8888/api/status?token=${TOKEN}`, {
      headers: { host: '127.0.0.1:8888' },
    });
    expect(res.status).toBe(200);
    const cookie = setCookies(res).get('username-127-0-0-1-8888');
    expect(cookie).toBeDefined();
    expect(cookie?.raw).toMatch(/HttpOnly/i);
    expect(cookie?.raw).toMatch(/SameSite=Lax/i);
    expect(cookie?.raw).toMatch(/Path=\//);
    expect(cookie?.value).not.toContain(TOKEN);
  });

  it('a wrong ?token= is refused and sets no cookie', async () => {
    const res = await f.app.request(url('/api/status?token=nope'));
    expect(res.status).toBe(403);
    expect(setCookies(res).size).toBe(0);
  });

  it('?token= on a page sets the cookie and redirects a browser to the same URL without the token', async () => {
    const res = await f.app.request(url(`/tree/a?token=${TOKEN}&x=1`), {
      headers: { 'sec-fetch-mode': 'navigate', accept: 'text/html' },
    });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/tree/a?x=1');
    expect([...setCookies(res).keys()]).toEqual(expect.arrayContaining(['username-localhost', '_xsrf']));
  });

  it('?token= from a script or curl is not redirected (downloads with ?token= keep working)', async () => {
    const curl = await f.app.request(url(`/files/x.csv?token=${TOKEN}`), { headers: { accept: '*/*' } });
    expect(curl.status).not.toBe(302);
    expect(curl.status).not.toBe(403);
    const fetchMode = await f.app.request(url(`/tree?token=${TOKEN}`), { headers: { 'sec-fetch-mode': 'cors' } });
    expect(fetchMode.status).not.toBe(302);
    const html = await f.app.request(url(`/tree?token=${TOKEN}`), { headers: { accept: 'text/html,*/*' } });
    expect(html.status).toBe(302);
  });

  it('no redirect echoes ?token=: GET /, trailing-slash pages and login next= set the cookie and drop it', async () => {
    const cases: [string, Record<string, string>, string][] = [
      // curl or a script: the root still redirects, and the cookie replaces the token.
      [`/?token=${TOKEN}`, { accept: '*/*' }, '/tree'],
      [`/?x=1&token=${TOKEN}#top`, { accept: '*/*' }, '/tree?x=1'],
      [`/?token=${TOKEN}`, { accept: 'text/html' }, '/'],
      [`/elsewhere/?token=${TOKEN}&x=1`, { accept: '*/*' }, '/elsewhere?x=1'],
      [`/login?next=${encodeURIComponent(`/tree?token=${TOKEN}&y=2`)}&token=${TOKEN}`, { accept: '*/*' }, '/tree?y=2'],
    ];
    for (const [path, headers, location] of cases) {
      const res = await f.app.request(url(path), { headers });
      expect(res.status, path).toBe(302);
      expect(res.headers.get('location'), path).toBe(location);
      expect(res.headers.get('location'), path).not.toContain(TOKEN);
      expect([...setCookies(res).keys()], path).toContain('username-localhost');
    }
    // An API client has no cookie jar: its trailing-slash redirect keeps the token it sent.
    const api = await f.app.request(url(`/api/nope/?token=${TOKEN}`));
    expect(api.headers.get('location')).toBe(`/api/nope?token=${TOKEN}`);
  });

  it('the login cookie authenticates later requests, and only on the same Host', async () => {
    const { cookie } = await loginCookies(f.app);
    expect((await f.app.request(url('/api/status'), { headers: { cookie } })).status).toBe(200);
    const elsewhere = await f.app.request('http://127.0.0.1/api/status', { headers: { cookie, host: '127.0.0.1' } });
    expect(elsewhere.status).toBe(403);
  });

  it('a forged or tampered cookie is refused', async () => {
    const { cookie } = await loginCookies(f.app);
    const value = /username-localhost=([^;]+)/.exec(cookie)?.[1] ?? '';
    const [id, issued, signature = ''] = value.split('.');
    const flipped = `${signature.slice(0, -1)}${signature.endsWith('A') ? 'B' : 'A'}`;
    const tampered = cookie.replace(value, `${id}.${issued}.${flipped}`);
    expect(tampered).not.toBe(cookie);
    const reissued = cookie.replace(value, `${id}.${Number(issued) + 1}.${signature}`);
    expect((await f.app.request(url('/api/status'), { headers: { cookie: reissued } })).status).toBe(403);
    expect((await f.app.request(url('/api/status'), { headers: { cookie: tampered } })).status).toBe(403);
    const forged = 'username-localhost=abc.1700000000.c2lnbmF0dXJl';
    expect((await f.app.request(url('/api/status'), { headers: { cookie: forged } })).status).toBe(403);
  });

  it('unauthenticated public pages: /login, /logout and /static/* pass without credentials', async () => {
    expect((await f.app.request(url('/login'))).status).toBe(200);
    expect((await f.app.request(url('/logout'))).status).toBe(200);
    // No static route is registered in this app: a 404 (not a 403 or redirect) shows auth let it through.
    expect((await f.app.request(url('/static/app.js'))).status).toBe(404);
  });
});
