// needs: kernel
/**
 * What a terminal's clients cannot make the server do: hold unbounded output for a client that
 * does not read, or unbounded input for a shell that does not read; and how a server without
 * terminals (switched off, or no pseudo-terminals here) answers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { startServer, type TestServer } from '../../../testing/server.js';
import { TerminalSocket } from '../../../testing/terminal-client.js';
import { waitFor } from '../../../testing/wait.js';

const MB = 1024 * 1024;

/** A raw client that only counts what it receives (50 MB of `yes` does not fit a test's strings). */
class CountingClient {
  bytes = 0;
  tail = '';
  closed = false;
  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      const [kind, text] = JSON.parse(data.toString()) as [string, string];
      if (kind !== 'stdout') return;
      this.bytes += text.length;
      this.tail = (this.tail + text).slice(-4096);
      this.seen ||= /skipped/.test(text.slice(0, 200));
    });
    ws.on('close', () => {
      this.closed = true;
    });
  }
  /** A skip notice arrived. */
  seen = false;

  static open(s: TestServer, name: string): Promise<CountingClient> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(s.wsUrl(`terminals/websocket/${name}`), {
        headers: { authorization: `token ${s.token}` },
      });
      const client = new CountingClient(ws);
      ws.once('open', () => resolve(client));
      ws.once('error', reject);
    });
  }

  send(...message: unknown[]): void {
    this.ws.send(JSON.stringify(message));
  }

  async waitForTail(pattern: RegExp, timeoutMs = 120_000): Promise<void> {
    await waitFor(() => pattern.test(this.tail), { timeoutMs, intervalMs: 50, what: `${pattern} in the output` }).catch(
      (error: Error) => {
        throw new Error(`${error.message} (${this.bytes} bytes: ${JSON.stringify(this.tail.slice(-200))})`);
      },
    );
  }
}

/** `read()` once it grew past `from` and then stayed the same for `quietMs`. */
async function settledLength(read: () => number, from: number, quietMs: number, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  let last = read();
  let since = Date.now();
  while (last <= from || Date.now() - since < quietMs) {
    if (Date.now() > deadline) throw new Error(`output did not settle (at ${last} bytes)`);
    await new Promise((resolve) => setTimeout(resolve, 50)); // the quiet time is what is measured
    const now = read();
    if (now !== last) [last, since] = [now, Date.now()];
  }
  return last;
}

describe('flow control', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer();
  });
  afterAll(async () => {
    await s?.close();
  });

  async function newTerminal(): Promise<string> {
    const res = await s.fetch('api/terminals', { method: 'POST' });
    return ((await res.json()) as { name: string }).name;
  }
  const terminal = (name: string) => {
    const t = s.app.services.terminals?.manager.get(name);
    if (!t) throw new Error('no terminals');
    return t;
  };
  const FLOOD = 'yes | head -c 30000000; echo end-$((40+2))\r';

  it('a client that reads slowly holds the shell back instead of piling up output, then gets all of it', async () => {
    const name = await newTerminal();
    const client = await CountingClient.open(s, name);
    await client.waitForTail(/[$#] $/);
    client.ws.pause(); // stop reading the socket
    const before = terminal(name).scrollback.end;
    client.send('stdin', FLOOD);
    // The shell is paused: its output stops growing for a second (well inside the 5 s after which
    // a lone stuck client stops holding it back), at a few MB (socket buffers and the high-water
    // mark), not 30. Polled rather than slept: on a loaded machine the flood may start late.
    const printed = await settledLength(() => terminal(name).scrollback.end, before, 1000);
    expect(printed).toBeLessThan(16 * MB);
    client.ws.resume();
    await client.waitForTail(/end-42\r\n/);
    expect(client.bytes).toBeGreaterThanOrEqual(30_000_000);
    expect(client.seen).toBe(false);
    client.ws.close();
    await s.fetch(`api/terminals/${name}`, { method: 'DELETE' });
  });

  it('a client that stops reading does not hold back the others; it catches up from the scrollback and is told what it missed', async () => {
    const name = await newTerminal();
    const reader = await CountingClient.open(s, name);
    const stuck = await CountingClient.open(s, name);
    await reader.waitForTail(/[$#] $/);
    stuck.ws.pause();
    reader.send('stdin', FLOOD);
    await reader.waitForTail(/end-42\r\n/);
    expect(reader.bytes).toBeGreaterThanOrEqual(30_000_000);
    stuck.ws.resume();
    await stuck.waitForTail(/end-42\r\n/);
    expect(stuck.seen).toBe(true);
    expect(stuck.bytes).toBeLessThan(20 * MB);
    // and it is followed live again
    const before = stuck.bytes;
    reader.send('stdin', 'echo again-$((3*3))\r');
    await stuck.waitForTail(/again-9\r\n/);
    expect(stuck.bytes - before).toBeLessThan(1000);
    for (const c of [reader, stuck]) c.ws.close();
    await s.fetch(`api/terminals/${name}`, { method: 'DELETE' });
  });

  it('a lone client that stays stuck stops holding the shell back after a few seconds', async () => {
    const name = await newTerminal();
    const client = await CountingClient.open(s, name);
    await client.waitForTail(/[$#] $/);
    client.ws.pause();
    client.send('stdin', FLOOD);
    // the shell finishes although nobody reads: the output went to the bounded scrollback
    await waitFor(() => /end-42/.test(terminal(name).scrollback.since(terminal(name).scrollback.end - 100)), {
      timeoutMs: 120_000,
      intervalMs: 200,
      what: 'the end of the shell’s output in the scrollback',
    });
    client.ws.resume();
    await client.waitForTail(/end-42\r\n/);
    expect(client.seen).toBe(true);
    client.ws.close();
    await s.fetch(`api/terminals/${name}`, { method: 'DELETE' });
  });

  it('input is read from a client only as fast as the shell takes it', async () => {
    const name = await newTerminal();
    const client = await CountingClient.open(s, name);
    await client.waitForTail(/[$#] $/);
    // raw mode: a full input buffer blocks the writer instead of being discarded
    client.send('stdin', 'stty raw -echo; echo raw-mode-$((1+1)); sleep 600\r');
    await client.waitForTail(/raw-mode-2/);
    const chunk = 'z'.repeat(512 * 1024);
    for (let i = 0; i < 64; i++) client.send('stdin', chunk);
    await new Promise((resolve) => setTimeout(resolve, 2000)); // time for a server that reads on to drain it
    // the server stopped reading this client: the 32 MB wait on the client's side
    expect(client.ws.bufferedAmount).toBeGreaterThan(16 * MB);
    expect((await s.fetch(`api/terminals/${name}`, { method: 'DELETE' })).status).toBe(204);
    client.ws.terminate();
  });

  it('a shell that exits at once leaves no terminal behind', async () => {
    const quick = await startServer({ terminalShell: '/bin/sh -c true' });
    try {
      const res = await quick.fetch('api/terminals', { method: 'POST' });
      expect(res.status).toBe(200);
      const { name } = (await res.json()) as { name: string };
      await waitFor(async () => (await quick.fetch(`api/terminals/${name}`)).status === 404, {
        timeoutMs: 20_000,
        intervalMs: 50,
        what: 'the ended terminal gone',
      });
      expect(await (await quick.fetch('api/terminals')).json()).toEqual([]);
      await expect(
        TerminalSocket.open(quick.wsUrl(`terminals/websocket/${name}`), { authorization: `token ${quick.token}` }),
      ).rejects.toThrow('upgrade refused: 404');
    } finally {
      await quick.close();
    }
  });
});

describe('a server without terminals', () => {
  const routes = ['api/terminals', 'api/terminals/1', 'terminals/1', 'terminals/websocket/1'];

  async function expectNoTerminals(s: TestServer): Promise<void> {
    for (const route of routes) expect((await s.fetch(route)).status, route).toBe(404);
    expect((await s.fetch('api/terminals', { method: 'POST' })).status).toBe(404);
    expect((await s.fetch('api/terminals/1', { method: 'DELETE' })).status).toBe(404);
    await expect(
      TerminalSocket.open(s.wsUrl('terminals/websocket/1'), { authorization: `token ${s.token}` }),
    ).rejects.toThrow('upgrade refused: 404');
    const tree = await (await s.fetch('tree')).text();
    expect(tree).toContain('"terminals":false');
    expect((await s.fetch('api/contents')).status).toBe(200);
  }

  it('--no-terminals: every terminal route is a 404', async () => {
    const s = await startServer({ terminals: false });
    try {
      await expectNoTerminals(s);
      expect(s.logger.lines.filter((l: string) => l.includes('Terminals'))).toEqual([]);
    } finally {
      await s.close();
    }
  });

  it('no pseudo-terminals on this machine: one log line, 404s, the rest works', async () => {
    const { loadNodePty } = await import('@nbserve/core');
    const s = await startServer({ loadPty: () => loadNodePty('@lydell/node-pty-not-for-this-platform') });
    try {
      await expectNoTerminals(s);
      await expectNoTerminals(s);
      const lines = s.logger.lines.filter((l: string) => l.includes('Terminals are off'));
      expect(lines).toEqual([
        expect.stringMatching(
          /^warn Terminals are off: the pseudo-terminal module @lydell\/node-pty could not be loaded \(Cannot find module '@lydell\/node-pty-not-for-this-platform'/,
        ),
      ]);
    } finally {
      await s.close();
    }
  });
});
