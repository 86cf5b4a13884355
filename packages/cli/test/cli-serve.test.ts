import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isolated, runCli, useCliDirs } from '../../../testing/cli.js';
import { REPO } from '../../../testing/repo.js';
import { FLAGS } from '../src/flag-table.js';

const dirs = useCliDirs();

describe('nbserve --help and --version', () => {
  it('--help documents every flag of the table, both halves of each boolean pair, and the password command', async () => {
    const cli = runCli(['--help']);
    expect((await cli.exit).code).toBe(0);
    const help = cli.stdout();
    for (const flag of FLAGS) {
      expect(help).toContain(`--${flag.name}`);
      if (flag.type === 'boolean') expect(help).toContain(`--no-${flag.name}`);
    }
    expect(help).toContain('password');
    expect(help).toContain('--flag=value');
  });

  it('--version prints the package version', async () => {
    const pkg = JSON.parse(await fs.readFile(path.join(REPO, 'packages/cli/package.json'), 'utf8'));
    const cli = runCli(['--version']);
    expect((await cli.exit).code).toBe(0);
    expect(cli.stdout().trim()).toBe(pkg.version);
  });

  it.each([
    [['--port', 'abc'], '--port'],
    [['--port=70000'], '--port'],
    [['--browser=maybe'], '--browser'],
    [['--max-body-size=lots'], '--max-body-size'],
    [['--no-such-flag'], 'no-such-flag'],
    [['a', 'b'], 'too many arguments'],
  ])('refuses %j with a clear message and a non-zero exit', async (args, mention) => {
    const cli = runCli([...args, '--no-browser']);
    const { code } = await cli.exit;
    expect(code).not.toBe(0);
    expect(cli.stderr()).toContain(mention);
    expect(cli.stdout()).not.toMatch(/http:\/\//);
  });

  it.each([[['--checkpoints-keep=0']], [['--checkpoints-keep=-1']], [['--checkpoints-keep', '-2']]])(
    'refuses %j: a file keeps at least one checkpoint',
    async (args) => {
      const cli = runCli([...isolated(dirs), ...args, dirs.root]);
      expect((await cli.exit).code).not.toBe(0);
      expect(cli.stderr()).toContain('--checkpoints-keep: must be between 1 and 1000');
      expect(cli.stdout()).not.toMatch(/http:\/\//);
    },
  );

  it('refuses a root that is not a directory', async () => {
    const cli = runCli([...isolated(dirs), path.join(dirs.dir, 'missing')]);
    expect((await cli.exit).code).toBe(2);
    expect(cli.stderr()).toContain('not a directory');
  });
});

describe('nbserve serving', () => {
  it('prints the URL with a random token, serves, and exits 0 on SIGTERM', async () => {
    const cli = runCli([...isolated(dirs), '--log-level=info', dirs.root]);
    const url = await cli.url;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]{48}$/);
    const token = new URL(url).searchParams.get('token') ?? '';
    const base = url.split('?')[0];
    expect(await (await fetch(`${base}api`)).json()).toEqual({ version: expect.any(String) });
    expect((await fetch(`${base}api/status`)).status).toBe(403);
    expect((await fetch(`${base}api/status`, { headers: { Authorization: `token ${token}` } })).status).toBe(200);
    expect((await fetch(url, { redirect: 'manual' })).status).toBe(302);
    cli.child.kill('SIGTERM');
    expect(await cli.exit).toEqual({ code: 0, signal: null });
    expect(cli.stdout()).toContain('nbserve stopped.');
    // Request lines were logged, but never the token.
    expect(cli.stderr()).toContain('GET /api/status');
    expect(cli.stderr()).not.toContain(token);
  });

  it('exits 0 on SIGINT too', async () => {
    const cli = runCli([...isolated(dirs), dirs.root]);
    await cli.url;
    cli.child.kill('SIGINT');
    expect(await cli.exit).toEqual({ code: 0, signal: null });
  });

  it('keeps serving, idle, when the terminal reading its output goes away, and still stops on SIGTERM', async () => {
    const cli = runCli([...isolated(dirs), '--log-level=info', '--token=t', dirs.root]);
    const base = (await cli.url).split('?')[0];
    cli.child.stdout?.destroy();
    cli.child.stderr?.destroy();
    // Every request now logs a line into a broken pipe (EPIPE).
    for (let i = 0; i < 5; i++) {
      expect((await fetch(`${base}api/contents/missing?token=t`)).status).toBe(404);
    }
    const cpuTicks = async () => {
      const stat = await fs.readFile(`/proc/${cli.child.pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return Number(fields[11]) + Number(fields[12]); // utime + stime
    };
    const before = await cpuTicks();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    // A busy loop on the broken pipe would use ~100 ticks (a whole core) in this second.
    expect((await cpuTicks()) - before).toBeLessThan(20);
    expect((await fetch(`${base}api?token=t`)).status).toBe(200);
    cli.child.kill('SIGTERM');
    expect(await cli.exit).toEqual({ code: 0, signal: null });
  });

  it('exits 0 after POST /api/shutdown', async () => {
    const cli = runCli([...isolated(dirs), '--token=shut-me-down', dirs.root]);
    const base = (await cli.url).split('?')[0];
    const res = await fetch(`${base}api/shutdown`, {
      method: 'POST',
      headers: { Authorization: 'token shut-me-down' },
    });
    expect(res.status).toBe(200);
    expect(await cli.exit).toEqual({ code: 0, signal: null });
  });

  it('takes the token from --token and $NBSERVE_TOKEN, and every flag in --flag=value form', async () => {
    const cli = runCli(
      [
        ...isolated(dirs),
        '--base-url=/nb/',
        '--allow-hidden=false',
        '--max-body-size=1K',
        '--browser=false',
        dirs.root,
      ],
      { env: { NBSERVE_TOKEN: 'from-env' } },
    );
    const url = await cli.url;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/nb\/\?token=from-env$/);
    const base = url.split('?')[0];
    const big = await fetch(`${base}api/config/x`, {
      method: 'PUT',
      headers: { Authorization: 'token from-env' },
      body: JSON.stringify({ x: 'y'.repeat(2048) }),
    });
    expect(big.status).toBe(413);
    cli.child.kill('SIGTERM');
    expect((await cli.exit).code).toBe(0);
  });

  it('--max-copy-folder-size-mb caps directory copies (400, nothing written)', async () => {
    const root = path.join(dirs.dir, 'copy-root');
    await fs.mkdir(path.join(root, 'big'), { recursive: true });
    await fs.writeFile(path.join(root, 'big', 'x.bin'), Buffer.alloc(1024 * 1024 + 1));
    const cli = runCli([...isolated(dirs), '--token=t', '--max-copy-folder-size-mb=1', root]);
    const base = (await cli.url).split('?')[0];
    const res = await fetch(`${base}api/contents`, {
      method: 'POST',
      headers: { Authorization: 'token t' },
      body: '{"copy_from":"big"}',
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).toMatch(/larger than 1MB/);
    expect(await fs.readdir(root)).toEqual(['big']);
    cli.child.kill('SIGTERM');
    expect((await cli.exit).code).toBe(0);
  });

  it('--checkpoints-keep 2 keeps the two newest checkpoints of a file', async () => {
    const root = path.join(dirs.dir, 'checkpoints-root');
    await fs.mkdir(root, { recursive: true });
    await fs.writeFile(path.join(root, 'a.txt'), 'a');
    const cli = runCli([...isolated(dirs), '--token=t', '--checkpoints-keep', '2', root]);
    const at = `${(await cli.url).split('?')[0]}api/contents/a.txt/checkpoints`;
    const made = [];
    for (let i = 0; i < 3; i++) {
      made.push(await (await fetch(at, { method: 'POST', headers: { Authorization: 'token t' } })).json());
    }
    expect(await (await fetch(at, { headers: { Authorization: 'token t' } })).json()).toEqual(made.slice(1));
    cli.child.kill('SIGTERM');
    expect((await cli.exit).code).toBe(0);
  });

  it('--token "" disables auth with a loud warning', async () => {
    const cli = runCli([...isolated(dirs), '--token', '', dirs.root]);
    const url = await cli.url;
    expect(url).not.toContain('token=');
    expect(cli.stderr()).toContain('authentication is DISABLED');
    expect((await fetch(`${url}api/status`)).status).toBe(200);
    cli.child.kill('SIGTERM');
    expect((await cli.exit).code).toBe(0);
  });
});
