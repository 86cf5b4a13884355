// needs: kernel
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { advanceClock, useRealClock, useTestClock } from '../../../testing/clock.js';
import { createTestApp, loginCookies, type TestApp } from '../../../testing/server.js';
import { TOKEN } from '../../../testing/token.js';
import { apiContentSecurityPolicy } from '../src/middleware/security-headers.js';
import { LogBudget, MAX_CSP_REPORT_BYTES, reportLogText } from '../src/routes/api/csp-report.js';

const auth = { Authorization: `token ${TOKEN}` };
const REPORT = JSON.stringify({
  'csp-report': {
    'document-uri': `http://localhost:8888/a%40b/api/contents?token=${TOKEN}`,
    'violated-directive': "default-src 'none'",
    'blocked-uri': 'inline',
  },
});

describe.each(['/', '/a%40b/'])('the API Content-Security-Policy under base URL %s', (base) => {
  let f: TestApp;
  beforeAll(async () => {
    f = await createTestApp({ baseUrl: base });
  });
  afterAll(() => f.close());
  const url = (path: string) => `http://localhost${base}${path}`;

  it("is jupyter_server's, exactly, on API answers: success, error, unauthenticated", async () => {
    const expected = `frame-ancestors 'self'; report-uri ${base}api/security/csp-report; default-src 'none'`;
    expect(apiContentSecurityPolicy(base)).toBe(expected);
    const answers = [
      await f.app.request(url('api/contents'), { headers: auth }),
      await f.app.request(url('api/status'), { headers: auth }),
      await f.app.request(url('api/config/x'), { method: 'PUT', headers: auth, body: '{}' }),
      await f.app.request(url('api/contents/missing.txt'), { headers: auth }),
      await f.app.request(url('api/nope'), { headers: auth }),
      await f.app.request(url('api/contents')),
      await f.app.request(url('api')),
    ];
    expect(answers.map((r) => r.status)).toEqual([200, 200, 204, 404, 404, 403, 200]);
    for (const res of answers) expect(res.headers.get('content-security-policy')).toBe(expected);
  });

  it('leaves the policies of pages and files as they are', async () => {
    const { writeFile } = await import('node:fs/promises');
    await writeFile(`${f.dir}/root/a.txt`, 'A');
    const page = await f.app.request(url('tree'), { headers: auth });
    const login = await f.app.request(url('login'));
    const file = await f.app.request(url('files/a.txt'), { headers: auth });
    const missing = await f.app.request(url('no/such/page'), { headers: auth });
    for (const res of [page, login, file, missing]) {
      expect(res.headers.get('content-security-policy')).not.toContain('report-uri');
    }
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(file.headers.get('content-security-policy')).toMatch(/^sandbox allow-scripts/);
    expect(missing.headers.get('content-security-policy')).toBe("default-src 'none'; frame-ancestors 'self'");
  });
});

describe('POST /api/security/csp-report', () => {
  let f: TestApp;
  let cookie: string;
  beforeAll(async () => {
    f = await createTestApp();
    ({ cookie } = await loginCookies(f.app));
  });
  afterAll(() => f.close());
  const post = (body: string, headers: Record<string, string> = auth) =>
    f.app.request('http://localhost/api/security/csp-report', {
      method: 'POST',
      headers: { 'Content-Type': 'application/csp-report', ...headers },
      body,
    });
  const reports = () => f.logger.lines.filter((line) => line.startsWith('warn Content security violation: '));

  it('logs the report as one warning line, the token redacted, and answers 204', async () => {
    f.logger.lines.length = 0;
    const res = await post(REPORT);
    expect(res.status).toBe(204);
    expect(await res.text()).toBe('');
    const [line, ...rest] = reports();
    expect(rest).toEqual([]);
    expect(line).toContain('"violated-directive":"default-src \'none\'"');
    expect(line).toContain('?token=[secret]');
    expect(f.logger.lines.join('\n')).not.toContain(TOKEN);
  });

  it('needs a login, as in jupyter_server, and logs nothing without one', async () => {
    f.logger.lines.length = 0;
    const res = await post(REPORT, {});
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ message: 'Forbidden', reason: null });
    expect(reports()).toEqual([]);
  });

  it('takes a browser report with the login cookie and no XSRF token, but only there and only same-site', async () => {
    expect((await post(REPORT, { cookie })).status).toBe(204);
    expect((await post(REPORT, { cookie, 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    const other = await f.app.request('http://localhost/api/config/x', {
      method: 'PUT',
      headers: { cookie },
      body: '{}',
    });
    expect(other.status).toBe(403);
  });

  it('refuses a body over 16 KiB with 413, declared or streamed, and logs nothing', async () => {
    f.logger.lines.length = 0;
    const big = JSON.stringify({ 'csp-report': { 'script-sample': 'x'.repeat(MAX_CSP_REPORT_BYTES) } });
    const declared = await post(big);
    expect(declared.status).toBe(413);
    expect(await declared.json()).toMatchObject({ message: expect.stringContaining('16384'), reason: null });
    // chunked, without a Content-Length, over a real socket
    const server = createAdaptorServer({ fetch: f.app.fetch }) as http.Server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const status = await new Promise<number>((resolve, reject) => {
        const req = http.request(
          {
            host: '127.0.0.1',
            port: (server.address() as AddressInfo).port,
            method: 'POST',
            path: '/api/security/csp-report',
            headers: { ...auth, 'Transfer-Encoding': 'chunked' },
          },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on('error', reject);
        for (let i = 0; i < 8; i++) req.write('y'.repeat(4096));
        req.end();
      });
      expect(status).toBe(413);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
    expect(reports()).toEqual([]);
  });

  it('never lets a report write more than one line or a control character into the log', async () => {
    f.logger.lines.length = 0;
    expect((await post('not json\n[E 12:00:00 nbserve] forged line\u001b[31m')).status).toBe(204);
    const [line] = reports();
    expect(line).toBe('warn Content security violation: "not json\\n[E 12:00:00 nbserve] forged line\\u001b[31m"');
  });

  it('is not activity: the server does not count reports as use (culling, last_activity)', async () => {
    useTestClock();
    onTestFinished(useRealClock);
    const before = await (await f.app.request('http://localhost/api/status', { headers: auth })).json();
    advanceClock(1000);
    await post(REPORT);
    const after = await (await f.app.request('http://localhost/api/status', { headers: auth })).json();
    expect(after.last_activity).toBe(before.last_activity);
  });

  it('logs at most 10 reports a minute (a flood costs the log ten lines)', async () => {
    const fresh = await createTestApp();
    try {
      const send = () =>
        fresh.app.request('http://localhost/api/security/csp-report', { method: 'POST', headers: auth, body: REPORT });
      for (let i = 0; i < 25; i++) expect((await send()).status).toBe(204);
      const logged = fresh.logger.lines.filter((line) => line.includes('Content security violation'));
      expect(logged).toHaveLength(10);
    } finally {
      await fresh.close();
    }
  });
});

describe('LogBudget', () => {
  it('allows `limit` lines per window and reports the ones it left out with the next', () => {
    let now = 0;
    const budget = new LogBudget(2, 1000, () => now);
    expect([budget.take(), budget.take(), budget.take(), budget.take()]).toEqual([0, 0, null, null]);
    now = 999;
    expect(budget.take()).toBeNull();
    now = 1000;
    expect(budget.take()).toBe(3);
    expect(budget.take()).toBe(0);
  });
});

describe('reportLogText', () => {
  it('is compact JSON with every secret parameter and the token redacted, cut at 2000 characters', () => {
    const text = reportLogText(
      JSON.stringify({ a: 'http://h/x?_xsrf=abc&token=def#f', b: `raw ${TOKEN} here`, c: 'http://h/?password=pw' }),
      TOKEN,
    );
    expect(text).toBe(
      '{"a":"http://h/x?_xsrf=[secret]&token=[secret]#f","b":"raw [secret] here","c":"http://h/?password=[secret]"}',
    );
    expect(reportLogText(JSON.stringify({ long: 'z'.repeat(5000) }), TOKEN)).toMatch(
      /^\{"long":"z{1991}… \(5011 characters\)$/,
    );
  });
});
