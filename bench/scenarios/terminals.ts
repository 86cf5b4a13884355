import { loadNodePty, type PtyProcess } from '@nbserve/core';
import type { BenchContext } from '../lib/context.js';
import { ApiClient } from '../lib/http-client.js';
import { cpuTimeMs } from '../lib/processes.js';
import type { Subject } from '../lib/report.js';
import type { Scenario } from '../lib/scenario.js';
import type { ServerHandle, ServerKind } from '../lib/servers.js';
import { median, percentile } from '../lib/stats.js';
import { TerminalClient } from '../lib/terminal-client.js';

/**
 * Both servers start the same shell (`SHELL=/bin/sh`, a login shell): a login bash would run the
 * user's rc files, and their time is not the server's.
 */
const SHELL_ENV = { SHELL: '/bin/sh' };
const PROMPT = /[$#] $/;
/** The echo of a backspace: back, blank, back. */
const ERASED = new RegExp(`${String.fromCharCode(8)} ${String.fromCharCode(8)}$`);

/** One side of a terminal a benchmark types into: through a server's WebSocket, or node-pty in this process. */
interface Typist {
  /** CPU time the server process has used so far (ms); the benchmark process's own for the floor. */
  cpuMs(): number;
  stdin(text: string): void;
  until(pattern: RegExp, timeoutMs?: number): Promise<void>;
  readonly received: number;
  close(): Promise<void>;
}

async function serverTerminal(server: ServerHandle): Promise<Typist> {
  const api = new ApiClient(server.origin, server.token);
  const { name } = await api.json<{ name: string }>('POST', '/api/terminals', {});
  const client = await TerminalClient.connect(server.origin, server.token, name);
  return {
    cpuMs: () => cpuTimeMs(server.pid),
    stdin: (text) => client.stdin(text),
    until: (pattern, timeoutMs) => client.until(pattern, timeoutMs),
    get received() {
      return client.received;
    },
    async close() {
      client.close();
      const res = await api.request('DELETE', `/api/terminals/${name}`);
      api.close();
      if (res.status !== 204) throw new Error(`DELETE /api/terminals/${name} -> ${res.status}`);
    },
  };
}

/** The floor: the same shell on node-pty in the benchmark's own process, no server, no WebSocket. */
function directTerminal(): Typist {
  const pty: PtyProcess = loadNodePty().spawn({
    file: '/bin/sh',
    args: ['-l'],
    cwd: process.cwd(),
    env: { ...(process.env as Record<string, string>), ...SHELL_ENV, TERM: 'xterm-256color' },
    cols: 80,
    rows: 24,
  });
  let tail = '';
  let received = 0;
  let waiters: Array<() => void> = [];
  pty.onData((data) => {
    received += data.length;
    tail = data.length >= 4096 ? data.slice(-4096) : (tail + data).slice(-4096);
    for (const wake of waiters.splice(0)) wake();
  });
  return {
    cpuMs: () => {
      const usage = process.cpuUsage();
      return (usage.user + usage.system) / 1000;
    },
    stdin: (text) => void pty.write(text),
    async until(pattern, timeoutMs = 60_000) {
      const deadline = performance.now() + timeoutMs;
      while (!pattern.test(tail)) {
        if (performance.now() > deadline) throw new Error(`no ${pattern} in the direct pty's output`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, 1000);
          waiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
    },
    get received() {
      return received;
    },
    async close() {
      waiters = [];
      try {
        process.kill(-pty.pid, 'SIGKILL');
      } catch {
        // gone
      }
      pty.destroy();
    },
  };
}

/**
 * The shell's first prompt. A terminal may show nothing until a key is pressed (jupyter_server's
 * showed nothing for 30 s once, in full run 12), so after 5 s an Enter asks for a fresh prompt, as
 * a person would. The figures are taken after this, so they are not affected.
 */
async function untilPrompt(t: Typist): Promise<void> {
  try {
    await t.until(PROMPT, 5000);
  } catch {
    t.stdin('\r');
    await t.until(PROMPT, 25_000);
  }
}

/** Runs `body` on a terminal of each subject: the floor, then each server. */
async function eachTerminal<T>(ctx: BenchContext, body: (t: Typist, who: Subject) => Promise<T>) {
  const results: Partial<Record<Subject, T>> = {};
  const floor = directTerminal();
  try {
    await untilPrompt(floor);
    results.floor = await body(floor, 'floor');
  } finally {
    await floor.close();
  }
  for (const kind of ctx.serverKinds() as ServerKind[]) {
    results[kind] = await ctx.withServer(
      kind,
      async (server) => {
        const t = await serverTerminal(server);
        try {
          await untilPrompt(t);
          return await body(t, kind);
        } finally {
          await t.close();
        }
      },
      { env: SHELL_ENV },
    );
  }
  return results;
}

/** One key and its echo: a character, then a backspace (its echo `\b \b`), so the line never grows. */
async function keystroke(t: Typist, index: number): Promise<number> {
  const key = String.fromCharCode(97 + (index % 26));
  const t0 = performance.now();
  t.stdin(key);
  await t.until(new RegExp(`${key}$`), 10_000);
  const ms = performance.now() - t0;
  t.stdin('\x7f');
  await t.until(ERASED, 10_000);
  return ms;
}

/** A key sent on the WebSocket until its echo comes back, one at a time. */
export const terminalEchoScenario: Scenario = {
  name: 'terminal-echo',
  group: 'terminals',
  title: 'keystroke echo round trip in a terminal (one key, wait for its echo)',
  budgetMs: 240_000,
  async run(ctx) {
    const keys = ctx.size(500, 100);
    const results = await eachTerminal(ctx, async (t) => {
      for (let i = 0; i < 30; i++) await keystroke(t, i);
      const times: number[] = [];
      for (let i = 0; i < keys; i++) times.push(await keystroke(t, i));
      return times;
    });
    const med: Partial<Record<Subject, number>> = {};
    const p99: Partial<Record<Subject, number>> = {};
    for (const [who, times] of Object.entries(results) as Array<[Subject, number[]]>) {
      med[who] = median(times);
      p99[who] = percentile(times, 99);
      ctx.log(`${who}: median ${(med[who] ?? 0).toFixed(3)} ms, p99 ${(p99[who] ?? 0).toFixed(3)} ms`);
    }
    const notes = [
      'floor: the same shell on node-pty in the benchmark process (no server, no WebSocket)',
      'the echo comes from the terminal line discipline (sh reads whole lines), so this is the server path both ways',
    ];
    ctx.record({
      metric: `keystroke echo round trip, median of ${keys}`,
      unit: 'ms',
      values: med,
      targets: [{ kind: 'ratio', against: 'jupyter_server', op: '<=', bound: 1, text: '≤ jupyter_server' }],
      notes,
    });
    ctx.record({ metric: 'keystroke echo round trip, p99', unit: 'ms', values: p99 });
  },
};

/** `yes | head -c N` in the terminal, read by one client as fast as it can. */
export const terminalThroughputScenario: Scenario = {
  name: 'terminal-throughput',
  group: 'terminals',
  title: '`yes | head -c 100M` in a terminal, to one WebSocket client',
  budgetMs: 600_000,
  async run(ctx) {
    const bytes = ctx.size(100_000_000, 10_000_000);
    const results = await eachTerminal(ctx, async (t, who) => {
      // the marker is computed, so the echo of the command line does not contain it
      const before = t.received;
      const cpu0 = t.cpuMs();
      const t0 = performance.now();
      t.stdin(`yes | head -c ${bytes}; echo END_$((6*7))_END\r`);
      await t.until(/END_42_END\r\n/, 300_000);
      const seconds = (performance.now() - t0) / 1000;
      const cpuPer100MB = ((t.cpuMs() - cpu0) / 1000) * (100e6 / bytes);
      const received = t.received - before;
      ctx.log(
        `${who}: ${(bytes / 1e6 / seconds).toFixed(1)} MB/s (${seconds.toFixed(2)} s, ${received} characters received), ${cpuPer100MB.toFixed(2)} CPU s per 100 MB`,
      );
      if (received < bytes) ctx.fail(who, `received ${received} characters of ${bytes}`);
      return { rate: bytes / 1e6 / seconds, cpuPer100MB };
    });
    const rate: Partial<Record<Subject, number>> = {};
    const cpu: Partial<Record<Subject, number>> = {};
    for (const [who, result] of Object.entries(results) as Array<[Subject, { rate: number; cpuPer100MB: number }]>) {
      rate[who] = result.rate;
      if (who !== 'floor') cpu[who] = result.cpuPer100MB;
    }
    ctx.record({
      metric: 'server CPU time per 100 MB of terminal output',
      unit: 's',
      values: cpu,
      targets: [{ kind: 'ratio', against: 'jupyter_server', op: '<=', bound: 1, text: '≤ jupyter_server' }],
      notes: [
        "the server process's own user + system time (/proc), not the shell's: independent of the machine's load",
      ],
    });
    ctx.record({
      metric: `\`yes | head -c ${bytes / 1e6}M\` to one client`,
      unit: 'MB/s',
      values: rate,
      targets: [{ kind: 'ratio', against: 'jupyter_server', op: '>=', bound: 1, text: '≥ jupyter_server' }],
      notes: [
        "MB of `yes` output per second, start of the command to the end marker's arrival; the terminal turns each \\n into \\r\\n, so 1.5x as many characters travel",
        'floor: node-pty read in the benchmark process (no server, no WebSocket)',
      ],
    });
  },
};
