/**
 * The operations flags on the CLI built from source. `--audit-log`: `-` writes the lines to stderr;
 * a path that cannot be written, or an unknown `--audit-log-code`, stops the start with one clear
 * line and exit code 1. `MEM_LIMIT`, `--mem-limit`, `--mem-warning-threshold`,
 * `--track-cpu-percent` and `--cpu-limit` reach `/api/metrics/v1`.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isolated, runCli, useCliDirs } from '../../../testing/cli.js';
import { TOKEN } from '../../../testing/token.js';
import { waitFor } from '../../../testing/wait.js';

const dirs = useCliDirs();

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

describe('nbserve resource-usage flags', () => {
  async function report(args: string[], env: Record<string, string> = {}) {
    const cli = runCli([dirs.root, ...isolated(dirs), ...args], { env: { NBSERVE_TOKEN: TOKEN, ...env } });
    try {
      const res = await fetch(new URL('api/metrics/v1', await cli.url), {
        headers: { authorization: `token ${TOKEN}` },
      });
      expect(res.status).toBe(200);
      return (await res.json()) as Record<string, unknown> & { limits: Record<string, unknown> };
    } finally {
      cli.child.kill('SIGTERM');
      await cli.exit;
    }
  }

  it('MEM_LIMIT from the environment, as JupyterHub spawners set it', async () => {
    const body = await report([], { MEM_LIMIT: String(8 * 1024 ** 3) });
    expect(body.limits).toEqual({ memory: { rss: 8 * 1024 ** 3, pss: 8 * 1024 ** 3, warn: false } });
  });

  it('--mem-limit (over MEM_LIMIT), --mem-warning-threshold, --track-cpu-percent, --cpu-limit', async () => {
    const body = await report(
      ['--mem-limit=1M', '--mem-warning-threshold=0.25', '--track-cpu-percent', '--cpu-limit', '1.5'],
      { MEM_LIMIT: String(8 * 1024 ** 3) },
    );
    expect(body.limits).toEqual({
      memory: { rss: 1024 * 1024, pss: 1024 * 1024, warn: true },
      cpu: { cpu: 1.5, warn: expect.any(Boolean) },
    });
    expect(body).toMatchObject({ cpu_percent: expect.any(Number), cpu_count: expect.any(Number) });
  });

  it('a threshold that is not a fraction: exit code 1 and the allowed range', async () => {
    const cli = runCli([dirs.root, ...isolated(dirs), '--mem-warning-threshold=2']);
    expect((await cli.exit).code).toBe(1);
    expect(cli.stderr()).toContain('--mem-warning-threshold: must be between 0 and 1');
  });
});
