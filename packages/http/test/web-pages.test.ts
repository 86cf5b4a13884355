import { promises as fs } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../../testing/server.js';
import { AUTH, TOKEN } from '../../../testing/token.js';

const EVIL = '<img src=x onerror=alert(1)>';

let root: string;
let server: TestServer;

function notebook(cells: unknown[]): string {
  return JSON.stringify({ nbformat: 4, nbformat_minor: 5, metadata: {}, cells });
}

beforeAll(async () => {
  server = await startServer();
  root = server.root;
  await fs.mkdir(path.join(root, 'sub dir'), { recursive: true });
  await fs.writeFile(path.join(root, 'notes.txt'), 'hello');
  await fs.writeFile(path.join(root, `${EVIL}.ipynb`), notebook([]));
  await fs.writeFile(
    path.join(root, 'sub dir', 'a b.ipynb'),
    notebook([
      { cell_type: 'markdown', metadata: {}, source: `# Title ${EVIL}\n\nmath $x^2$ <script>alert(2)</script>` },
      {
        cell_type: 'code',
        metadata: {},
        execution_count: 3,
        source: 'print("</pre><script>alert(3)</script>")',
        outputs: [
          { output_type: 'stream', name: 'stdout', text: ['10%\r', '50%\r', '100%\n'] },
          {
            output_type: 'display_data',
            metadata: {},
            data: { 'text/html': '<script>alert(4)</script><b>bold</b>', 'text/plain': 'plain <b>' },
          },
          { output_type: 'display_data', metadata: {}, data: { 'image/png': 'iVBORw0KGgo=' } },
          {
            output_type: 'error',
            ename: 'ValueError',
            evalue: 'bad',
            traceback: ['\u001b[31mValueError\u001b[0m: bad <x>'],
          },
        ],
      },
    ]),
  );
});

afterAll(() => server?.close());

const get = (url: string, headers: Record<string, string> = AUTH) => server.app.request(url, { headers });

describe('web pages (in-process)', () => {
  it('GET / redirects to the dashboard, keeping the query', async () => {
    const res = await get('/?foo=1');
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/tree?foo=1');
  });

  it('serves the dashboard with a strict CSP, no inline script and a JSON config block', async () => {
    const res = await get('/tree/sub%20dir');
    expect(res.status).toBe(200);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("connect-src 'self' ws://localhost wss://localhost");
    const html = await res.text();
    const config = html.match(/<script type="application\/json" id="nbserve-config">(.*?)<\/script>/s)?.[1] ?? '';
    expect(JSON.parse(config)).toMatchObject({ baseUrl: '/', path: 'sub dir', authEnabled: true });
    // Every <script> is either the data block or an external module: nothing inline runs.
    const scripts = [...html.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)];
    for (const [, attrs, body] of scripts) {
      if (attrs?.includes('application/json')) continue;
      expect(attrs).toMatch(/src="\/static\/dashboard-[\w]+\.js"/);
      expect(body).toBe('');
    }
    expect(html).not.toContain(TOKEN);
  });

  it('redirects notebooks and files under /tree to their pages, 404s missing paths', async () => {
    const nb = await get('/tree/sub%20dir/a%20b.ipynb');
    expect(nb.status).toBe(302);
    expect(nb.headers.get('location')).toBe('/notebooks/sub%20dir/a%20b.ipynb');
    const file = await get('/tree/notes.txt');
    expect(file.headers.get('location')).toBe('/files/notes.txt');
    const missing = await get('/tree/nope');
    expect(missing.status).toBe(404);
    expect(await missing.text()).not.toContain('nope<');
  });

  it('escapes file names in page titles and config (XSS through file names)', async () => {
    const res = await get(`/notebooks/${encodeURIComponent(`${EVIL}.ipynb`)}`);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).not.toContain(EVIL);
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;.ipynb');
    expect(html).toContain('\\u003cimg src=x onerror=alert(1)\\u003e.ipynb');
  });

  it('serves /notebooks, /edit pages and redirects directories to /tree', async () => {
    expect((await get('/notebooks/sub%20dir/a%20b.ipynb')).status).toBe(200);
    expect((await get('/edit/notes.txt')).status).toBe(200);
    const dirRes = await get('/notebooks/sub%20dir');
    expect(dirRes.status).toBe(302);
    expect(dirRes.headers.get('location')).toBe('/tree/sub%20dir');
    expect((await get('/edit/missing.txt')).status).toBe(404);
  });

  it('answers bad page paths with a 400 Jupyter error, not a 500', async () => {
    const res = await get('/tree/%00evil');
    expect(res.status).toBe(400);
    const body = (await res.json()) as { message: string; reason: unknown };
    expect(body.message).toContain('path');
    expect(body).toHaveProperty('reason');
    const malformed = await get('/notebooks/%E0%A4%A');
    expect(malformed.status).toBe(400);
  });

  it('sends unauthenticated page requests to the login page', async () => {
    const res = await get('/tree', {});
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/login?next=%2Ftree');
  });

  it('serves hashed static assets as immutable, 404 for unknown names', async () => {
    // (the dashboard's stylesheet is written into its page: the notebook's is linked)
    const html = await (await get('/notebooks/sub%20dir/a%20b.ipynb')).text();
    const js = html.match(/src="(\/static\/[^"]+)"/)?.[1] ?? '';
    const css = html.match(/href="(\/static\/[^"]+\.css)"/)?.[1] ?? '';
    expect(css).not.toBe('');
    const jsRes = await get(js, {});
    expect(jsRes.status).toBe(200);
    expect(jsRes.headers.get('cache-control')).toContain('immutable');
    expect(jsRes.headers.get('content-type')).toContain('text/javascript');
    const cssRes = await get(css, {});
    expect(cssRes.headers.get('content-type')).toContain('text/css');
    expect((await get('/static/nope-123.js', {})).status).toBe(404);
    expect((await get('/static/..%2Fpackage.json', {})).status).toBe(404);
  });

  it('GET /new creates an untitled notebook in the root and opens it', async () => {
    const res = await get('/new');
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/notebooks/Untitled.ipynb');
    await expect(fs.stat(path.join(root, 'Untitled.ipynb'))).resolves.toBeTruthy();
  });

  it('renders the print view statically with everything escaped and no output scripts', async () => {
    const res = await get('/print/sub%20dir/a%20b.ipynb');
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('In&nbsp;[3]:');
    expect(html).toContain('class="katex"');
    expect(html).toContain('100%');
    expect(html).not.toContain('10%');
    expect(html).not.toMatch(/<script>alert/);
    expect(html).not.toContain(EVIL);
    expect(html).toContain('plain &lt;b&gt;');
    expect(html).toContain('data:image/png;base64,iVBORw0KGgo=');
    expect(html).toContain('ansi-red');
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect((await get('/print/notes.txt')).status).toBe(302);
    expect((await get('/print/missing.ipynb')).status).toBe(404);
  });

  it('serves the output frame sandboxed', async () => {
    const res = await get('/output-frame');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toMatch(/^sandbox allow-scripts allow-popups;/);
    expect(res.headers.get('content-security-policy')).not.toContain('allow-same-origin');
  });
});

describe('web pages (listening server)', () => {
  it('serves the same pages over a real socket, under the token cookie', async () => {
    // A browser following the link (node:http, as fetch() marks itself `Sec-Fetch-Mode: cors`):
    // the token moves into the cookie and leaves the URL.
    const res = await new Promise<http.IncomingMessage>((resolve, reject) => {
      http
        .get(
          `${server.url}tree?token=${TOKEN}`,
          { headers: { 'sec-fetch-mode': 'navigate', accept: 'text/html' } },
          resolve,
        )
        .on('error', reject);
    });
    res.resume();
    expect(res.statusCode).toBe(302);
    const cookies = (res.headers['set-cookie'] ?? []).map((c) => c.split(';')[0]).join('; ');
    const page = await fetch(`${server.url}tree`, { headers: { Cookie: cookies } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('id="nbserve-config"');
    const print = await fetch(`${server.url}print/sub%20dir/a%20b.ipynb`, { headers: AUTH });
    expect(print.status).toBe(200);
    for (const line of server.logger.lines) expect(line).not.toContain(TOKEN);
  });
});
