import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, loginCookies, type TestApp } from '../../../testing/server.js';
import { TOKEN } from '../../../testing/token.js';

let f: TestApp;
let cookie: string;
let xsrf: string;
beforeAll(async () => {
  f = await createTestApp();
  ({ cookie, xsrf } = await loginCookies(f.app));
});
afterAll(() => f.close());

const url = (p: string) => `http://localhost${p}`;
const put = (headers: Record<string, string>, target = '/api/config/xsrftest') =>
  f.app.request(url(target), {
    method: 'PUT',
    headers: { 'content-type': 'application/json', ...headers },
    body: '{"a":1}',
  });

describe('XSRF protection for cookie-authenticated unsafe requests', () => {
  it('refuses a cookie-authenticated PUT without the XSRF token, and changes nothing', async () => {
    const res = await put({ cookie });
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({ message: "'_xsrf' argument missing from PUT", reason: null });
    const get = await f.app.request(url('/api/config/xsrftest'), { headers: { cookie } });
    expect(await get.json()).toEqual({});
  });

  it('refuses a mismatching X-XSRFToken', async () => {
    const res = await put({ cookie, 'X-XSRFToken': 'somethingelse' });
    expect(res.status).toBe(403);
    expect((await res.json()).message).toBe('XSRF cookie does not match PUT argument');
  });

  it('refuses an XSRF header when the _xsrf cookie is absent', async () => {
    const onlyLogin = cookie.replace(/; _xsrf=.*/, '');
    const res = await put({ cookie: onlyLogin, 'X-XSRFToken': xsrf });
    expect(res.status).toBe(403);
  });

  it.each([
    ['X-XSRFToken header', { 'X-XSRFToken': 'TOKEN' }, ''],
    ['X-CSRFToken header', { 'X-CSRFToken': 'TOKEN' }, ''],
    ['_xsrf query field', {}, '?_xsrf=TOKEN'],
  ])('accepts the matching token in the %s', async (_name, headers, query) => {
    const h = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, v.replace('TOKEN', xsrf)]));
    const res = await put({ cookie, ...h }, `/api/config/xsrftest${query.replace('TOKEN', xsrf)}`);
    expect(res.status).toBe(204);
  });

  it('accepts Tornado-style masked tokens that decode to the cookie value', async () => {
    const raw = Buffer.from(xsrf);
    const mask = Buffer.from([1, 2, 3, 4]);
    const masked = Buffer.from(raw.map((b, i) => b ^ (mask[i % 4] ?? 0)));
    const versioned = `2|${mask.toString('hex')}|${masked.toString('hex')}|1700000000`;
    expect((await put({ cookie, 'X-XSRFToken': versioned })).status).toBe(204);
  });

  it('token-authenticated requests skip the XSRF check (header and ?token=)', async () => {
    expect((await put({ Authorization: `token ${TOKEN}` })).status).toBe(204);
    expect((await put({}, `/api/config/xsrftest?token=${TOKEN}`)).status).toBe(204);
  });

  it('GET needs no XSRF token even with cookie auth', async () => {
    const res = await f.app.request(url('/api/config/xsrftest'), { headers: { cookie } });
    expect(res.status).toBe(200);
  });

  it('refuses cookie-authenticated requests a browser marks cross-site, but allows navigations to pages', async () => {
    const api = await f.app.request(url('/api/status'), { headers: { cookie, 'sec-fetch-site': 'cross-site' } });
    expect(api.status).toBe(403);
    const same = await f.app.request(url('/api/status'), { headers: { cookie, 'sec-fetch-site': 'same-origin' } });
    expect(same.status).toBe(200);
    const nav = await f.app.request(url('/tree'), {
      headers: { cookie, 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate' },
    });
    expect(nav.status).not.toBe(403);
  });

  it('page GETs set the _xsrf cookie (readable by scripts, SameSite=Lax)', async () => {
    const res = await f.app.request(url('/tree'), { headers: { cookie: cookie.replace(/; _xsrf=.*/, '') } });
    const set = res.headers.getSetCookie().find((c) => c.startsWith('_xsrf='));
    expect(set).toMatch(/SameSite=Lax/i);
    expect(set).not.toMatch(/HttpOnly/i);
  });
});

describe('XSRF with auth disabled', () => {
  let open: TestApp;
  beforeAll(async () => {
    open = await createTestApp({ token: '' });
  });
  afterAll(() => open.close());

  it('still requires the XSRF token for unsafe requests (a web page could otherwise drive the server)', async () => {
    const res = await open.app.request(url('/api/config/x'), { method: 'PUT', body: '{}' });
    expect(res.status).toBe(403);
    const ok = await open.app.request(url('/api/config/x'), {
      method: 'PUT',
      body: '{}',
      headers: { cookie: '_xsrf=abcabcabcabc', 'X-XSRFToken': 'abcabcabcabc' },
    });
    expect(ok.status).toBe(204);
  });

  it('GETs are open', async () => {
    expect((await open.app.request(url('/api/status'))).status).toBe(200);
  });
});
