/**
 * Every route of every generation (current /api, the older single-directory routes, the web
 * pages, WebSockets) at least once under every entry of the base-URL matrix: the root, escaped
 * base URLs (the browser sends `%40` as is) and a mount in a host app. Asserts real content, that
 * every Location stays under the prefix, and that cookies carry a Path the browser sends back.
 */
import { randomUUID } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { ContentsManager, KernelManager, type KernelMessage, SessionManager } from '@jupyterlab/services';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCollabClient } from '../../../testing/collaboration.js';
import { CookieJar } from '../../../testing/cookie-jar.js';
import { writeLabAppDir } from '../../../testing/lab-app.js';
import { v4CodeCell, v4Notebook } from '../../../testing/notebooks.js';
import { scrape } from '../../../testing/prometheus.js';
import { BASE_URL_MATRIX, type Send, startServer, type TestServer } from '../../../testing/server.js';
import { makeTempDir, removeDir } from '../../../testing/temp.js';
import { TerminalSocket } from '../../../testing/terminal-client.js';
import { type Frame, open } from '../../../testing/ws-recorder.js';

const NAVIGATE = { accept: 'text/html', 'sec-fetch-mode': 'navigate' };

function notebookJson(source: string): string {
  const kernelspec = { name: 'javascript', display_name: 'JavaScript (Node.js)', language: 'javascript' };
  return JSON.stringify(v4Notebook([v4CodeCell(source)], { kernelspec }));
}

/** The JSON config block of an nbserve page. */
function pageConfig(html: string): { baseUrl: string; path: string; outputFrameUrl?: string } {
  const match = /<script type="application\/json" id="nbserve-config">(.*?)<\/script>/s.exec(html);
  if (!match?.[1]) throw new Error(`no page config in ${html.slice(0, 200)}`);
  return JSON.parse(match[1]);
}

/** Every script and stylesheet a page links must sit under the prefix and load. */
async function expectAssetsLoad(html: string, s: TestServer, send: Send): Promise<void> {
  const assets = [...html.matchAll(/(?:src|href)="([^"]+\.(?:js|css))"/g)].map((m) => m[1] as string);
  expect(assets.length).toBeGreaterThan(0);
  for (const asset of assets) {
    expect(asset.startsWith(s.path('static/')), asset).toBe(true);
    const res = await send(asset, { auth: false });
    expect(res.status, asset).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/javascript|css/);
  }
}

describe.each(BASE_URL_MATRIX)('$name', (entry) => {
  let s: TestServer;
  let transports: [string, Send][];
  let labAppDir: string;

  beforeAll(async () => {
    labAppDir = await writeLabAppDir(await makeTempDir('nbserve-lab-'));
    const profiles = await fs.mkdtemp(path.join((await import('node:os')).tmpdir(), 'nbserve-profiles-'));
    await fs.mkdir(path.join(profiles, 'profile_default'));
    s = await startServer({
      ...entry,
      defaultKernelName: 'javascript',
      profileSearchDirs: [profiles],
      nbconvertCommand: false,
      labAppDir,
    });
    await fs.mkdir(path.join(s.root, 'work'));
    await fs.writeFile(path.join(s.root, 'work', 'Demo.ipynb'), notebookJson('const answer = 6 * 7'));
    await fs.writeFile(path.join(s.root, 'work', 'notes.txt'), 'hello from notes');
    await fs.writeFile(path.join(s.root, 'Top.ipynb'), notebookJson('top = 1'));
    await fs.writeFile(path.join(s.root, 'page.html'), '<p>viewed</p>');
    transports = [
      ['socket', s.fetch],
      ['in-process', s.request],
    ];
  });
  afterAll(async () => {
    await s?.close();
    await removeDir(labAppDir);
  });

  describe('the root and the ?token= login a browser goes through', () => {
    it('the printed URL (prefix + ?token=) logs in, drops the token, and reaches the dashboard', async () => {
      for (const [via, send] of transports) {
        const jar = new CookieJar();
        const first = await send(`?token=${s.token}`, { auth: false, headers: NAVIGATE });
        expect(first.status, via).toBe(302);
        expect(first.headers.get('location'), via).toBe(s.prefix);
        jar.store(first, s.prefix);
        const cookies = jar.all();
        expect(cookies.map((c) => c.name).sort(), via).toEqual(['_xsrf', expect.stringMatching(/^username-/)]);
        for (const cookie of cookies) expect(cookie.path, `${via} ${cookie.name}`).toBe(s.prefix);

        const root = await send('', { auth: false, headers: { ...NAVIGATE, cookie: jar.header(s.prefix) } });
        expect(root.status, via).toBe(302);
        expect(root.headers.get('location'), via).toBe(s.path('tree'));

        const tree = await send('tree', { auth: false, headers: { ...NAVIGATE, cookie: jar.header(s.path('tree')) } });
        expect(tree.status, via).toBe(200);
        const html = await tree.text();
        expect(html).toContain('class="page-dashboard"');
        expect(pageConfig(html)).toMatchObject({ baseUrl: s.prefix, path: '' });
        // The page's API calls go to <prefix>api/...: the login cookie must be sent there.
        const cookie = jar.header(s.path('api/contents'));
        expect(cookie, via).toMatch(/username-/);
        const listing = await send('api/contents', { auth: false, headers: { cookie } });
        expect(listing.status, via).toBe(200);
      }
    });

    it('the prefix without its trailing slash works too', async () => {
      if (s.prefix === '/') return;
      const bare = s.prefix.slice(0, -1);
      for (const [via, send] of transports) {
        const login = await send(bare, { auth: false, headers: NAVIGATE });
        expect(login.status, via).toBe(302);
        expect(login.headers.get('location'), via).toBe(`${s.prefix}login?next=${encodeURIComponent(bare)}`);
        const withToken = await send(`${bare}?token=${s.token}`, { auth: false, headers: NAVIGATE });
        expect(withToken.status, via).toBe(302);
        expect(withToken.headers.get('location'), via).toBe(bare);
        const root = await send(bare, {});
        expect(root.headers.get('location'), via).toBe(s.path('tree'));
      }
    });

    it('the root keeps the query and answers token requests without a browser', async () => {
      for (const [via, send] of transports) {
        const res = await send(`?token=${s.token}&x=1`, { auth: false });
        expect(res.status, via).toBe(302);
        expect(res.headers.get('location'), via).toBe(`${s.path('tree')}?token=${s.token}&x=1`);
      }
    });
  });

  describe('login and logout', () => {
    it('sends anonymous page requests to the login page with a next= under the prefix', async () => {
      for (const [via, send] of transports) {
        const res = await send('tree/work', { auth: false, headers: NAVIGATE });
        expect(res.status, via).toBe(302);
        expect(res.headers.get('location'), via).toBe(
          `${s.prefix}login?next=${encodeURIComponent(s.path('tree/work'))}`,
        );
      }
    });

    it('logs in through the form and out again, with cookies on the prefix', async () => {
      for (const [via, send] of transports) {
        const jar = new CookieJar();
        const next = s.path('tree/work');
        const form = await send(`login?next=${encodeURIComponent(next)}`, { auth: false });
        expect(form.status, via).toBe(200);
        jar.store(form, s.path('login'));
        const html = await form.text();
        expect(html).toContain(`action="${s.prefix}login?next=${encodeURIComponent(next)}"`);
        const xsrf = jar.get('_xsrf', s.path('login'));
        expect(xsrf, via).toBeTruthy();
        const posted = await send(`login?next=${encodeURIComponent(next)}`, {
          auth: false,
          method: 'POST',
          headers: { cookie: jar.header(s.path('login')), 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ password: s.token, _xsrf: xsrf as string }).toString(),
        });
        expect(posted.status, via).toBe(302);
        expect(posted.headers.get('location'), via).toBe(next);
        jar.store(posted, s.path('login'));
        const login = jar.all().find((c) => c.name.startsWith('username-'));
        expect(login?.path, via).toBe(s.prefix);
        expect(login?.httpOnly, via).toBe(true);
        const page = await send('tree/work', { auth: false, headers: { cookie: jar.header(next) } });
        expect(page.status, via).toBe(200);

        const out = await send('logout', { auth: false, headers: { cookie: jar.header(s.path('logout')) } });
        expect(out.status, via).toBe(200);
        expect(await out.text()).toContain(`href="${s.prefix}login"`);
        jar.store(out, s.path('logout'));
        expect(
          jar.all().some((c) => c.name.startsWith('username-')),
          via,
        ).toBe(false);
        const after = await send('tree/work', { auth: false, headers: { ...NAVIGATE, cookie: jar.header(next) } });
        expect(after.status, via).toBe(302);
      }
    });

    it('GET login when already logged in goes on to next', async () => {
      for (const [via, send] of transports) {
        const res = await send(`login?next=${encodeURIComponent(s.path('tree'))}`);
        expect(res.status, via).toBe(302);
        expect(res.headers.get('location'), via).toBe(s.path('tree'));
      }
    });
  });

  describe('web pages', () => {
    it('tree, with and without trailing slashes, and its redirects for files', async () => {
      for (const [via, send] of transports) {
        const tree = await send('tree/work');
        expect(tree.status, via).toBe(200);
        const config = pageConfig(await tree.text());
        expect(config).toMatchObject({ baseUrl: s.prefix, path: 'work' });
        expect(config.outputFrameUrl).toBe(s.path('output-frame'));
        // Trailing slashes on pages name the same directory (as Notebook 6's `/tree/` does).
        for (const [relative, dir] of [
          ['tree/', ''],
          ['tree/work/?sort=name', 'work'],
        ] as const) {
          const page = await send(relative);
          expect(page.status, `${via} ${relative}`).toBe(200);
          expect(pageConfig(await page.text())).toMatchObject({ baseUrl: s.prefix, path: dir });
        }
        expect((await send('tree/work/Demo.ipynb')).headers.get('location'), via).toBe(
          s.path('notebooks/work/Demo.ipynb'),
        );
        expect((await send('tree/work/notes.txt')).headers.get('location'), via).toBe(s.path('files/work/notes.txt'));
        expect((await send('tree/missing')).status, via).toBe(404);
      }
    });

    it('notebook, editor, view and print pages', async () => {
      for (const [via, send] of transports) {
        const notebook = await send('notebooks/work/Demo.ipynb');
        expect(notebook.status, via).toBe(200);
        const html = await notebook.text();
        expect(html).toContain('class="page-notebook"');
        expect(pageConfig(html)).toMatchObject({ baseUrl: s.prefix, path: 'work/Demo.ipynb' });
        const slash = await send('notebooks/work/Demo.ipynb/');
        expect(pageConfig(await slash.text()), via).toMatchObject({ baseUrl: s.prefix, path: 'work/Demo.ipynb' });
        expect((await send('notebooks/work')).headers.get('location'), via).toBe(s.path('tree/work'));
        // A relative link in a notebook (`notes.txt`) resolves below notebooks/ and goes to the file.
        expect((await send('notebooks/work/notes.txt')).headers.get('location'), via).toBe(
          s.path('files/work/notes.txt'),
        );
        expect((await send('edit/work')).headers.get('location'), via).toBe(s.path('tree/work'));

        const editor = await send('edit/work/notes.txt');
        expect(editor.status, via).toBe(200);
        const editorHtml = await editor.text();
        expect(editorHtml).toContain('class="page-editor"');
        expect(pageConfig(editorHtml)).toMatchObject({ baseUrl: s.prefix, path: 'work/notes.txt' });

        const view = await send('view/page.html');
        expect(view.status, via).toBe(200);
        expect(await view.text()).toContain(`src="${s.path('files/page.html')}"`);
        expect((await send('view/work')).status, via).toBe(404);
        expect((await send('view/missing.html')).status, via).toBe(404);

        const print = await send('print/work/Demo.ipynb');
        expect(print.status, via).toBe(200);
        expect(await print.text()).toContain('const answer = 6 * 7');
      }
    });

    it('static assets of every page, HEAD too, and the output frame', async () => {
      for (const [via, send] of transports) {
        for (const page of ['tree', 'notebooks/work/Demo.ipynb', 'edit/work/notes.txt', 'print/work/Demo.ipynb']) {
          const res = await send(page);
          expect(res.status, `${via} ${page}`).toBe(200);
          await expectAssetsLoad(await res.text(), s, send);
        }
        const html = await (await send('tree')).text();
        const script = /src="([^"]+\.js)"/.exec(html)?.[1] as string;
        expect((await send(script, { auth: false, method: 'HEAD' })).status, via).toBe(200);
        const frame = await send('output-frame');
        expect(frame.status, via).toBe(200);
        await expectAssetsLoad(await frame.text(), s, send);
      }
    });

    it('GET new makes a notebook and opens its page under the prefix', async () => {
      const res = await s.fetch('new');
      expect(res.status).toBe(302);
      const location = res.headers.get('location') ?? '';
      expect(location).toMatch(new RegExp(`^${escapeRegExp(s.path('notebooks/'))}Untitled\\d*\\.ipynb$`));
      await fs.rm(path.join(s.root, decodeURIComponent(location.slice(s.path('notebooks/').length))));
    });
  });

  describe('files, kernelspec resources and export', () => {
    it('/files serves bytes, HEAD too', async () => {
      for (const [via, send] of transports) {
        const res = await send('files/work/notes.txt');
        expect(res.status, via).toBe(200);
        expect(await res.text()).toBe('hello from notes');
        expect((await send('files/work/notes.txt', { method: 'HEAD' })).status, via).toBe(200);
        const download = await send('files/work/notes.txt?download=1');
        expect(download.headers.get('content-disposition'), via).toMatch(/attachment/);
      }
    });

    it('kernelspec models point at resources under the prefix, and those resolve', async () => {
      for (const [via, send] of transports) {
        const specs = (await (await send('api/kernelspecs')).json()) as {
          default: string;
          kernelspecs: Record<string, { name: string; resources: Record<string, string> }>;
        };
        expect(specs.default, via).toBe('javascript');
        const logo = specs.kernelspecs.javascript?.resources['logo-64x64'] ?? '';
        expect(logo.startsWith(s.path('kernelspecs/javascript/')), logo).toBe(true);
        const res = await send(logo);
        expect(res.status, via).toBe(200);
        expect(res.headers.get('content-type')).toBe('image/png');
        const one = (await (await send('api/kernelspecs/javascript')).json()) as { name: string };
        expect(one.name, via).toBe('javascript');
      }
    });

    it('nbconvert: the exporter list, GET and POST conversions, and the redirect for non-notebooks', async () => {
      for (const [via, send] of transports) {
        const exporters = (await (await send('api/nbconvert')).json()) as Record<string, unknown>;
        expect(exporters, via).toHaveProperty('script');
        const script = await send('nbconvert/script/work/Demo.ipynb');
        expect(script.status, via).toBe(200);
        expect(await script.text()).toContain('const answer = 6 * 7');
        const html = await send('nbconvert/html/work/Demo.ipynb');
        expect(html.status, via).toBe(200);
        expect(await html.text()).toContain('answer');
        const posted = await send('nbconvert/script', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'x.ipynb', content: JSON.parse(notebookJson('posted = true')) }),
        });
        expect(posted.status, via).toBe(200);
        expect(await posted.text()).toContain('posted = true');
        const other = await send('nbconvert/script/work/notes.txt');
        expect(other.status, via).toBe(302);
        expect(other.headers.get('location')?.startsWith(s.prefix), via).toBe(true);
      }
    });
  });

  describe('the current API', () => {
    it('version, status, me, config and the trailing-slash redirect', async () => {
      for (const [via, send] of transports) {
        expect(await (await send('api', { auth: false })).json(), via).toEqual({ version: expect.any(String) });
        expect(await (await send('api/status')).json(), via).toMatchObject({ kernels: expect.any(Number) });
        expect(await (await send('api/me')).json(), via).toMatchObject({ identity: { username: expect.any(String) } });
        const patched = await send('api/me', { method: 'PATCH', body: JSON.stringify({ color: '#123456' }) });
        expect(await patched.json(), via).toMatchObject({ status: 'success', identity: { color: '#123456' } });
        const config = await send('api/config/matrix', { method: 'PUT', body: JSON.stringify({ via }) });
        expect(config.status, via).toBeLessThan(300);
        expect(await (await send('api/config/matrix')).json(), via).toEqual({ via });
        const slash = await send('api/status/');
        expect(slash.status, via).toBe(302);
        expect(slash.headers.get('location'), via).toBe(s.path('api/status'));
        // The Location repeats the path as sent: still escaped, never raw spaces or non-ASCII bytes.
        const escaped = await send('nothing/%C3%A9%20x/?q=1');
        expect(escaped.headers.get('location'), via).toBe(`${s.path('nothing/%C3%A9%20x')}?q=1`);
        const missing = await send('api/nothing');
        expect(missing.status, via).toBe(404);
        expect(await missing.json(), via).toEqual({ message: 'Not Found', reason: null });
        expect((await send('api/status', { auth: false })).status, via).toBe(403);
      }
    });

    it('metrics: a Prometheus scrape at the prefix, route patterns relative to it, 403 without the token', async () => {
      for (const [via, send] of transports) {
        expect((await send('api/contents')).status, via).toBe(200);
        const m = await scrape(send);
        const labels = { method: 'GET', handler: '/api/contents', status_code: '200' };
        expect(m.count('http_request_duration_seconds', labels), via).toBeGreaterThan(0);
        for (const handler of m.labelValues('http_request_duration_seconds_count', 'handler')) {
          expect(['/', '*'], via).toContain(handler[0]);
        }
        expect((await send('metrics', { auth: false })).status, via).toBe(403);
      }
    });

    it('contents: list, create with Location, checkpoints, rename, delete, and /api/notebooks', async () => {
      for (const [via, send] of transports) {
        const root = (await (await send('api/contents')).json()) as { type: string; content: { name: string }[] };
        expect(root.type, via).toBe('directory');
        expect(root.content.map((e) => e.name).sort(), via).toEqual(expect.arrayContaining(['Top.ipynb', 'work']));
        const dir = (await (await send('api/contents/work/')).json()) as { path: string };
        expect(dir.path, via).toBe('work');
        const name = `made-${via}.txt`;
        const put = await send(`api/contents/work/${name}`, {
          method: 'PUT',
          body: JSON.stringify({ type: 'file', format: 'text', content: 'made' }),
        });
        expect(put.status, via).toBe(201);
        expect(put.headers.get('location'), via).toBe(s.path(`api/contents/work/${name}`));
        const checkpoint = await send(`api/contents/work/${name}/checkpoints`, { method: 'POST' });
        expect(checkpoint.status, via).toBe(201);
        expect(checkpoint.headers.get('location')?.startsWith(s.path(`api/contents/work/${name}/checkpoints/`))).toBe(
          true,
        );
        const checkpointId = ((await checkpoint.json()) as { id: string }).id;
        const listed = (await (await send(`api/contents/work/${name}/checkpoints`)).json()) as { id: string }[];
        expect(
          listed.map((c) => c.id),
          via,
        ).toEqual([checkpointId]);
        const at = `api/contents/work/${name}/checkpoints/${checkpointId}`;
        expect((await send(at, { method: 'POST' })).status, via).toBe(204);
        expect((await send(at, { method: 'DELETE' })).status, via).toBe(204);
        const renamed = await send(`api/contents/work/${name}`, {
          method: 'PATCH',
          body: JSON.stringify({ path: `work/renamed-${name}` }),
        });
        expect(renamed.status, via).toBe(200);
        expect((await send(`api/contents/work/renamed-${name}`, { method: 'DELETE' })).status, via).toBe(204);
        const old = await send('api/notebooks/work?type=directory');
        expect(old.status, via).toBe(307);
        expect(old.headers.get('location'), via).toBe(`${s.path('api/contents/work')}?type=directory`);
      }
    });

    it('cookie-authenticated writes need the XSRF cookie the pages set, on the same path', async () => {
      for (const [via, send] of transports) {
        const jar = new CookieJar();
        jar.store(await send(`?token=${s.token}`, { auth: false, headers: NAVIGATE }), s.prefix);
        const target = s.path('api/contents/work');
        const xsrf = jar.get('_xsrf', target);
        expect(xsrf, via).toBeTruthy();
        const created = await send('api/contents/work', {
          auth: false,
          method: 'POST',
          headers: { cookie: jar.header(target), 'x-xsrftoken': xsrf as string },
          body: JSON.stringify({ type: 'file', ext: '.txt' }),
        });
        expect(created.status, via).toBe(201);
        const model = (await created.json()) as { path: string };
        expect((await send(`api/contents/${model.path}`, { method: 'DELETE' })).status, via).toBe(204);
      }
    });

    it('kernels, sessions and the kernel WebSocket', async () => {
      const started = await s.fetch('api/kernels', { method: 'POST', body: JSON.stringify({ name: 'javascript' }) });
      expect(started.status).toBe(201);
      const kernel = (await started.json()) as { id: string; name: string };
      expect(started.headers.get('location')).toBe(s.path(`api/kernels/${kernel.id}`));
      try {
        for (const [via, send] of transports) {
          expect(await (await send(`api/kernels/${kernel.id}`)).json(), via).toMatchObject({ id: kernel.id });
          expect(
            ((await (await send('api/kernels')).json()) as { id: string }[]).map((k) => k.id),
            via,
          ).toContain(kernel.id);
        }
        const socket = await open(`${s.wsUrl(`api/kernels/${kernel.id}/channels`)}?session_id=${randomUUID()}`, {
          authorization: `token ${s.token}`,
        });
        const request = {
          header: { msg_id: randomUUID(), msg_type: 'kernel_info_request', session: randomUUID(), username: 't' },
          parent_header: {},
          metadata: {},
          content: {},
          channel: 'shell',
        };
        socket.ws.send(JSON.stringify(request));
        const reply = await socket.waitFor(
          (f) => f.header.msg_type === 'kernel_info_reply' && f.parent_header.msg_id === request.header.msg_id,
        );
        expect(reply.content).toMatchObject({ status: 'ok', language_info: { name: 'javascript' } });
        socket.ws.close();
        const restarted = await s.fetch(`api/kernels/${kernel.id}/restart`, { method: 'POST' });
        expect(restarted.status).toBe(200);
        expect(restarted.headers.get('location')).toBe(s.path(`api/kernels/${kernel.id}`));
        expect((await s.fetch(`api/kernels/${kernel.id}/interrupt`, { method: 'POST' })).status).toBe(204);
      } finally {
        await s.fetch(`api/kernels/${kernel.id}`, { method: 'DELETE' });
      }

      const session = await s.fetch('api/sessions', {
        method: 'POST',
        body: JSON.stringify({ path: 'work/Demo.ipynb', type: 'notebook', kernel: { name: 'javascript' } }),
      });
      expect(session.status).toBe(201);
      const model = (await session.json()) as { id: string; kernel: { id: string } };
      expect(session.headers.get('location')).toBe(s.path(`api/sessions/${model.id}`));
      for (const [via, send] of transports) {
        expect(await (await send(`api/sessions/${model.id}`)).json(), via).toMatchObject({ path: 'work/Demo.ipynb' });
        expect(((await (await send('api/sessions')).json()) as unknown[]).length, via).toBe(1);
      }
      const moved = await s.fetch(`api/sessions/${model.id}`, {
        method: 'PATCH',
        body: JSON.stringify({ path: 'work/Moved.ipynb' }),
      });
      expect(await moved.json()).toMatchObject({ id: model.id, path: 'work/Moved.ipynb' });
      expect((await s.fetch(`api/sessions/${model.id}`, { method: 'DELETE' })).status).toBe(204);
    });

    it("JupyterLab's own client (@jupyterlab/services): contents, a session and code run over its WebSocket", async () => {
      const serverSettings = s.jupyterSettings();
      const contents = new ContentsManager({ serverSettings });
      const dir = await contents.get('work');
      expect(dir.content.map((e: { name: string }) => e.name)).toContain('Demo.ipynb');
      const kernels = new KernelManager({ serverSettings });
      const sessions = new SessionManager({ serverSettings, kernelManager: kernels });
      try {
        const session = await sessions.startNew({
          path: 'work/Demo.ipynb',
          type: 'notebook',
          name: 'Demo.ipynb',
          kernel: { name: 'javascript' },
        });
        const kernel = session.kernel;
        if (!kernel) throw new Error('the session has no kernel');
        const future = kernel.requestExecute({ code: '6 * 7' });
        const results: KernelMessage.IIOPubMessage[] = [];
        future.onIOPub = (msg) => {
          if (msg.header.msg_type === 'execute_result') results.push(msg);
        };
        expect((await future.done).content.status).toBe('ok');
        expect(results[0]?.content).toMatchObject({ data: { 'text/plain': '42' } });
        await session.shutdown();
      } finally {
        sessions.dispose();
        kernels.dispose();
        contents.dispose();
      }
    });

    it('terminals: the API, the page and the WebSocket', async () => {
      const created = await s.fetch('api/terminals', { method: 'POST', body: JSON.stringify({ cwd: 'work' }) });
      expect(created.status).toBe(200);
      const { name } = (await created.json()) as { name: string };
      try {
        for (const [via, send] of transports) {
          expect(await (await send(`api/terminals/${name}`)).json(), via).toMatchObject({ name });
          expect(
            ((await (await send('api/terminals')).json()) as { name: string }[]).map((t) => t.name),
            via,
          ).toContain(name);
          const page = await send(`terminals/${name}`, { headers: NAVIGATE });
          expect(page.status, via).toBe(200);
          const html = await page.text();
          expect(pageConfig(html), via).toMatchObject({ baseUrl: s.prefix, terminalName: name, terminals: true });
          await expectAssetsLoad(html, s, send);
          expect((await send('terminals/nope', { headers: NAVIGATE })).status, via).toBe(404);
        }
        const socket = await TerminalSocket.open(s.wsUrl(`terminals/websocket/${name}`), {
          authorization: `token ${s.token}`,
        });
        socket.stdin('echo $((6*7)); ls\r');
        await socket.waitForOutput(/\b42\r\n[\s\S]*notes\.txt/);
        socket.close();
      } finally {
        expect((await s.fetch(`api/terminals/${name}`, { method: 'DELETE' })).status).toBe(204);
      }
    });

    it('collaboration: the session route and a room WebSocket', async () => {
      await fs.writeFile(path.join(s.root, 'work', 'Live.ipynb'), JSON.stringify(v4Notebook([v4CodeCell('1 + 1')])));
      const client = await openCollabClient(s.url, 'work/Live.ipynb');
      try {
        expect(client.model.getCell(0).getSource()).toBe('1 + 1');
        for (const [via, send] of transports) {
          const res = await send('api/collaboration/session/work/Live.ipynb', {
            method: 'PUT',
            json: { format: 'json', type: 'notebook' },
          });
          expect(res.status, via).toBe(200);
        }
      } finally {
        client.close();
      }
    });

    it('clusters at /api/clusters and /clusters', async () => {
      for (const [via, send] of transports) {
        for (const prefix of ['api/clusters', 'clusters']) {
          const list = (await (await send(prefix)).json()) as { profile: string; status: string }[];
          expect(list, `${via} ${prefix}`).toEqual([
            expect.objectContaining({ profile: 'default', status: 'stopped' }),
          ]);
          expect(await (await send(`${prefix}/default`)).json()).toMatchObject({ profile: 'default' });
        }
      }
    });
  });

  describe('JupyterLab', () => {
    it('a browser logs in at lab?token=, gets the page with the prefix in its config, and its bundle loads', async () => {
      for (const [via, send] of transports) {
        const jar = new CookieJar();
        const first = await send(`lab/tree/work/Demo.ipynb?token=${s.token}`, { auth: false, headers: NAVIGATE });
        expect(first.status, via).toBe(302);
        expect(first.headers.get('location'), via).toBe(s.path('lab/tree/work/Demo.ipynb'));
        jar.store(first, s.prefix);
        const page = await send('lab/tree/work/Demo.ipynb', {
          auth: false,
          headers: { cookie: jar.header(s.path('lab')) },
        });
        expect(page.status, via).toBe(200);
        const html = await page.text();
        const config = JSON.parse(
          /id="jupyter-config-data" type="application\/json">(.*?)<\/script>/s.exec(html)?.[1] ?? '{}',
        );
        expect(config, via).toMatchObject({
          baseUrl: s.prefix,
          fullStaticUrl: s.path('static/lab'),
          fullSettingsUrl: s.path('lab/api/settings'),
          fullLabextensionsUrl: s.path('lab/extensions'),
          treePath: 'work/Demo.ipynb',
          token: '',
        });
        const bundle = await send('static/lab/main.0123456789abcdef.js', { auth: false });
        expect(bundle.status, via).toBe(200);
        expect(html, via).toContain(`src="${s.path('static/lab/main.0123456789abcdef.js')}"`);
      }
    });

    it('settings and workspaces with the cookie and XSRF header JupyterLab sends; themes, translations, licenses', async () => {
      const plugin = '@jupyterlab/apputils-extension:themes';
      for (const [via, send] of transports) {
        const jar = new CookieJar();
        jar.store(await send(`lab?token=${s.token}`, { auth: false, headers: NAVIGATE }), s.prefix);
        const target = s.path(`lab/api/settings/${plugin}`);
        const headers = { cookie: jar.header(target), 'x-xsrftoken': jar.get('_xsrf', target) as string };
        const raw = `{ theme: "JupyterLab Dark" /* ${via} */ }`;
        const put = await send(`lab/api/settings/${plugin}`, { auth: false, method: 'PUT', headers, json: { raw } });
        expect(put.status, via).toBe(204);
        const got = (await (await send(`lab/api/settings/${plugin}`, { auth: false, headers })).json()) as {
          raw: string;
        };
        expect(got.raw, via).toBe(raw);
        const workspace = { data: { via }, metadata: { id: 'default' } };
        const saved = await send('lab/api/workspaces/default', {
          auth: false,
          method: 'PUT',
          headers,
          json: workspace,
        });
        expect(saved.status, via).toBe(204);
        const list = (await (await send('lab/api/workspaces')).json()) as { workspaces: { ids: string[] } };
        expect(list.workspaces.ids, via).toEqual(['default']);
      }
      const css = await (await s.fetch('lab/api/themes/@jupyterlab/theme-light-extension/index.css')).text();
      expect(css).toContain(`url('${s.path('lab/api/themes/@jupyterlab/theme-light-extension/images/logo.svg')}')`);
      const logo = await s.fetch('lab/api/themes/@jupyterlab/theme-light-extension/images/logo.svg');
      expect(logo.status).toBe(200);
      expect((await (await s.fetch('lab/api/translations')).json()) as object).toHaveProperty('data.en');
      expect((await s.fetch('lab/api/licenses?format=csv')).status).toBe(200);
    });

    it('the event bus WebSocket sends contents events', async () => {
      const socket = await open(s.wsUrl('api/events/subscribe'), { authorization: `token ${s.token}` });
      try {
        await s.fetch('api/contents/work/evt.txt', {
          method: 'PUT',
          json: { type: 'file', format: 'text', content: '' },
        });
        const event = (await socket.waitFor(() => true)) as unknown as Record<string, unknown>;
        expect(event).toMatchObject({ action: 'upload', path: 'work/evt.txt' });
      } finally {
        socket.ws.close();
      }
    });
  });

  describe('the older single-directory routes', () => {
    it('notebooks by id: list, JSON, pages, copy, print, name redirect, create', async () => {
      for (const [via, send] of transports) {
        const list = (await (await send('notebooks')).json()) as { notebook_id: string; name: string }[];
        const top = list.find((n) => n.name === 'Top');
        expect(top, via).toBeDefined();
        const id = top?.notebook_id as string;
        const json = (await (await send(`notebooks/${id}`)).json()) as { worksheets: unknown[] };
        expect(json.worksheets, via).toHaveLength(1);
        expect((await send(id)).headers.get('location'), via).toBe(s.path('notebooks/Top.ipynb'));
        expect((await send('Top.ipynb')).headers.get('location'), via).toBe(s.path(id));
        const print = await send(`${id}/print`);
        expect(print.status, via).toBe(200);
        const printed = await print.text();
        expect(printed).toContain('top = 1');
        await expectAssetsLoad(printed, s, send);
        const copy = await send(`${id}/copy`);
        expect(copy.headers.get('location'), via).toMatch(
          new RegExp(`^${escapeRegExp(s.path('notebooks/'))}Top-Copy\\d+\\.ipynb$`),
        );
        const created = await send('notebooks', { method: 'POST' });
        const createdAt = created.headers.get('location') ?? '';
        expect(createdAt, via).toMatch(new RegExp(`^${escapeRegExp(s.path('notebooks/'))}[0-9a-f-]{36}$`));
        const newId = createdAt.slice(s.path('notebooks/').length);
        const v3 = (await (await send(`notebooks/${newId}`)).json()) as { metadata: { name: string } };
        expect((await send(`notebooks/${newId}`, { method: 'PUT', body: JSON.stringify(v3) })).status, via).toBe(204);
        const checkpoint = await send(`notebooks/${newId}/checkpoints`, { method: 'POST' });
        const { checkpoint_id } = (await checkpoint.json()) as { checkpoint_id: string };
        expect(checkpoint.headers.get('location'), via).toBe(s.path(`notebooks/${newId}/checkpoints/${checkpoint_id}`));
        expect(await (await send(`notebooks/${newId}/checkpoints`)).json(), via).toEqual([
          expect.objectContaining({ checkpoint_id }),
        ]);
        const checkpointAt = `notebooks/${newId}/checkpoints/${checkpoint_id}`;
        expect((await send(checkpointAt, { method: 'POST' })).status, via).toBe(204);
        expect((await send(checkpointAt, { method: 'DELETE' })).status, via).toBe(204);
        expect((await send(`notebooks/${newId}`, { method: 'DELETE' })).status, via).toBe(204);
      }
    });

    it('reST rendering, GET and POST', async () => {
      for (const [via, send] of transports) {
        const posted = await send('rstservice/render', { method: 'POST', body: '*emphasis*' });
        expect(posted.status, via).toBe(200);
        expect(await posted.text()).toContain('<em>emphasis</em>');
        const got = await send('rstservice/render?text=**strong**');
        expect(await got.text(), via).toContain('<strong>strong</strong>');
      }
    });

    it('kernels: start for a notebook, list, model, per-channel sockets with first-frame credentials', async () => {
      const list = (await (await s.fetch('notebooks')).json()) as { notebook_id: string; name: string }[];
      const id = list.find((n) => n.name === 'Top')?.notebook_id as string;
      const started = await s.fetch(`kernels?notebook=${id}`, { method: 'POST' });
      expect(started.status).toBe(200);
      const { ws_url, kernel_id } = (await started.json()) as { ws_url: string; kernel_id: string };
      expect(started.headers.get('location')).toBe(s.path(`kernels/${kernel_id}`));
      try {
        for (const [via, send] of transports) {
          expect(await (await send('kernels')).json(), via).toContain(kernel_id);
          expect(await (await send(`kernels/${kernel_id}`)).json(), via).toMatchObject({ id: kernel_id });
        }
        // IPython 1.x opens `<ws_url><base>kernels/<id>/<channel>`, the base taken from the page.
        const session = randomUUID();
        const shell = await open(`${ws_url}${s.path(`kernels/${kernel_id}/shell`)}`, { origin: s.origin });
        const iopub = await open(`${ws_url}${s.path(`kernels/${kernel_id}/iopub`)}`, { origin: s.origin });
        shell.ws.send(`${session}:`);
        iopub.ws.send(`${session}:`);
        for (const socket of [shell, iopub]) socket.ws.close();
        // Without credentials the first frame is refused: the sockets were reached, and authenticate.
        const shellWithToken = await open(`${ws_url}${s.path(`kernels/${kernel_id}/shell`)}?token=${s.token}`, {
          origin: s.origin,
        });
        shellWithToken.ws.send(`${session}:`);
        const request: Frame = {
          header: { msg_id: randomUUID(), username: 'old', session, msg_type: 'kernel_info_request' },
          parent_header: {},
          metadata: {},
          content: {},
        };
        shellWithToken.ws.send(JSON.stringify(request));
        const reply = await shellWithToken.waitFor((f) => f.header.msg_type === 'kernel_info_reply');
        expect(reply.parent_header.msg_id).toBe(request.header.msg_id);
        shellWithToken.ws.close();
        expect((await shell.waitClosed()).code).toBeGreaterThan(0);
        // IPython 2.x's per-channel sockets live under api/.
        const apiShell = await open(`${ws_url}${s.path(`api/kernels/${kernel_id}/shell`)}?token=${s.token}`, {
          origin: s.origin,
        });
        apiShell.ws.send(`${session}:`);
        const again: Frame = { ...request, header: { ...request.header, msg_id: randomUUID() } };
        apiShell.ws.send(JSON.stringify(again));
        const second = await apiShell.waitFor((f) => f.header.msg_type === 'kernel_info_reply');
        expect(second.parent_header.msg_id).toBe(again.header.msg_id);
        apiShell.ws.close();
        expect((await s.fetch(`kernels/${kernel_id}/interrupt`, { method: 'POST' })).status).toBe(204);
        expect((await s.fetch(`kernels/${kernel_id}/interrupt`)).status).toBe(204);
      } finally {
        expect((await s.fetch(`kernels/${kernel_id}`, { method: 'DELETE' })).status).toBe(204);
      }
    });
  });

  it('nothing answers outside the prefix', async () => {
    if (s.prefix === '/') return;
    expect((await fetch(`${s.origin}/api/status`, { headers: { authorization: `token ${s.token}` } })).status).toBe(
      404,
    );
    // Routing is literal: `/a@b/` is not `/a%40b/`.
    if (s.prefix.includes('%40')) {
      const unescaped = `${s.origin}${decodeURIComponent(s.prefix)}api/status`;
      expect((await fetch(unescaped, { headers: { authorization: `token ${s.token}` } })).status).toBe(404);
    }
  });

  it('POST api/shutdown stops the server (last)', async () => {
    expect((await s.fetch('api/shutdown', { method: 'POST' })).status).toBe(200);
    await s.closed;
    await expect(s.fetch('api')).rejects.toThrow(/ECONNREFUSED/);
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
