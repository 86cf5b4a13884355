/**
 * `--audit-log` on the CLI built from source: `-` writes the lines to stderr; a path that cannot be
 * written, or an unknown `--audit-log-code`, stops the start with one clear line and exit code 1.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOKEN } from '../../../testing/token.js';
import { waitFor } from '../../../testing/wait.js';
import { type Dirs, isolated, killLeftovers, removeSandbox, runCli, tempDirs } from './cli-helpers.js';

let dirs: Dirs;
beforeAll(async () => {
  dirs = await tempDirs();
});
afterAll(async () => {
  killLeftovers();
  await fs.rm(dirs.dir, { recursive: true, force: true });
  await removeSandbox();
});

describe('nbserve --audit-log', () => {
  it('-: one JSON line per action on stderr, without the token', async () => {
    const cli = runCli([dirs.root, ...isolated(dirs), '--audit-log', '-'], { env: { NBSERVE_TOKEN: TOKEN } });
    try {
      const url = new URL(await cli.url);
      const res = await fetch(new URL('api/contents/audited.txt', url), {
        method: 'PUT',
        headers: { authorization: `token ${TOKEN}` },
        body: JSON.stringify({ type: 'file', format: 'text', content: 'abc' }),
      });
      expect(res.status).toBe(201);
      await waitFor(() => cli.stderr().includes('"event":"contents.save"'));
      const line =
        cli
          .stderr()
          .split('\n')
          .find((l) => l.includes('"event":"contents.save"')) ?? '';
      expect(JSON.parse(line)).toMatchObject({
        event: 'contents.save',
        path: 'audited.txt',
        size: 3,
        client: '127.0.0.1',
      });
      expect(cli.stderr()).not.toContain(TOKEN);
    } finally {
      cli.child.kill('SIGTERM');
      await cli.exit;
    }
  });

  it('a path that cannot be written: exit code 1 and the reason', async () => {
    const file = path.join(dirs.dir, 'not-a-dir');
    await fs.writeFile(file, '');
    const cli = runCli([dirs.root, ...isolated(dirs), `--audit-log=${path.join(file, 'audit.log')}`]);
    expect((await cli.exit).code).toBe(1);
    expect(cli.stderr()).toContain(
      `nbserve: Cannot open the audit log ${path.join(file, 'audit.log')} for writing (ENOTDIR)`,
    );
  });

  it('--audit-log-code other than text or hash: exit code 1 and what is allowed', async () => {
    const cli = runCli([dirs.root, ...isolated(dirs), '--audit-log=-', '--audit-log-code=md5']);
    expect((await cli.exit).code).toBe(1);
    expect(cli.stderr()).toContain('use text or hash');
  });
});
