// needs: kernel, browser, jupyterhub
/**
 * nbserve as the single-user server of a real JupyterHub (Debian's 3.0): alice logs in through the
 * hub and its OAuth flow, lands on nbserve's dashboard, runs code through the proxy's WebSocket;
 * bob gets nowhere on alice's server, by browser or by token; nbserve's activity reports reach the
 * hub; the hub stops the server and nothing of it is left running. dave (default URL /lab) logs in
 * with Chromium, lands on the real JupyterLab and runs a python3 cell in it, every request and
 * socket of the page going through the hub's proxy under /user/dave/.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { promises as fs, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { launchChromium } from '../../../testing/chromium.js';
import { CookieJar } from '../../../testing/cookie-jar.js';
import { processesUnder, type RunningHub, startHub } from '../../../testing/jupyterhub.js';
import { firstCell, labRestored, runFirstCell, watch } from '../../../testing/lab-browser.js';
import { buildTestLabextension, TEST_LABEXTENSION_NAME } from '../../../testing/labextension.js';
import { waitForValue, within } from '../../../testing/wait.js';

const ALICE_TOKEN = randomBytes(24).toString('hex');
const BOB_TOKEN = randomBytes(24).toString('hex');
const ADMIN_TOKEN = randomBytes(24).toString('hex');
const ACTIVITY_INTERVAL = 2;

/** A cookie-keeping HTTP client that follows redirects the way a browser does (GET after 302/303). */
class Browser {
  readonly jar = new CookieJar();
  constructor(readonly origin: string) {}

  async send(target: string, init: RequestInit = {}): Promise<Response> {
    const url = new URL(target, this.origin);
    const headers = new Headers(init.headers);
    const cookie = this.jar.header(url.pathname);
    if (cookie) headers.set('Cookie', cookie);
    const response = await fetch(url, { ...init, headers, redirect: 'manual', signal: AbortSignal.timeout(60_000) });
    this.jar.store(response, url.pathname);
    return response;
  }

  /** Follows redirects; returns the last response and every URL visited. */
  async navigate(target: string, init: RequestInit = {}): Promise<{ response: Response; visited: string[] }> {
    const visited: string[] = [];
    let url = new URL(target, this.origin).href;
    let request = init;
    for (let hop = 0; hop < 20; hop++) {
      visited.push(url);
      const response = await this.send(url, { ...request, headers: { Accept: 'text/html', ...request.headers } });
      const location = response.headers.get('location');
      if (response.status < 300 || response.status > 399 || !location) return { response, visited };
      await response.body?.cancel();
      url = new URL(location, url).href;
      request = {};
    }
    throw new Error(`Too many redirects: ${visited.join(' -> ')}`);
  }

  /** Logs in at the hub's form (DummyAuthenticator takes any password). */
  async logIn(user: string, next: string) {
    const body = new URLSearchParams({ username: user, password: 'any' });
    return this.navigate(`/hub/login?next=${encodeURIComponent(next)}`, {
      method: 'POST',
      body,
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
  }
}

interface KernelMessage {
  header: { msg_type: string; msg_id: string };
  parent_header: { msg_id?: string };
  content: Record<string, unknown>;
  channel: string;
}

/** Runs `code` on a kernel over its channels WebSocket, resolving with the execute_result's text. */
async function execute(wsUrl: string, headers: Record<string, string>, code: string): Promise<string> {
  const ws = new WebSocket(wsUrl, { headers });
  const result = new Promise<string>((resolve, reject) => {
    const msgId = randomUUID();
    ws.on('error', (error) => reject(error));
    ws.on('unexpected-response', (_request, response) => {
      reject(new Error(`WebSocket refused: ${response.statusCode}`));
    });
    ws.on('open', () => {
      const header = {
        msg_id: msgId,
        msg_type: 'execute_request',
        username: 'alice',
        session: randomUUID(),
        date: new Date().toISOString(),
        version: '5.3',
      };
      const content = { code, silent: false, store_history: true, user_expressions: {}, allow_stdin: false };
      ws.send(JSON.stringify({ header, parent_header: {}, metadata: {}, content, channel: 'shell', buffers: [] }));
    });
    ws.on('message', (data) => {
      const message = JSON.parse(String(data)) as KernelMessage;
      if (message.parent_header.msg_id !== msgId || message.header.msg_type !== 'execute_result') return;
      ws.close();
      resolve(String((message.content.data as Record<string, unknown>)['text/plain']));
    });
  });
  return await within(result, 120_000, 'execute_result').catch((error: unknown) => {
    ws.terminate();
    throw error;
  });
}

let hub: RunningHub;

beforeAll(async () => {
  hub = await startHub({
    activityInterval: ACTIVITY_INTERVAL,
    userTokens: { alice: ALICE_TOKEN, bob: BOB_TOKEN },
    adminToken: ADMIN_TOKEN,
    // JupyterLab's window.jupyterapp, so the JupyterLab test can wait for the app's restored layout.
    serverArgs: ['--expose-app-in-browser'],
    defaultUrls: { dave: '/lab' },
  });
}, 180_000);

afterAll(async () => {
  await hub?.stop();
}, 120_000);

describe('nbserve spawned by a real JupyterHub', () => {
  it('serves alice through the hub, refuses bob, reports activity, and stops without leftovers', async () => {
    try {
      const alice = new Browser(hub.url);
      // The hub's login form, then its spawn: the hub starts nbserve and waits for its readiness probe.
      const login = await alice.logIn('alice', '/hub/spawn');
      expect([200, 302]).toContain(login.response.status);
      await login.response.body?.cancel();
      await waitForValue('alice’s server to be ready', 240_000, async () => {
        const model = (await (await hub.api('users/alice')).json()) as { servers?: Record<string, { ready: boolean }> };
        return model.servers?.['']?.ready ? true : undefined;
      });

      // Without credentials: pages go to the hub's authorize URL (the readiness probe's answer), the API is a 403.
      const probe = await fetch(`${hub.url}/user/alice/`, { redirect: 'manual' });
      expect(probe.status).toBe(302);
      expect(probe.headers.get('location')).toMatch(/^\/hub\/api\/oauth2\/authorize\?client_id=jupyterhub-user-alice&/);
      const anonymousApi = await fetch(`${hub.url}/user/alice/api/contents`, { redirect: 'manual' });
      expect(anonymousApi.status).toBe(403);
      await anonymousApi.body?.cancel();

      // Through the hub's OAuth flow to nbserve's dashboard (already at the spawn when the server
      // started before the hub's spawn page gave up waiting and sent the browser on).
      const landing = await alice.navigate('/user/alice/');
      const visited = [...login.visited, ...landing.visited].map((u) => new URL(u).pathname);
      expect(visited).toContain('/hub/api/oauth2/authorize');
      expect(visited).toContain('/user/alice/oauth_callback');
      expect(landing.response.status).toBe(200);
      expect(new URL(landing.visited.at(-1) as string).pathname).toBe('/user/alice/tree');
      const page = await landing.response.text();
      expect(page).toContain('"hubControlPanelUrl":"/hub/home"');
      expect(alice.jar.all().find((c) => c.name === 'jupyterhub-user-alice')?.httpOnly).toBe(true);

      // The API by cookie (with the XSRF token the page set) and by alice's hub token.
      const xsrf = alice.jar.get('_xsrf', '/user/alice/api/kernels') ?? '';
      const started = await alice.send('/user/alice/api/kernels', {
        method: 'POST',
        body: JSON.stringify({ name: 'javascript' }),
        headers: { 'Content-Type': 'application/json', 'X-XSRFToken': xsrf },
      });
      expect(started.status).toBe(201);
      const kernel = (await started.json()) as { id: string };
      const byToken = await fetch(`${hub.url}/user/alice/api/kernels`, {
        headers: { Authorization: `token ${ALICE_TOKEN}` },
      });
      expect(byToken.status).toBe(200);
      expect(((await byToken.json()) as { id: string }[]).map((k) => k.id)).toContain(kernel.id);
      const me = await fetch(`${hub.url}/user/alice/api/me`, { headers: { Authorization: `token ${ALICE_TOKEN}` } });
      expect(((await me.json()) as { identity: { username: string } }).identity.username).toBe('alice');

      // Code runs through the proxy's WebSocket.
      const beforeCode = Date.now();
      const wsUrl = `${hub.url.replace(/^http/, 'ws')}/user/alice/api/kernels/${kernel.id}/channels?session_id=${randomUUID()}`;
      const cookieHeader = alice.jar.header(`/user/alice/api/kernels/${kernel.id}/channels`);
      const result = await execute(wsUrl, { Cookie: cookieHeader, Origin: hub.url }, '6 * 7');
      expect(result).toBe('42');

      // bob: the hub will not authorize him for alice's server, and nbserve refuses his cookies and token.
      const bob = new Browser(hub.url);
      await (await bob.logIn('bob', '/hub/home')).response.body?.cancel();
      const bobVisit = await bob.navigate('/user/alice/tree');
      expect(bobVisit.response.status).toBe(403);
      await bobVisit.response.body?.cancel();
      expect(bob.jar.all().some((c) => c.name === 'jupyterhub-user-alice')).toBe(false);
      const bobApi = await bob.send('/user/alice/api/contents', { headers: { Accept: 'application/json' } });
      expect(bobApi.status).toBe(403);
      await bobApi.body?.cancel();
      for (const headers of [{ Authorization: `token ${BOB_TOKEN}` }, { Authorization: 'token not-a-hub-token' }]) {
        const refused = await fetch(`${hub.url}/user/alice/api/contents`, { headers, redirect: 'manual' });
        expect(refused.status).toBe(403);
        await refused.body?.cancel();
      }
      const bobSocket = execute(wsUrl, { Authorization: `token ${BOB_TOKEN}`, Origin: hub.url }, '1');
      await expect(bobSocket).rejects.toThrow(/403/);
      // An unfiltered access:servers (the admin service) is admitted.
      const admin = await fetch(`${hub.url}/user/alice/api/status`, {
        headers: { Authorization: `token ${ADMIN_TOKEN}` },
      });
      expect(admin.status).toBe(200);
      await admin.body?.cancel();

      // nbserve's activity reports move the server's last activity in the hub past the code run.
      const lastActivity = await waitForValue('alice’s activity in the hub', 60_000, async () => {
        const model = (await (await hub.api('users/alice')).json()) as {
          servers: Record<string, { last_activity: string }>;
        };
        const when = Date.parse(model.servers['']?.last_activity ?? '');
        return when >= beforeCode - 1000 ? when : undefined;
      });
      expect(lastActivity).toBeLessThanOrEqual(Date.now() + 1000);

      // The hub stops the server (SIGINT): nbserve shuts its kernel down and exits; nothing remains.
      const home = hub.home('alice');
      const running = processesUnder(home);
      expect(running.length).toBeGreaterThanOrEqual(2); // nbserve and its kernel
      const serverToken = running
        .flatMap((pid) => readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0'))
        .find((entry) => entry.startsWith('JUPYTERHUB_API_TOKEN='))
        ?.slice('JUPYTERHUB_API_TOKEN='.length);
      expect(serverToken).toMatch(/^\w{16,}$/);
      const stop = await hub.api('users/alice/server', { method: 'DELETE' });
      expect([202, 204]).toContain(stop.status);
      await waitForValue('alice’s server to stop', 120_000, async () => {
        const model = (await (await hub.api('users/alice')).json()) as { servers: Record<string, unknown> };
        return Object.keys(model.servers).length === 0 ? true : undefined;
      });
      await waitForValue('no process of alice’s server', 30_000, async () =>
        processesUnder(home).length === 0 ? true : undefined,
      );
      expect(hub.logs()).toContain('nbserve stopped.');
      // No token in any log line (nbserve's own, or those of the users it checked).
      for (const token of [serverToken as string, ALICE_TOKEN, BOB_TOKEN]) expect(hub.logs()).not.toContain(token);
    } catch (error) {
      console.error(`--- hub log (tail) ---\n${hub.logs().slice(-20_000)}`);
      throw error;
    }
  }, 600_000);

  it('serves a user whose name the hub escapes in URLs', async () => {
    const name = 'carol+1@example.org';
    const prefix = '/user/carol%2B1@example.org/';
    const carol = new Browser(hub.url);
    const spawned = await carol.logIn(name, '/hub/spawn');
    await spawned.response.body?.cancel();
    const api = `users/${encodeURIComponent(name)}`;
    try {
      await waitForValue('carol’s server to be ready', 240_000, async () => {
        const model = (await (await hub.api(api)).json()) as { servers?: Record<string, { ready: boolean }> };
        return model.servers?.['']?.ready ? true : undefined;
      });
      const landing = await carol.navigate(prefix);
      expect(landing.response.status).toBe(200);
      expect(new URL(landing.visited.at(-1) as string).pathname).toBe(`${prefix}tree`);
      // The OAuth round trip through the escaped prefix happens here, or already at the spawn when
      // the server started before the hub's spawn page gave up waiting and sent the browser on.
      const visited = [...spawned.visited, ...landing.visited].map((u) => new URL(u).pathname);
      expect(visited).toContain(`${prefix}oauth_callback`);
      await landing.response.body?.cancel();
      const contents = await carol.send(`${prefix}api/contents`);
      expect(contents.status).toBe(200);
      expect(((await contents.json()) as { type: string }).type).toBe('directory');
      const stop = await hub.api(`${api}/server`, { method: 'DELETE' });
      expect([202, 204]).toContain(stop.status);
      await waitForValue('no process of carol’s server', 120_000, async () =>
        processesUnder(hub.home(name)).length === 0 ? true : undefined,
      );
    } catch (error) {
      console.error(`--- hub log (tail) ---\n${hub.logs().slice(-20_000)}`);
      throw error;
    }
  }, 600_000);
});

describe('JupyterLab behind a real JupyterHub', () => {
  it('logs dave in with Chromium, lands on JupyterLab (default URL /lab) and runs a python3 cell through the proxy', async () => {
    const prefix = '/user/dave/';
    // The prebuilt test extension, installed for dave as `jupyter labextension` does in the user's data dir.
    const userExtensions = path.join(hub.home('dave'), '.local/share/jupyter/labextensions');
    await fs.cp(await buildTestLabextension(), path.join(userExtensions, TEST_LABEXTENSION_NAME), { recursive: true });
    // The hub spawns dave's server first (as the tests above), so the browser's login goes straight through.
    const spawner = new Browser(hub.url);
    await (await spawner.logIn('dave', '/hub/spawn')).response.body?.cancel();
    const chromium = await launchChromium();
    try {
      await waitForValue('dave’s server to be ready', 240_000, async () => {
        const model = (await (await hub.api('users/dave')).json()) as { servers?: Record<string, { ready: boolean }> };
        return model.servers?.['']?.ready ? true : undefined;
      });
      const notebook = {
        cells: [{ cell_type: 'code', id: 'c1', metadata: {}, source: '', execution_count: null, outputs: [] }],
        metadata: { kernelspec: { name: 'python3', display_name: 'Python 3 (ipykernel)', language: 'python' } },
        nbformat: 4,
        nbformat_minor: 5,
      };
      await fs.writeFile(path.join(hub.home('dave'), 'py.ipynb'), JSON.stringify(notebook));

      const page = await (await chromium.newContext()).newPage();
      const problems = watch(page);
      const requests: string[] = [];
      const sockets: string[] = [];
      page.on('request', (request) => requests.push(`${request.method()} ${new URL(request.url()).pathname}`));
      page.on('websocket', (socket) => sockets.push(new URL(socket.url()).pathname));
      // The hub's login form, then nbserve's OAuth round trip, then the server's default URL /lab.
      await page.goto(`${hub.url}/hub/login?next=${encodeURIComponent(prefix)}`);
      await page.fill('input[name=username]', 'dave');
      await page.fill('input[name=password]', 'any');
      await page.click('input[type=submit]');
      await labRestored(page);
      expect(new URL(page.url()).pathname).toBe(`${prefix}lab`);
      expect(await page.title()).toContain('JupyterLab');
      expect(requests).toContain(`GET ${prefix}oauth_callback`);
      // The notebook in a named workspace.
      const target = `${prefix}lab/workspaces/hub/tree/py.ipynb`;
      await page.goto(`${hub.url}${target}`);
      await labRestored(page);
      const marker = page.locator('#nbserve-test-marker');
      await expect.poll(() => marker.textContent()).toBe('prebuilt extension loaded');

      await runFirstCell(page, 'print(6 * 7)');
      await expect
        .poll(() => firstCell(page).locator('.jp-OutputArea-output').textContent(), { timeout: 60_000 })
        .toBe('42\n');
      // the layout JupyterLab saves reaches dave's server, XSRF and all, through the proxy
      await expect
        .poll(() => requests.some((r) => r.startsWith(`PUT ${prefix}lab/api/workspaces/hub`)), { timeout: 20_000 })
        .toBe(true);
      for (const wanted of [
        `GET ${prefix}lab/api/settings`,
        `GET ${prefix}api/kernelspecs`,
        `POST ${prefix}api/sessions`,
        `GET ${prefix}lab/extensions/${TEST_LABEXTENSION_NAME}/`,
      ]) {
        expect(requests.some((r) => r.startsWith(wanted))).toBe(true);
      }
      expect(sockets.some((url) => url.startsWith(`${prefix}api/kernels/`) && url.endsWith('/channels'))).toBe(true);
      expect(sockets).toContain(`${prefix}api/events/subscribe`);
      // nothing of the page's own traffic leaves the user's prefix except the hub's pages and static files
      const outside = requests.filter(
        (r) => !r.split(' ')[1]?.startsWith(prefix) && !r.split(' ')[1]?.startsWith('/hub/'),
      );
      expect(outside).toEqual([]);
      expect(problems).toEqual([]);

      const stop = await hub.api('users/dave/server', { method: 'DELETE' });
      expect([202, 204]).toContain(stop.status);
      await waitForValue('no process of dave’s server', 120_000, async () =>
        processesUnder(hub.home('dave')).length === 0 ? true : undefined,
      );
    } catch (error) {
      console.error(`--- hub log (tail) ---\n${hub.logs().slice(-20_000)}`);
      throw error;
    } finally {
      await chromium.close();
    }
  }, 600_000);
});
