import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setCookies } from '../../../testing/cookie-jar.js';
import { createTestApp, type TestApp } from '../../../testing/server.js';
import { TOKEN } from '../../../testing/token.js';
import { LoginThrottle } from '../src/auth/login-throttle.js';
import { hashPassword, storePasswordHash, verifyPassword } from '../src/auth/password.js';

const url = (p: string) => `http://localhost${p}`;

/** Loads the login page like a browser and returns the cookie jar and the form's hidden _xsrf. */
async function openLoginPage(f: TestApp, next = '/tree') {
  const page = await f.app.request(url(`/login?next=${encodeURIComponent(next)}`));
  const html = await page.text();
  const xsrf = /name="_xsrf" value="([^"]+)"/.exec(html)?.[1] ?? '';
  const cookie = `_xsrf=${setCookies(page).get('_xsrf')?.value ?? ''}`;
  return { page, html, xsrf, cookie };
}

async function submitLogin(f: TestApp, password: string, next = '/tree') {
  const { xsrf, cookie } = await openLoginPage(f, next);
  return f.app.request(url(`/login?next=${encodeURIComponent(next)}`), {
    method: 'POST',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ password, _xsrf: xsrf }).toString(),
  });
}

function loginCookieOf(res: Response): string {
  const login = [...setCookies(res)].find(([n]) => n.startsWith('username-'));
  return login ? `${login[0]}=${login[1].value}` : '';
}

describe('login page with a token', () => {
  let f: TestApp;
  beforeAll(async () => {
    f = await createTestApp();
  });
  afterAll(() => f.close());

  it('renders a small form with a strict CSP, no script, and sets _xsrf', async () => {
    const { page, html, xsrf } = await openLoginPage(f);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'none'");
    expect(html).not.toMatch(/<script/i);
    expect(html).toContain('name="password"');
    expect(xsrf.length).toBeGreaterThan(10);
    expect(html).not.toContain(TOKEN);
  });

  it('logs in with the token typed into the form and redirects to next', async () => {
    const res = await submitLogin(f, TOKEN, '/notebooks/x.ipynb');
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/notebooks/x.ipynb');
    const cookie = loginCookieOf(res);
    expect(cookie).toMatch(/^username-localhost=/);
    const api = await f.app.request(url('/api/status'), { headers: { cookie } });
    expect(api.status).toBe(200);
  });

  it('re-renders the form with an error for a wrong secret, sets no login cookie, logs no secret', async () => {
    const res = await submitLogin(f, 'wrong-guess');
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('Invalid credentials');
    expect(loginCookieOf(res)).toBe('');
    expect(f.logger.lines.join('\n')).not.toContain('wrong-guess');
  });

  it('refuses a login POST without the XSRF field', async () => {
    const res = await f.app.request(url('/login'), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `password=${TOKEN}`,
    });
    expect(res.status).toBe(403);
    expect(loginCookieOf(res)).toBe('');
  });

  it('never redirects off-site after login', async () => {
    for (const next of ['//evil.com', '/\\evil.com', 'https://evil.com', '/%2F%2Fevil.com']) {
      const res = await submitLogin(f, TOKEN, next);
      expect(res.status).toBe(302);
      expect(res.headers.get('location')).toBe('/');
    }
  });

  it('GET /login when already logged in goes straight to next', async () => {
    const login = loginCookieOf(await submitLogin(f, TOKEN));
    const res = await f.app.request(url('/login?next=%2Ftree%2Fa'), { headers: { cookie: login } });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/tree/a');
  });

  it('logout clears the cookie and revokes it on the server, and links back to login', async () => {
    const cookie = loginCookieOf(await submitLogin(f, TOKEN));
    const res = await f.app.request(url('/logout'), { headers: { cookie } });
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('Successfully logged out');
    expect(html).toContain('href="/login"');
    const cleared = res.headers.getSetCookie().find((c) => c.startsWith('username-localhost='));
    expect(cleared).toMatch(/Max-Age=0|Expires=Thu, 01 Jan 1970/i);
    // A copy of the old cookie (another tab, a thief) no longer works either.
    expect((await f.app.request(url('/api/status'), { headers: { cookie } })).status).toBe(403);
  });
});

describe('password login', () => {
  let f: TestApp;
  beforeAll(async () => {
    f = await createTestApp();
  });
  afterAll(() => f.close());

  it('hashes with scrypt and verifies', async () => {
    const hash = await hashPassword('correct horse');
    expect(hash).toMatch(/^scrypt:\d+:\d+:\d+:[0-9a-f]{32}:[0-9a-f]{64}$/);
    expect(await verifyPassword('correct horse', hash)).toBe(true);
    expect(await verifyPassword('correct hors', hash)).toBe(false);
    expect(await verifyPassword('x', 'garbage')).toBe(false);
    expect(await verifyPassword('x', 'scrypt:99999999:8:1:00:00')).toBe(false);
  });

  it('accepts the stored password, and a new password logs every cookie out', async () => {
    const configDir = path.join(f.dir, 'config');
    await storePasswordHash(configDir, await hashPassword('first-pass'));
    const stored = JSON.parse(await fs.readFile(path.join(configDir, 'nbserve_config.json'), 'utf8'));
    expect(stored.password).toMatch(/^scrypt:/);
    expect(JSON.stringify(stored)).not.toContain('first-pass');

    const res = await submitLogin(f, 'first-pass');
    expect(res.status).toBe(302);
    const cookie = loginCookieOf(res);
    expect((await f.app.request(url('/api/status'), { headers: { cookie } })).status).toBe(200);

    // mtime resolution: make sure the file's mtime moves.
    const file = await storePasswordHash(configDir, await hashPassword('second-pass'));
    const later = new Date(Date.now() + 5000);
    await fs.utimes(file, later, later);
    expect((await f.app.request(url('/api/status'), { headers: { cookie } })).status).toBe(403);
    expect((await submitLogin(f, 'first-pass')).status).toBe(200);
    expect((await submitLogin(f, 'second-pass')).status).toBe(302);
  });

  it('with token disabled but a password set, auth stays on', async () => {
    const g = await createTestApp({ token: '' });
    try {
      expect((await g.app.request(url('/api/status'))).status).toBe(200);
      await storePasswordHash(path.join(g.dir, 'config'), await hashPassword('pw-only'));
      expect((await g.app.request(url('/api/status'))).status).toBe(403);
      expect((await submitLogin(g, 'pw-only')).status).toBe(302);
    } finally {
      await g.close();
    }
  });
});

describe('login with auth disabled', () => {
  let f: TestApp;
  beforeAll(async () => {
    f = await createTestApp({ token: '' });
  });
  afterAll(() => f.close());

  it('/login goes to the dashboard (or next)', async () => {
    const res = await f.app.request(url('/login'));
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/');
  });

  it('/logout says there is nothing to log out of', async () => {
    const res = await f.app.request(url('/logout'));
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('Cannot log out');
  });
});

describe('login form bad input', () => {
  let f: TestApp;
  beforeAll(async () => {
    f = await createTestApp();
  });
  afterAll(() => f.close());

  const xsrfHeaders = { cookie: '_xsrf=abcabcabcabc', 'x-xsrftoken': 'abcabcabcabc' };

  it('a broken multipart body is a 400, not a 500, and logs nobody in', async () => {
    const res = await f.app.request(url('/login'), {
      method: 'POST',
      headers: { ...xsrfHeaders, 'content-type': 'multipart/form-data; boundary=x' },
      body: 'garbage',
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ message: 'The login form could not be read', reason: null });
    expect(loginCookieOf(res)).toBe('');
  });

  it('an oversized password field is refused without hashing it', async () => {
    const res = await f.app.request(url('/login'), {
      method: 'POST',
      headers: { ...xsrfHeaders, 'content-type': 'application/x-www-form-urlencoded' },
      body: `password=${'x'.repeat(5000)}`,
    });
    expect(res.status).toBe(400);
    expect(loginCookieOf(res)).toBe('');
  });

  it('a multipart form with the token logs in', async () => {
    const form = new FormData();
    form.set('password', TOKEN);
    const res = await f.app.request(url('/login'), { method: 'POST', headers: xsrfHeaders, body: form });
    expect(res.status).toBe(302);
    expect(loginCookieOf(res)).toMatch(/^username-localhost=/);
  });
});

describe('login throttling', () => {
  it('serializes checks and doubles the wait after each failure, up to 4 s; success resets', async () => {
    const waits: number[] = [];
    let now = 1_000_000;
    const throttle = new LoginThrottle(
      () => now,
      async (ms) => {
        waits.push(ms);
      },
    );
    let running = 0;
    let maxRunning = 0;
    const check = (ok: boolean) => async () => {
      running++;
      maxRunning = Math.max(maxRunning, running);
      await new Promise((r) => setImmediate(r)); // a check that takes a turn of the event loop, as a real one does
      running--;
      return ok;
    };
    const results = await Promise.all([1, 2, 3, 4, 5, 6, 7].map(() => throttle.attempt(check(false))));
    expect(results.every((r) => r === false)).toBe(true);
    expect(maxRunning).toBe(1);
    expect(waits).toEqual([250, 500, 1000, 2000, 4000, 4000, 4000]);
    expect(await throttle.attempt(check(true))).toBe(true);
    expect(throttle.nextDelayMs()).toBe(250);
    await throttle.attempt(check(false));
    now += 16 * 60_000;
    expect(throttle.nextDelayMs()).toBe(250);
  });

  it('the login route goes through the throttle', async () => {
    const f = await createTestApp();
    try {
      const before = f.app.services.auth.loginThrottle.nextDelayMs();
      expect((await submitLogin(f, 'wrong-1')).status).toBe(200);
      expect(f.app.services.auth.loginThrottle.nextDelayMs()).toBe(before * 2);
      expect((await submitLogin(f, TOKEN)).status).toBe(302);
      expect(f.app.services.auth.loginThrottle.nextDelayMs()).toBe(before);
    } finally {
      await f.close();
    }
  });
});
