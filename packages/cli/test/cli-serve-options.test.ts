import { promises as fs } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { selfSignedCert } from '../../../testing/certs.js';
import { isolated, runCli, useCliDirs } from '../../../testing/cli.js';
import { waitUntil } from '../../../testing/wait.js';

const dirs = useCliDirs();

// The rest of `nbserve` serving (cli-serve.test.ts): ports, the browser, bad values, HTTPS. A
// separate file so the unit lane's two workers start these bins beside the others.

describe('port selection', () => {
  let blocker: net.Server;
  let busy: number;
  beforeAll(async () => {
    blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    busy = (blocker.address() as net.AddressInfo).port;
  });
  afterAll(() => new Promise((resolve) => blocker.close(resolve)));

  it('tries the next port when the port is busy, says so on the log, and prints the URL it took', async () => {
    const cli = runCli([...isolated(dirs), `--port=${busy}`, dirs.root]);
    const url = await cli.url;
    const port = Number(new URL(url).port);
    expect(port).toBeGreaterThan(busy);
    expect(port).toBeLessThanOrEqual(busy + 50);
    expect(cli.stderr()).toContain(`The port ${busy} is already in use, trying another port.`);
    // the printed URL is the one that answers
    expect(
      (
        await fetch(`${url.split('?')[0]}api/status`, {
          headers: { Authorization: `token ${new URL(url).searchParams.get('token')}` },
        })
      ).status,
    ).toBe(200);
    cli.child.kill('SIGTERM');
    expect((await cli.exit).code).toBe(0);
  });

  it('fails clearly with --port-retries 0', async () => {
    const cli = runCli([...isolated(dirs), `--port=${busy}`, '--port-retries', '0', dirs.root]);
    expect((await cli.exit).code).toBe(1);
    expect(cli.stderr()).toContain(`port ${busy}`);
    expect(cli.stderr()).toContain('already in use');
  });
});

describe('opening the browser', () => {
  it('opens a 0600 redirect file through $BROWSER (the token stays off the process list) and removes it at exit', async () => {
    const record = path.join(dirs.dir, 'browser-arg.txt');
    const fakeBrowser = path.join(dirs.dir, 'fake-browser.sh');
    await fs.writeFile(fakeBrowser, `#!/bin/sh\nprintf '%s' "$1" > '${record}'\n`, { mode: 0o755 });
    const args = isolated(dirs).filter((a) => a !== '--no-browser');
    const cli = runCli([...args, '--browser', dirs.root], { env: { BROWSER: fakeBrowser } });
    const url = await cli.url;
    let opened = '';
    const recorded = async () => {
      opened = await fs.readFile(record, 'utf8').catch(() => '');
      return opened !== '';
    };
    await waitUntil(recorded, { timeoutMs: 5000, intervalMs: 50 });
    expect(opened).toMatch(/nbserve-\d+-open\.html$/);
    expect(opened).not.toContain('token');
    const stat = await fs.stat(opened);
    expect(stat.mode & 0o777).toBe(0o600);
    expect(await fs.readFile(opened, 'utf8')).toContain(url.replace(/&/g, '&amp;'));
    cli.child.kill('SIGTERM');
    expect((await cli.exit).code).toBe(0);
    await expect(fs.access(opened)).rejects.toThrow();
  });

  it('a browser that cannot start is harmless', async () => {
    const args = isolated(dirs).filter((a) => a !== '--no-browser');
    const cli = runCli([...args, dirs.root], { env: { BROWSER: path.join(dirs.dir, 'no-such-browser') } });
    const base = (await cli.url).split('?')[0];
    expect((await fetch(`${base}api`)).status).toBe(200);
    cli.child.kill('SIGTERM');
    expect((await cli.exit).code).toBe(0);
    expect(cli.stderr()).toContain('Could not open a browser');
  });
});

describe('bad option values that only the server can judge', () => {
  it('refuses an unsafe --base-url with a message and exit code 1', async () => {
    const cli = runCli([...isolated(dirs), '--base-url=/a?b', dirs.root]);
    expect((await cli.exit).code).toBe(1);
    expect(cli.stderr()).toContain('Invalid base URL');
  });
});

describe('HTTPS from the command line', () => {
  it('--certfile and --keyfile serve https and print an https URL', async () => {
    const { certfile, keyfile, cert: ca } = await selfSignedCert(dirs.dir);
    const cli = runCli([...isolated(dirs), `--certfile=${certfile}`, `--keyfile=${keyfile}`, dirs.root]);
    const url = await cli.url;
    expect(url).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]{48}$/);
    const https = await import('node:https');
    const status = await new Promise<number>((resolve, reject) => {
      https
        .get(`${url.split('?')[0]}api`, { ca }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        })
        .on('error', reject);
    });
    expect(status).toBe(200);
    cli.child.kill('SIGTERM');
    expect((await cli.exit).code).toBe(0);
  });
});
