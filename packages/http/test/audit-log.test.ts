// needs: kernel
import { createHash, randomUUID } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { KernelManager, SessionManager } from '@jupyterlab/services';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CookieJar, setCookies } from '../../../testing/cookie-jar.js';
import { startHubDouble } from '../../../testing/hub-double.js';
import { v4Notebook } from '../../../testing/notebooks.js';
import { createTestApp, startServer, type TestServer } from '../../../testing/server.js';
import { makeTempDir, removeDir } from '../../../testing/temp.js';
import { TerminalSocket } from '../../../testing/terminal-client.js';
import { TOKEN } from '../../../testing/token.js';
import { waitFor } from '../../../testing/wait.js';
import { open } from '../../../testing/ws-recorder.js';
import { hashPassword, storePasswordHash } from '../src/auth/password.js';

type Line = Record<string, unknown> & { time: string; event: string };

let logDir: string;
beforeAll(async () => {
  logDir = await makeTempDir('nbserve-audit-');
});
afterAll(() => removeDir(logDir));

/** Every line of `file` (and its rotated files, oldest first), parsed: a torn line fails here. */
async function readLog(file: string): Promise<{ text: string; lines: Line[] }> {
  const names = (await fs.readdir(path.dirname(file))).filter((n) => n.startsWith(`${path.basename(file)}.`));
  const order = names.map((n) => Number(n.slice(path.basename(file).length + 1))).sort((a, b) => b - a);
  let text = '';
  for (const n of order) text += await fs.readFile(`${file}.${n}`, 'utf8');
  text += await fs.readFile(file, 'utf8').catch(() => '');
  const lines =
    text === ''
      ? []
      : text
          .replace(/\n$/, '')
          .split('\n')
          .map((line) => JSON.parse(line) as Line);
  return { text, lines };
}

/** Runs `code` in a session's kernel through JupyterLab's own client; returns the reply status. */
async function runInSession(s: TestServer, notebook: string, kernel: string, code: string[], restart = false) {
  const serverSettings = s.jupyterSettings();
  const kernels = new KernelManager({ serverSettings });
  const sessions = new SessionManager({ serverSettings, kernelManager: kernels });
  try {
    const session = await sessions.startNew({
      path: notebook,
      type: 'notebook',
      name: notebook,
      kernel: { name: kernel },
    });
    const connection = session.kernel;
    if (!connection) throw new Error('the session has no kernel');
    for (const source of code)
      expect((await connection.requestExecute({ code: source }).done).content.status).toBe('ok');
    if (restart) await connection.restart();
    const ids = { kernelId: connection.id, sessionId: session.id, clientSession: connection.clientId };
    await session.shutdown();
    return ids;
  } finally {
    sessions.dispose();
    kernels.dispose();
  }
}

describe('the audit log (--audit-log)', () => {
  let s: TestServer | undefined;
  afterEach(async () => {
    await s?.close();
    s = undefined;
  });

  it('records one line per action, with the user, the client and the paths, and never a secret', async () => {
    const file = path.join(logDir, 'session.log');
    s = await startServer({ auditLog: file });
    const server = s;
    await fs.writeFile(path.join(server.root, 'Demo.ipynb'), JSON.stringify(v4Notebook([])));
    const password = 'audit-pass-4f9e';
    await storePasswordHash(server.app.services.options.configDir, await hashPassword(password));

    // Logins: the token in a page's URL, a wrong one, the form with the password, a wrong password.
    const byUrl = await server.fetch(`tree?token=${TOKEN}`, { auth: false, headers: { accept: 'text/html' } });
    const loginCookie = [...setCookies(byUrl)].find(([name]) => name.startsWith('username-'))?.[1].value ?? '';
    expect(loginCookie).not.toBe('');
    expect(
      (await server.fetch('tree?token=wrong-token-123', { auth: false, headers: { accept: 'text/html' } })).status,
    ).toBe(302);
    const page = await server.fetch('login', { auth: false });
    const xsrf = /name="_xsrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? '';
    const form = (pw: string) =>
      server.fetch('login?next=%2Ftree', {
        auth: false,
        method: 'POST',
        headers: {
          cookie: `_xsrf=${setCookies(page).get('_xsrf')?.value}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams({ password: pw, _xsrf: xsrf }).toString(),
      });
    expect((await form(password)).status).toBe(302);
    expect((await form('not-the-password')).status).toBe(200);

    // Contents: a save, an upload, a copy, a rename, a checkpoint restored, a delete.
    const put = (p: string, json: unknown) => server.fetch(`api/contents/${p}`, { method: 'PUT', json });
    expect((await put('notes.txt', { type: 'file', format: 'text', content: 'hello' })).status).toBe(201);
    const upload = Buffer.from('binary\u0000data').toString('base64');
    expect((await put('up.bin', { type: 'file', format: 'base64', content: upload })).status).toBe(201);
    expect((await server.fetch('api/contents', { method: 'POST', json: { copy_from: 'notes.txt' } })).status).toBe(201);
    expect(
      (await server.fetch('api/contents/notes.txt', { method: 'PATCH', json: { path: 'renamed.txt' } })).status,
    ).toBe(200);
    const checkpoint = (await (
      await server.fetch('api/contents/renamed.txt/checkpoints', { method: 'POST' })
    ).json()) as { id: string };
    expect(
      (await server.fetch(`api/contents/renamed.txt/checkpoints/${checkpoint.id}`, { method: 'POST' })).status,
    ).toBe(204);
    expect((await server.fetch('api/contents/up.bin', { method: 'DELETE' })).status).toBe(204);

    // A real ipykernel in a notebook's session: code run, a restart, the shutdown.
    const python = await runInSession(server, 'Demo.ipynb', 'python3', ['audited = 6 * 7'], true);
    // The built-in JavaScript kernel started alone, then shut down.
    const js = (await (await server.fetch('api/kernels', { method: 'POST', json: { name: 'javascript' } })).json()) as {
      id: string;
    };
    expect((await server.fetch(`api/kernels/${js.id}`, { method: 'DELETE' })).status).toBe(204);

    // A terminal started, used, stopped.
    const terminal = (await (await server.fetch('api/terminals', { method: 'POST', json: {} })).json()) as {
      name: string;
    };
    const socket = await TerminalSocket.open(server.wsUrl(`terminals/websocket/${terminal.name}?token=${TOKEN}`));
    socket.ws.close();
    // A terminal whose shell exits by itself (`exit` typed in it) is stopped too (started while the first runs: names are reused).
    const exiting = (await (await server.fetch('api/terminals', { method: 'POST', json: {} })).json()) as {
      name: string;
    };
    const exitingSocket = await TerminalSocket.open(server.wsUrl(`terminals/websocket/${exiting.name}?token=${TOKEN}`));
    exitingSocket.stdin('exit\r');
    await exitingSocket.waitClosed();
    expect((await server.fetch(`api/terminals/${terminal.name}`, { method: 'DELETE' })).status).toBe(204);

    await waitFor(async () => (await readLog(file)).lines.some((l) => l.event === 'kernel.execute'));
    const { text, lines } = await readLog(file);
    const events = lines.map((line) => line.event);
    expect(events).toEqual(
      expect.arrayContaining([
        'login',
        'login.failed',
        'contents.save',
        'contents.upload',
        'contents.copy',
        'contents.rename',
        'checkpoint.restore',
        'contents.delete',
        'kernel.start',
        'kernel.execute',
        'kernel.restart',
        'kernel.shutdown',
        'terminal.start',
        'terminal.stop',
      ]),
    );
    for (const line of lines) {
      expect(Number.isNaN(Date.parse(line.time)), JSON.stringify(line)).toBe(false);
      // Who failed to log in is not known.
      expect(line.user).toBe(line.event === 'login.failed' ? null : server.app.services.audit?.localUser);
    }
    const find = (event: string, match: Record<string, unknown> = {}) =>
      lines.filter((l) => l.event === event && Object.entries(match).every(([k, v]) => l[k] === v));
    expect(find('login', { method: 'url_token' })).toHaveLength(1);
    expect(find('login.failed', { method: 'url_token' })).toHaveLength(1);
    expect(find('login', { method: 'form' })).toHaveLength(1);
    expect(find('login.failed', { method: 'form' })).toHaveLength(1);
    expect(find('contents.save', { path: 'notes.txt', size: 5 })[0]).toMatchObject({ client: '127.0.0.1' });
    expect(find('contents.upload', { path: 'up.bin', size: 11 })).toHaveLength(1);
    expect(find('contents.copy', { path: 'notes-Copy1.txt', copy_from: 'notes.txt' })).toHaveLength(1);
    expect(find('contents.rename', { path: 'renamed.txt', old_path: 'notes.txt' })).toHaveLength(1);
    expect(find('checkpoint.restore', { path: 'renamed.txt', checkpoint_id: checkpoint.id })).toHaveLength(1);
    expect(find('contents.delete', { path: 'up.bin' })).toHaveLength(1);
    expect(
      find('kernel.start', { kernel_id: python.kernelId, kernel_name: 'python3', path: 'Demo.ipynb' }),
    ).toHaveLength(1);
    expect(find('kernel.execute', { kernel_id: python.kernelId, code: 'audited = 6 * 7' })[0]).toMatchObject({
      path: 'Demo.ipynb',
      session: python.clientSession,
      client: '127.0.0.1',
      msg_id: expect.any(String),
    });
    expect(find('kernel.restart', { kernel_id: python.kernelId })).toHaveLength(1);
    expect(find('kernel.shutdown', { kernel_id: python.kernelId })).toHaveLength(1);
    // Kernel lifecycle lines carry the request that caused them, also when a session started the kernel.
    expect(find('kernel.start', { kernel_id: js.id, kernel_name: 'javascript' })).toEqual([
      expect.objectContaining({ client: '127.0.0.1' }),
    ]);
    expect(find('kernel.start', { kernel_id: python.kernelId })[0]).toMatchObject({ client: '127.0.0.1' });
    expect(find('kernel.shutdown', { kernel_id: python.kernelId })[0]).toMatchObject({ client: '127.0.0.1' });
    expect(find('kernel.shutdown', { kernel_id: js.id })).toHaveLength(1);
    expect(find('terminal.start', { terminal: terminal.name })).toHaveLength(1);
    expect(find('terminal.stop', { terminal: terminal.name })).toHaveLength(1);
    expect(find('terminal.stop', { terminal: exiting.name })).toHaveLength(1);
    // No secret anywhere: the token, the password (right or wrong), the login cookie, the XSRF value.
    for (const secret of [TOKEN, password, 'wrong-token-123', 'not-the-password', loginCookie, xsrf]) {
      expect(text.includes(secret), `the log holds ${secret.slice(0, 8)}…`).toBe(false);
    }
    expect(text).not.toMatch(/cookie|authorization|_xsrf/i);
  });

  it('records what the contents events announce, creates and chunks included, and nothing for a refused change or a read', async () => {
    const file = path.join(logDir, 'contents.log');
    s = await startServer({ auditLog: file });
    const server = s;
    await fs.mkdir(path.join(server.root, 'dir'));
    expect((await server.fetch('api/contents/dir', { method: 'POST', json: { type: 'notebook' } })).status).toBe(201);
    expect((await server.fetch('api/contents/dir', { method: 'PUT' })).status).toBe(201);
    const chunk = (n: number, content: string) =>
      server.fetch('api/contents/dir/big.bin', {
        method: 'PUT',
        json: { type: 'file', format: 'base64', chunk: n, content: Buffer.from(content).toString('base64') },
      });
    expect((await chunk(1, 'abc')).status).toBe(201);
    expect((await chunk(-1, 'de')).status).toBe(200);
    expect((await server.fetch('api/contents/dir/big.bin')).status).toBe(200);
    expect((await server.fetch('api/contents/dir/missing.txt', { method: 'DELETE' })).status).toBe(404);
    expect((await server.fetch('api/contents/dir/x.txt', { method: 'PATCH', json: { path: '../../x' } })).status).toBe(
      400,
    );
    await waitFor(async () => (await readLog(file)).lines.filter((l) => l.event.startsWith('contents.')).length >= 4);
    const lines = (await readLog(file)).lines.filter((l) => l.event.startsWith('contents.'));
    const strip = ({ time: _time, user: _user, ...rest }: Line) => rest;
    expect(lines.map(strip)).toEqual([
      { event: 'contents.create', client: '127.0.0.1', path: 'dir/Untitled.ipynb', type: 'notebook' },
      { event: 'contents.create', client: '127.0.0.1', path: 'dir/untitled', type: 'file' },
      { event: 'contents.upload', client: '127.0.0.1', path: 'dir/big.bin', type: 'file', size: 3, chunk: 1 },
      { event: 'contents.upload', client: '127.0.0.1', path: 'dir/big.bin', type: 'file', size: 5, chunk: -1 },
    ]);
  });

  it('--audit-log-code hash records the SHA-256 of the code instead of its text', async () => {
    const file = path.join(logDir, 'hashed.log');
    s = await startServer({ auditLog: file, auditLogCode: 'hash' });
    const code = 'const hidden = 6 * 7; hidden';
    const { kernelId } = await runInSession(s, 'x.ipynb', 'javascript', [code]);
    await waitFor(async () =>
      (await readLog(file)).lines.some((l) => l.event === 'kernel.execute' && l.kernel_id === kernelId),
    );
    const { text, lines } = await readLog(file);
    const line = lines.find((l) => l.event === 'kernel.execute' && l.kernel_id === kernelId);
    expect(line).toMatchObject({ code_sha256: createHash('sha256').update(code).digest('hex'), path: 'x.ipynb' });
    expect(line).not.toHaveProperty('code');
    expect(text).not.toContain('hidden');
  });

  it('rotates under 20 concurrent clients without losing or tearing a line', async () => {
    const file = path.join(logDir, 'rotating', 'audit.log');
    await fs.mkdir(path.dirname(file));
    const maxBytes = 2048;
    s = await startServer({ auditLog: file, auditLogMaxBytes: maxBytes, auditLogBackups: 1000 });
    const server = s;
    const clients = 20;
    const perClient = 15;
    await Promise.all(
      Array.from({ length: clients }, async (_, client) => {
        for (let i = 0; i < perClient; i++) {
          const res = await server.fetch(`api/contents/c${client}-${i}.txt`, {
            method: 'PUT',
            json: { type: 'file', format: 'text', content: 'x'.repeat(client + i) },
          });
          expect(res.status).toBe(201);
        }
      }),
    );
    const { lines } = await readLog(file);
    const saves = lines.filter((l) => l.event === 'contents.save');
    expect(saves).toHaveLength(clients * perClient);
    expect(new Set(saves.map((l) => l.path)).size).toBe(clients * perClient);
    for (let client = 0; client < clients; client++) {
      for (let i = 0; i < perClient; i++) {
        expect(saves.find((l) => l.path === `c${client}-${i}.txt`)?.size).toBe(client + i);
      }
    }
    const files = await fs.readdir(path.dirname(file));
    expect(files.length).toBeGreaterThan(10);
    for (const name of files)
      expect((await fs.stat(path.join(path.dirname(file), name))).size).toBeLessThanOrEqual(maxBytes);
  });

  it('a full disk is logged once and the server goes on', async () => {
    s = await startServer({ auditLog: '/dev/full' });
    for (let i = 0; i < 5; i++) {
      const res = await s.fetch(`api/contents/f${i}.txt`, {
        method: 'PUT',
        json: { type: 'file', format: 'text', content: 'x' },
      });
      expect(res.status).toBe(201);
    }
    expect((await s.fetch('api/contents')).status).toBe(200);
    expect(s.logger.lines.filter((line) => line.includes('Audit log'))).toEqual([
      'error Audit log /dev/full: lines are being lost (ENOSPC)',
    ]);
  });

  it('an unwritable path stops the start with a clear error', async () => {
    const notADir = path.join(logDir, 'a-file');
    await fs.writeFile(notADir, '');
    await expect(createTestApp({ auditLog: path.join(notADir, 'audit.log') })).rejects.toThrow(
      `Cannot open the audit log ${path.join(notADir, 'audit.log')} for writing (ENOTDIR)`,
    );
  });

  it('under JupyterHub, user is the hub user of each request: the owner, an admin, a refused one', async () => {
    const hub = await startHubDouble();
    try {
      const file = path.join(logDir, 'hub.log');
      const prefix = '/user/alice/';
      s = await startServer({ baseUrl: prefix, hub: hub.config('alice', prefix), auditLog: file });
      const server = s;
      hub.tokens.set('alice-oauth', { name: 'alice', scopes: ['access:servers!server=alice/'] });
      hub.tokens.set('admin-api', { name: 'root', scopes: ['access:servers'] });
      hub.tokens.set('mallory-oauth', { name: 'mallory', scopes: ['read:users:name!user=mallory'] });
      const oauth = async (token: string) => {
        const jar = new CookieJar();
        const start = await server.fetch('tree', { auth: false });
        jar.store(start, server.path(''));
        const state = new URL(start.headers.get('location') as string, 'http://hub.invalid').searchParams.get('state');
        const code = `code-${token}`;
        hub.codes.set(code, token);
        const query = new URLSearchParams({ code, state: state ?? '' });
        return server.fetch(`oauth_callback?${query}`, {
          auth: false,
          headers: { cookie: jar.header(server.path('')) },
        });
      };
      expect((await oauth('alice-oauth')).status).toBe(302);
      expect((await oauth('mallory-oauth')).status).toBe(403);
      const save = await server.fetch('api/contents/by-admin.txt', {
        auth: false,
        method: 'PUT',
        headers: { authorization: 'token admin-api' },
        json: { type: 'file', format: 'text', content: 'x' },
      });
      expect(save.status).toBe(201);
      const { text, lines } = await readLog(file);
      expect(lines.map(({ event, user, method }) => ({ event, user, ...(method ? { method } : {}) }))).toEqual([
        { event: 'login', user: 'alice', method: 'jupyterhub' },
        { event: 'login.failed', user: null, method: 'jupyterhub' },
        { event: 'contents.save', user: 'root' },
      ]);
      for (const secret of ['alice-oauth', 'admin-api', 'mallory-oauth', 'code-']) expect(text).not.toContain(secret);
    } finally {
      await hub.close();
    }
  });

  it("an old client's execute_request on the per-channel shell socket is recorded too, without its cookie", async () => {
    const file = path.join(logDir, 'legacy.log');
    s = await startServer({ auditLog: file, kernelSpecDirs: ['/usr/share/jupyter/kernels'] });
    const server = s;
    const login = await server.fetch(`/api/status?token=${TOKEN}`, { auth: false });
    const cookie = (login.headers.getSetCookie().find((c) => c.startsWith('username-')) ?? '').split(';')[0] as string;
    const { kernel_id } = (await (await server.fetch('/kernels', { method: 'POST' })).json()) as { kernel_id: string };
    const session = randomUUID();
    const shell = await open(`ws://127.0.0.1:${server.port}/kernels/${kernel_id}/shell`, { Origin: server.origin });
    shell.ws.send(`${session}:${cookie}`);
    const request = {
      header: { msg_id: randomUUID(), username: 'old', session, msg_type: 'execute_request' },
      parent_header: {},
      metadata: {},
      content: {
        code: 'legacy_value = 1',
        silent: false,
        user_variables: [],
        user_expressions: {},
        allow_stdin: false,
      },
    };
    await new Promise((resolve) => setTimeout(resolve, 300)); // the credentials are checked first
    shell.ws.send(JSON.stringify(request));
    await shell.waitFor((f) => f.header.msg_type === 'execute_reply', 60_000);
    shell.ws.close();
    const { text, lines } = await readLog(file);
    expect(lines.find((l) => l.event === 'kernel.execute')).toMatchObject({
      kernel_id,
      session,
      msg_id: request.header.msg_id,
      code: 'legacy_value = 1',
      client: '127.0.0.1',
    });
    expect(text).not.toContain(cookie.split('=')[1] as string);
  }, 90_000);
});
