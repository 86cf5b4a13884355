import { promises as fs } from 'node:fs';
import path from 'node:path';
import { verifyPassword } from '@nbserve/http';
import { describe, expect, it } from 'vitest';
import { isolated, runCli, useCliDirs } from '../../../testing/cli.js';
import { REPO } from '../../../testing/repo.js';

const dirs = useCliDirs();

const configFile = () => path.join(dirs.config, 'nbserve_config.json');

describe('nbserve password', () => {
  it('refuses mismatching passwords and writes nothing', async () => {
    const cli = runCli(['password', `--config-dir=${dirs.config}`, `--data-dir=${dirs.data}`], {
      input: 'one-pass\nother-pass\n',
    });
    expect((await cli.exit).code).toBe(1);
    expect(cli.stderr()).toContain('do not match');
    await expect(fs.access(configFile())).rejects.toThrow();
  });

  it('stores a scrypt hash (never the password) with mode 0600, keeping other keys', async () => {
    await fs.mkdir(dirs.config, { recursive: true });
    await fs.writeFile(configFile(), JSON.stringify({ other: 1 }));
    const cli = runCli(['password', `--config-dir=${dirs.config}`, `--data-dir=${dirs.data}`], {
      input: 's3cret-pass\ns3cret-pass\n',
    });
    expect((await cli.exit).code).toBe(0);
    expect(cli.stdout()).toContain(configFile());
    const text = await fs.readFile(configFile(), 'utf8');
    expect(text).not.toContain('s3cret-pass');
    const stored = JSON.parse(text);
    expect(stored.other).toBe(1);
    expect(await verifyPassword('s3cret-pass', stored.password)).toBe(true);
    expect((await fs.stat(configFile())).mode & 0o777).toBe(0o600);
  });

  it('the server then accepts the password at /login', async () => {
    const cli = runCli([...isolated(dirs), dirs.root]);
    const base = (await cli.url).split('?')[0];
    try {
      const page = await fetch(`${base}login`);
      const xsrfCookie = page.headers.getSetCookie().find((c) => c.startsWith('_xsrf=')) ?? '';
      const xsrf = xsrfCookie.split(';')[0]?.slice('_xsrf='.length) ?? '';
      const post = (password: string) =>
        fetch(`${base}login?next=%2Ftree`, {
          method: 'POST',
          redirect: 'manual',
          headers: { cookie: `_xsrf=${xsrf}`, 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ password, _xsrf: xsrf }).toString(),
        });
      const wrong = await post('not-it');
      expect(wrong.status).toBe(200);
      const ok = await post('s3cret-pass');
      expect(ok.status).toBe(302);
      expect(ok.headers.get('location')).toBe('/tree');
      const login = ok.headers.getSetCookie().find((c) => c.startsWith('username-')) ?? '';
      const status = await fetch(`${base}api/status`, { headers: { cookie: login.split(';')[0] ?? '' } });
      expect(status.status).toBe(200);
    } finally {
      cli.child.kill('SIGTERM');
      await cli.exit;
    }
  });
});

describe('nbserve password on a terminal', () => {
  it('prompts twice without echoing what is typed', async () => {
    const configDir = path.join(dirs.dir, 'tty-config');
    // A real pseudo-terminal (Python's pty), so the hidden-input path runs as for a person.
    const driver = `
import os, pty, sys
argv = sys.argv[1:]
pid, fd = pty.fork()
if pid == 0:
    os.execv(argv[0], argv)
out = b''
def read_until(marker):
    global out
    while marker not in out:
        chunk = os.read(fd, 1024)
        if not chunk:
            raise SystemExit('eof before ' + marker.decode())
        out += chunk
read_until(b'Enter password: ')
os.write(fd, b'tty-secret-1\\r')
read_until(b'Verify password: ')
os.write(fd, b'tty-secret-1\\r')
while True:
    try:
        chunk = os.read(fd, 1024)
    except OSError:
        break
    if not chunk:
        break
    out += chunk
_, status = os.waitpid(pid, 0)
sys.stdout.write(out.decode(errors='replace'))
sys.exit(os.waitstatus_to_exitcode(status))
`;
    const { spawnSync } = await import('node:child_process');
    const result = spawnSync(
      '/usr/bin/python3',
      [
        '-c',
        driver,
        process.execPath,
        '--conditions=@nbserve/source',
        '--import',
        'tsx',
        path.join(REPO, 'packages/cli/src/main.ts'),
        'password',
        `--config-dir=${configDir}`,
        `--data-dir=${path.join(dirs.dir, 'tty-data')}`,
      ],
      { cwd: REPO, encoding: 'utf8', timeout: 30_000 },
    );
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('Enter password:');
    expect(result.stdout).toContain('Wrote the hashed password');
    expect(result.stdout).not.toContain('tty-secret-1');
    const stored = JSON.parse(await fs.readFile(path.join(configDir, 'nbserve_config.json'), 'utf8'));
    expect(await verifyPassword('tty-secret-1', stored.password)).toBe(true);
  });
});
