/**
 * `/api/terminals` and `/terminals/websocket/<name>` over a real socket, on real shells: the REST
 * shapes and status codes of jupyter_server, terminado's messages, several clients, reconnects,
 * and everything a client can get wrong.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { advanceClock, useRealClock, useTestClock } from '../../../testing/clock.js';
import { scrape } from '../../../testing/prometheus.js';
import { startServer, type TestServer } from '../../../testing/server.js';
import { TerminalSocket } from '../../../testing/terminal-client.js';
import { waitFor } from '../../../testing/wait.js';

let s: TestServer;
const auth = () => ({ authorization: `token ${s.token}` });

beforeAll(async () => {
  s = await startServer();
  await fs.mkdir(path.join(s.root, 'work'));
  await fs.writeFile(path.join(s.root, 'work', 'in-work.txt'), 'x');
});

afterAll(async () => {
  await s?.close();
});

async function create(body?: unknown): Promise<{ name: string; last_activity: string }> {
  const res = await s.fetch('api/terminals', {
    method: 'POST',
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as { name: string; last_activity: string };
}

async function remove(name: string): Promise<void> {
  expect((await s.fetch(`api/terminals/${name}`, { method: 'DELETE' })).status).toBe(204);
}

const connect = (name: string) => TerminalSocket.open(s.wsUrl(`terminals/websocket/${name}`), auth());

describe('the REST API', () => {
  it('lists, creates (200, names 1, 2, …), gets and deletes (204) as jupyter_server', async () => {
    expect(await (await s.fetch('api/terminals')).json()).toEqual([]);
    const one = await create();
    expect(one).toEqual({ name: '1', last_activity: expect.stringMatching(/^\d{4}-\d\d-\d\dT[\d:.]+Z$/) });
    const two = await create({});
    expect(two.name).toBe('2');
    const named = await create({ name: 'build_x' });
    expect(named.name).toBe('build_x');
    // a name in use is that terminal (one shell, not two)
    expect((await create({ name: 'build_x' })).name).toBe('build_x');
    const listed = (await (await s.fetch('api/terminals')).json()) as Array<{ name: string }>;
    expect(listed.map((t) => t.name).sort()).toEqual(['1', '2', 'build_x']);
    expect(await (await s.fetch('api/terminals/1')).json()).toEqual({ name: '1', last_activity: expect.any(String) });
    for (const name of ['1', '2', 'build_x']) await remove(name);
    expect(await (await s.fetch('api/terminals')).json()).toEqual([]);
  });

  it("answers unknown names with 404 and jupyter_server's message", async () => {
    for (const name of ['nope', '99', 'a-b', '%E2%82%AC%20x']) {
      const get = await s.fetch(`api/terminals/${name}`);
      expect(get.status, name).toBe(404);
      expect(await get.json()).toEqual({ message: expect.stringMatching(/^Terminal not found: /), reason: null });
      expect((await s.fetch(`api/terminals/${name}`, { method: 'DELETE' })).status, name).toBe(404);
    }
    expect(await (await s.fetch('api/terminals/nope')).json()).toEqual({
      message: 'Terminal not found: nope',
      reason: null,
    });
  });

  it('refuses bad bodies with 400 and starts nothing', async () => {
    const bad: Array<[string, string]> = [
      ['[]', 'The request body must be a JSON object'],
      ['"x"', 'The request body must be a JSON object'],
      ['{"name": 5}', 'name must be a string'],
      ['{"name": "a/b"}', 'name must be letters'],
      ['{"name": "../x"}', 'name must be letters'],
      ['{"cwd": 7}', 'cwd must be a string'],
      ['{"cwd": ".."}', 'inside the server root'],
      ['{"cwd": "/etc"}', 'inside the server root'],
      ['{"cwd": "work/in-work.txt"}', 'not a directory'],
      ['{not json', 'Invalid JSON'],
    ];
    for (const [body, message] of bad) {
      const res = await s.fetch('api/terminals', { method: 'POST', body });
      expect(res.status, body).toBe(400);
      const error = (await res.json()) as { message: string; reason: string | null };
      expect(error.message, body).toContain(message);
      expect(error.message).not.toContain(s.root);
    }
    expect(await (await s.fetch('api/terminals')).json()).toEqual([]);
  });

  it('starts in a directory inside the root the client names', async () => {
    const t = await create({ cwd: 'work' });
    const ws = await connect(t.name);
    ws.stdin('pwd; ls\r');
    const out = await ws.waitForOutput(/in-work\.txt/);
    expect(out).toContain(path.join(s.root, 'work'));
    ws.close();
    await remove(t.name);
  });

  it('terminal input and output count as server activity in /api/status', async () => {
    const t = await create();
    const ws = await connect(t.name);
    await ws.waitForOutput(/[$#] $/);
    useTestClock();
    onTestFinished(useRealClock);
    const before = ((await (await s.fetch('api/status')).json()) as { last_activity: string }).last_activity;
    advanceClock(1000);
    ws.stdin('echo active\r');
    await ws.waitForOutput(/active\r\n/);
    const after = ((await (await s.fetch('api/status')).json()) as { last_activity: string }).last_activity;
    expect(after > before).toBe(true);
    const model = (await (await s.fetch(`api/terminals/${t.name}`)).json()) as { last_activity: string };
    expect(model.last_activity > before).toBe(true);
    ws.close();
    await remove(t.name);
  });
});

describe('/metrics', () => {
  it('counts running terminals and their open WebSockets', async () => {
    const before = await scrape(s.fetch);
    const { name } = await create();
    const socket = await connect(name);
    await socket.waitFor((m) => m[0] === 'setup');
    const during = await scrape(s.fetch);
    expect(during.value('terminal_currently_running_total')).toBe(before.value('terminal_currently_running_total') + 1);
    expect(during.value('nbserve_open_websockets', { kind: 'terminal' })).toBe(
      before.value('nbserve_open_websockets', { kind: 'terminal' }) + 1,
    );
    socket.close();
    await remove(name);
    expect((await scrape(s.fetch)).value('terminal_currently_running_total')).toBe(
      before.value('terminal_currently_running_total'),
    );
  });
});

describe('the WebSocket', () => {
  it('sends setup, echoes input, shares output between clients, and replays the screen to a new one', async () => {
    const t = await create();
    const a = await connect(t.name);
    const b = await connect(t.name);
    for (const ws of [a, b]) expect(ws.messages[0]).toEqual(['setup', {}]);
    a.stdin('echo $((6*7))\r');
    for (const ws of [a, b]) await ws.waitForOutput(/\b42\r\n/);
    b.close();
    const c = await connect(t.name);
    expect(c.messages[0]).toEqual(['setup', {}]);
    // the recent screen, in one stdout message after setup
    await c.waitForOutput(/\b42\r\n/);
    expect(c.messages[1]?.[0]).toBe('stdout');
    a.close();
    c.close();
    await remove(t.name);
  });

  it('takes the smallest size any client asked for', async () => {
    const t = await create();
    const a = await connect(t.name);
    const b = await connect(t.name);
    // Each client's size arrives on its own socket: ask the shell until both were taken in.
    const sizeBecomes = (rows: number, cols: number) =>
      waitFor(
        async () => {
          const from = a.output.length;
          a.stdin('stty size\r');
          const answer = await a.waitForOutput(/\d+ \d+\r\n/, { from });
          return answer.includes(`${rows} ${cols}\r\n`);
        },
        { intervalMs: 100, what: `a size of ${rows} x ${cols}` },
      );
    a.send('set_size', 30, 100, 600, 900);
    b.send('set_size', 40, 90);
    await sizeBecomes(30, 90);
    b.close();
    await b.waitClosed();
    await sizeBecomes(30, 100);
    a.close();
    await remove(t.name);
  });

  it('ignores frames it does not understand, says so once on the log, and keeps working', async () => {
    const t = await create();
    const ws = await connect(t.name);
    const logged = s.logger.lines.length;
    ws.ws.send('not json');
    ws.ws.send('{"stdin": "x"}');
    ws.ws.send(Buffer.from('["stdin", "echo binary\\r"]'), { binary: true });
    ws.send('stdin');
    ws.send('stdin', 5);
    ws.send('unknown_kind', 1, 2);
    ws.send();
    ws.send('set_size', 0, 80);
    ws.send('set_size', 100_000, 80);
    ws.send('set_size', 24, 1e9);
    ws.send('set_size', 24.5, 80);
    ws.send('set_size', '24', '80');
    ws.send('set_size', -1, -1);
    const from = ws.output.length;
    ws.stdin('stty size; echo still-$((1+1))\r');
    const out = await ws.waitForOutput(/still-2\r\n/, { from });
    expect(out).toContain('24 80');
    expect(out).not.toContain('binary');
    const lines = s.logger.lines.slice(logged).filter((l: string) => l.includes(`Terminal ${t.name}: ignoring`));
    expect(lines).toEqual([`warn Terminal ${t.name}: ignoring not JSON (and any more from this client)`]);
    ws.close();
    await remove(t.name);
  });

  it('refuses one oversized stdin message with a notice and keeps the connection', async () => {
    const t = await create();
    const ws = await connect(t.name);
    ws.stdin('x'.repeat(1024 * 1024 + 1));
    await ws.waitForOutput(/input of 1048577 characters refused/);
    const from = ws.output.length;
    ws.stdin('echo ok-$((2+3))\r');
    await ws.waitForOutput(/ok-5\r\n/, { from });
    ws.close();
    await remove(t.name);
  });

  it('unknown terminals fail the upgrade with 404; credentials and Origin as for kernel channels', async () => {
    await expect(connect('nope')).rejects.toThrow('upgrade refused: 404');
    await expect(connect('a-b')).rejects.toThrow('upgrade refused: 404');
    const t = await create();
    const url = s.wsUrl(`terminals/websocket/${t.name}`);
    await expect(TerminalSocket.open(url)).rejects.toThrow('upgrade refused: 403');
    await expect(TerminalSocket.open(url, { ...auth(), origin: 'http://evil.example' })).rejects.toThrow(
      'upgrade refused: 403',
    );
    const sameOrigin = await TerminalSocket.open(`${url}?token=${s.token}`, { origin: s.origin });
    expect(sameOrigin.messages[0] ?? (await sameOrigin.waitFor((m) => m[0] === 'setup'))).toEqual(['setup', {}]);
    sameOrigin.close();
    // a plain GET is not an upgrade
    expect((await s.fetch(`terminals/websocket/${t.name}`)).status).toBe(400);
    await remove(t.name);
  });

  it('tells clients ["disconnect", 1] and closes when the shell exits or the terminal is deleted', async () => {
    const t = await create();
    const ws = await connect(t.name);
    ws.stdin('exit\r');
    await ws.waitFor((m) => m[0] === 'disconnect');
    expect(ws.messages.at(-1)).toEqual(['disconnect', 1]);
    expect((await ws.waitClosed()).code).toBe(1000);
    expect((await s.fetch(`api/terminals/${t.name}`)).status).toBe(404);
    const u = await create();
    const other = await connect(u.name);
    await remove(u.name);
    await other.waitFor((m) => m[0] === 'disconnect');
    await other.waitClosed();
  });
});
