import { readFileSync } from 'node:fs';
import { mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir } from '../../../testing/temp.js';
import { within } from '../../../testing/wait.js';
import {
  isNbserveError,
  isProcessAlive,
  loadNodePty,
  type PtySpawner,
  Scrollback,
  sessionMembers,
  type Terminal,
  TerminalManager,
  type TerminalManagerOptions,
} from '../src/index.js';

let base: string;
let root: string;
let pty: PtySpawner;
const managers: TerminalManager[] = [];

beforeAll(async () => {
  base = await makeTempDir('nbserve-terminals-');
  root = path.join(base, 'root');
  await mkdir(path.join(root, 'sub dir'), { recursive: true });
  await writeFile(path.join(root, 'marker.txt'), 'x');
  await mkdir(path.join(base, 'outside'));
  await symlink(path.join(base, 'outside'), path.join(root, 'escape'));
  pty = loadNodePty();
});

afterEach(async () => {
  await Promise.all(managers.splice(0).map((m) => m.close()));
});

afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

function manager(options: Partial<TerminalManagerOptions> = {}): TerminalManager {
  const m = new TerminalManager({ pty, rootDir: root, shell: ['/bin/sh'], killGraceMs: 500, ...options });
  managers.push(m);
  return m;
}

/** Collects a terminal's output until `pattern` shows up in it. */
async function waitForOutput(terminal: Terminal, pattern: RegExp, timeoutMs = 20_000): Promise<string> {
  let seen = terminal.scrollback.text();
  if (pattern.test(seen)) return seen;
  let off = () => {};
  const shown = new Promise<string>((resolve) => {
    off = terminal.onOutput(({ text }) => {
      seen += text;
      if (pattern.test(seen)) resolve(seen);
    });
  });
  try {
    return await within(shown, timeoutMs, `${pattern} in the output`);
  } catch {
    throw new Error(`no ${pattern} in ${JSON.stringify(seen.slice(-500))}`);
  } finally {
    off();
  }
}

async function errorOf(promise: Promise<unknown>) {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isNbserveError(error)) throw new Error(`expected an NbserveError, got ${String(error)}`);
  return error;
}

describe('the node-pty spawner', () => {
  it('loads on this Node and runs a shell on a terminal of the requested size', async () => {
    expect(pty.name).toBe('@lydell/node-pty');
    const terminals = manager();
    const t = await terminals.create();
    t.write('echo $((6*7)); stty size; echo "[$TERM]"; pwd\r');
    const out = await waitForOutput(t, /\[xterm-256color\][\s\S]*\n.*\//);
    expect(out).toContain('42');
    expect(out).toMatch(/24 80/);
    expect(out).toContain(root);
    t.resize(40, 120);
    t.write('stty size\r');
    await waitForOutput(t, /40 120/);
  });

  it('a module that cannot load throws (the server then turns terminals off)', () => {
    expect(() => loadNodePty('@lydell/node-pty-that-is-not-installed')).toThrow(/Cannot find module/);
  });
});

describe('TerminalManager', () => {
  it('names terminals 1, 2, … (the lowest free number), lists and gets them', async () => {
    const terminals = manager();
    const one = await terminals.create();
    const two = await terminals.create();
    expect([one.name, two.name]).toEqual(['1', '2']);
    expect(terminals.list()).toEqual([
      { name: '1', last_activity: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/) },
      { name: '2', last_activity: expect.any(String) },
    ]);
    await terminals.terminate('1');
    expect((await terminals.create()).name).toBe('1');
    const named = await terminals.create({ name: 'build_2' });
    expect(named.name).toBe('build_2');
    // an existing name is that terminal, not a second shell
    expect(await terminals.create({ name: 'build_2' })).toBe(named);
    expect((await errorOf(terminals.create({ name: 'a/b' }))).kind).toBe('bad-request');
    expect((await errorOf(terminals.create({ name: '' }))).kind).toBe('bad-request');
    expect(() => terminals.get('nope')).toThrow('Terminal not found: nope');
    await expect(terminals.terminate('nope')).rejects.toThrow('Terminal not found: nope');
  });

  it('starts in a directory inside the root; outside, through a symlink or not a directory is refused', async () => {
    const terminals = manager();
    const inSub = await terminals.create({ cwd: 'sub dir' });
    expect(inSub.cwd).toBe(path.join(root, 'sub dir'));
    expect((await terminals.create({ cwd: path.join(root, 'sub dir') })).cwd).toBe(path.join(root, 'sub dir'));
    inSub.write('pwd\r');
    await waitForOutput(inSub, /sub dir\r?\n/);
    for (const cwd of [
      '..',
      '../outside',
      '/',
      '/etc',
      'escape',
      path.join(base, 'outside'),
      'sub dir/../../outside',
    ]) {
      if (cwd === '/') continue; // the API root, not the filesystem root
      const error = await errorOf(terminals.create({ cwd }));
      expect(error.kind, cwd).toBe('bad-request');
      expect(error.message).not.toContain(root);
    }
    expect((await errorOf(terminals.create({ cwd: 'marker.txt' }))).message).toMatch(/not a directory/);
    // a directory that does not exist falls back to the root, as in jupyter_server
    expect((await terminals.create({ cwd: 'no-such-dir' })).cwd).toBe(root);
    expect((await terminals.create({ cwd: '/' })).cwd).toBe(root);
  });

  it('gives the shell a login environment with TERM=xterm-256color and the root', async () => {
    const terminals = manager({ shell: [], env: { ...process.env, SHELL: '/bin/sh', COLUMNS: '7' } });
    const t = await terminals.create();
    t.write('echo "[$0|$TERM|$JUPYTER_SERVER_ROOT|$COLUMNS]"\r');
    // `-sh`: a login shell's $0 starts with a dash
    const out = await waitForOutput(t, /\[(-?)\/?[\w/]*sh\|xterm-256color\|[^|]+\|[^\]]*\]/);
    expect(out).toMatch(/\[(-sh|\/bin\/sh)\|xterm-256color\|/);
    expect(out).toContain(`|${root}|]`);
  });

  it('terminate ends the shell, its process group and its jobs in other groups', async () => {
    const terminals = manager();
    const t = await terminals.create();
    // an interactive sh with job control puts `sleep &` in a process group of its own
    t.write('set -m; sleep 1000 & trap "" HUP; echo started-$!\r');
    const out = await waitForOutput(t, /started-\d+/);
    const job = Number(/started-(\d+)/.exec(out)?.[1]);
    expect(sessionMembers(t.pid)).toEqual(expect.arrayContaining([t.pid, job]));
    const jobGroup = Number(readFileSync(`/proc/${job}/stat`, 'utf8').split(') ')[1]?.split(' ')[2]);
    expect(jobGroup).not.toBe(t.pid);
    const removed: string[] = [];
    terminals.onRemoved((name) => removed.push(name));
    await terminals.terminate(t.name);
    expect(sessionMembers(t.pid)).toEqual([]);
    expect(isProcessAlive(job)).toBe(false);
    expect(removed).toEqual([t.name]);
    expect(terminals.list()).toEqual([]);
  });

  it('a shell that exits at once is removed, its output delivered first', async () => {
    const terminals = manager({ shell: ['/bin/sh', '-c', 'echo bye; exit 3'] });
    const removed = new Promise<string>((resolve) => terminals.onRemoved(resolve));
    const t = await terminals.create();
    let output = '';
    t.onOutput(({ text }) => {
      output += text;
    });
    const exit = await new Promise((resolve) => t.onExit(resolve));
    expect(exit).toMatchObject({ exitCode: 3 });
    expect(await removed).toBe(t.name);
    expect(`${t.scrollback.text()}${output}`).toContain('bye');
    expect(terminals.has(t.name)).toBe(false);
  });

  it('a shell that cannot be executed ends the terminal instead of the server', async () => {
    const terminals = manager({ shell: ['/no/such/shell'] });
    const t = await terminals.create();
    await new Promise((resolve) => t.onExit(resolve));
    expect(terminals.list()).toEqual([]);
  });

  it('culls terminals without input or output for the timeout, and only those', async () => {
    let now = Date.now();
    const warnings: string[] = [];
    const terminals = manager({
      cullInactiveTimeout: 60,
      cullInterval: 3600,
      now: () => new Date(now),
      warn: (m) => warnings.push(m),
    });
    const idle = await terminals.create();
    const busy = await terminals.create();
    // the prompts are output, so activity: let them arrive before the clock moves
    await Promise.all([waitForOutput(idle, /[#$] $/), waitForOutput(busy, /[#$] $/)]);
    now += 50_000;
    busy.write('echo hi\r');
    await waitForOutput(busy, /hi/);
    now += 20_000;
    expect(await terminals.cullInactive()).toEqual([idle.name]);
    expect(terminals.list().map((t) => t.name)).toEqual([busy.name]);
    expect(warnings).toEqual([`Culling terminal '${idle.name}' due to 70 seconds of inactivity.`]);
  });

  it('reports input and output as activity', async () => {
    let count = 0;
    const terminals = manager({ onActivity: () => count++ });
    const t = await terminals.create();
    t.write('echo x\r');
    await waitForOutput(t, /x\r?\n/);
    expect(count).toBeGreaterThan(1);
  });

  it('close() ends every terminal and refuses new ones', async () => {
    const terminals = manager();
    const pids = [(await terminals.create()).pid, (await terminals.create()).pid];
    await terminals.close();
    for (const pid of pids) expect(sessionMembers(pid)).toEqual([]);
    expect((await errorOf(terminals.create())).kind).toBe('unavailable');
  });
});

describe('Scrollback', () => {
  it('keeps the newest output within its bound, with absolute offsets', () => {
    const s = new Scrollback(10);
    s.append('abc');
    s.append('defg');
    expect(s.text()).toBe('abcdefg');
    s.append('hijkl');
    expect([s.start, s.end]).toEqual([3, 12]);
    expect(s.text()).toBe('defghijkl');
    expect(s.since(5)).toBe('fghijkl');
    expect(s.since(0)).toBe('defghijkl');
    expect(s.since(12)).toBe('');
  });

  it('cuts a single chunk larger than the bound at a line start when it can', () => {
    const s = new Scrollback(8);
    s.append('line one\nline two\nxy');
    expect(s.text()).toBe('xy');
    expect(s.end).toBe(20);
    const t = new Scrollback(4);
    t.append('abcdefgh');
    expect(t.text()).toBe('efgh');
    expect(t.start).toBe(4);
  });

  it('stays bounded over many appends', () => {
    const s = new Scrollback(1000);
    for (let i = 0; i < 100_000; i++) s.append(`${i}\n`);
    expect(s.text().length).toBeLessThanOrEqual(1000);
    expect(s.text().endsWith('99999\n')).toBe(true);
  });
});
