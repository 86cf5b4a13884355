// needs: kernel
/**
 * `--log-format json` on the CLI built from source: every line on stdout and stderr is one JSON
 * object (the banner, request lines, a kernel's own output included), request lines carry their
 * request id, route, status, ms and kernel id; and in both formats a `?token=` URL, an
 * Authorization header and a login cookie never reach the log.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Cli, isolated, runCli, useCliDirs } from '../../../testing/cli.js';
import { Scrape } from '../../../testing/prometheus.js';
import { TOKEN } from '../../../testing/token.js';
import { waitUntil } from '../../../testing/wait.js';

interface LogEntry {
  time: string;
  level: string;
  message: string;
  [field: string]: unknown;
}

const dirs = useCliDirs();
let jupyterPath: string;

beforeAll(async () => {
  // A kernel that writes to its stdout and stderr before it starts: its lines must be logged as JSON too.
  jupyterPath = path.join(dirs.dir, 'jupyter');
  const spec = path.join(jupyterPath, 'kernels', 'noisy');
  await fs.mkdir(spec, { recursive: true });
  await fs.writeFile(
    path.join(spec, 'kernel.json'),
    JSON.stringify({
      display_name: 'Noisy Python',
      language: 'python',
      argv: [
        '/bin/sh',
        '-c',
        'echo noisy kernel stdout; echo noisy kernel stderr >&2; exec /usr/bin/python3 -m ipykernel_launcher -f "$0"',
        '{connection_file}',
      ],
    }),
  );
});

function lines(text: string): string[] {
  return text.split('\n').filter((line) => line !== '');
}

/** Every line parsed; a line that is not one JSON object with time, level and message fails the test. */
function parseJsonLines(text: string): LogEntry[] {
  return lines(text).map((line) => {
    const entry = JSON.parse(line) as LogEntry;
    expect(entry, line).toMatchObject({
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      level: expect.stringMatching(/^(info|warn|error)$/),
      message: expect.any(String),
    });
    return entry;
  });
}

async function waitFor(check: () => boolean, what: string, cli: Cli, timeoutMs = 60_000): Promise<void> {
  if (!(await waitUntil(check, { timeoutMs, intervalMs: 50 })))
    throw new Error(`timed out waiting for ${what}\nstdout: ${cli.stdout()}\nstderr: ${cli.stderr()}`);
}

/** The requests whose secrets must stay out of the log; returns the login cookie value used. */
async function secretBearingRequests(base: string): Promise<string> {
  expect((await fetch(`${base}api/contents?token=${TOKEN}`)).status).toBe(200);
  expect((await fetch(`${base}api/status`, { headers: { authorization: `token ${TOKEN}` } })).status).toBe(200);
  const login = await fetch(`${base}tree?token=${TOKEN}`, {
    redirect: 'manual',
    headers: { accept: 'text/html', 'sec-fetch-mode': 'navigate' },
  });
  const cookie = login.headers
    .getSetCookie()
    .map((header) => header.split(';')[0])
    .join('; ');
  expect(cookie).toMatch(/username-[^=]+=\S{20,}/);
  expect((await fetch(`${base}api/contents`, { headers: { cookie } })).status).toBe(200);
  return /username-[^=]+=([^;]+)/.exec(cookie)?.[1] ?? '';
}

async function stop(cli: Cli): Promise<void> {
  cli.child.kill('SIGINT');
  expect((await cli.exit).code).toBe(0);
}

describe('nbserve --log-format json', () => {
  it('writes only JSON lines, with request fields, kernel output and no secret', async () => {
    const cli = runCli([...isolated(dirs), '--log-format=json', '--log-level=info', `--token=${TOKEN}`, dirs.root], {
      env: { JUPYTER_PATH: jupyterPath },
    });
    let base = '';
    await waitFor(
      () => {
        const banner = lines(cli.stdout())
          .map((line) => JSON.parse(line) as LogEntry)
          .find((entry) => entry.message === 'nbserve is serving');
        base = typeof banner?.url === 'string' ? banner.url : '';
        return base !== '';
      },
      'the banner',
      cli,
    );
    expect(base).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);

    const cookie = await secretBearingRequests(base);
    const auth = { authorization: `token ${TOKEN}` };
    const started = await fetch(`${base}api/kernels`, { method: 'POST', headers: auth, body: '{"name":"noisy"}' });
    expect(started.status).toBe(201);
    const kernelId = ((await started.json()) as { id: string }).id;
    const metrics = new Scrape(await (await fetch(`${base}metrics`, { headers: auth })).text());
    expect(metrics.value('kernel_currently_running_total', { type: 'noisy' })).toBe(1);
    expect((await fetch(`${base}api/kernels/${kernelId}`, { method: 'DELETE', headers: auth })).status).toBe(204);
    await waitFor(() => cli.stderr().includes('noisy kernel stderr'), 'the kernel output', cli);
    await stop(cli);

    const out = parseJsonLines(cli.stdout());
    const err = parseJsonLines(cli.stderr());
    expect(out.map((entry) => entry.message)).toEqual(['nbserve is serving', 'nbserve stopped']);
    expect(out[0]).toMatchObject({ level: 'info', root: dirs.root });

    const requests = err.filter((entry) => typeof entry.request_id === 'string');
    for (const entry of requests) {
      expect(entry).toMatchObject({
        request_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        method: expect.any(String),
        route: expect.any(String),
        url: expect.any(String),
        status: expect.any(Number),
        ms: expect.any(Number),
      });
    }
    expect(new Set(requests.map((entry) => entry.request_id)).size).toBe(requests.length);
    expect(requests.find((entry) => entry.url === '/api/contents?token=%5Bsecret%5D')).toMatchObject({
      route: '/api/contents',
      status: 200,
      level: 'info',
    });
    expect(requests.find((entry) => entry.method === 'POST' && entry.route === '/api/kernels')).toMatchObject({
      status: 201,
      kernel_id: kernelId,
    });
    expect(requests.find((entry) => entry.method === 'DELETE')).toMatchObject({
      route: '/api/kernels/:kernel_id',
      status: 204,
      kernel_id: kernelId,
    });
    expect(requests.find((entry) => entry.route === '/metrics')).toMatchObject({ status: 200 });
    for (const stream of ['stdout', 'stderr']) {
      expect(err.find((entry) => entry.message === `noisy kernel ${stream}`)).toMatchObject({
        level: 'warn',
        kernel_id: kernelId,
        stream,
      });
    }

    const everything = cli.stdout() + cli.stderr();
    expect(everything).not.toContain(TOKEN);
    expect(everything).not.toContain(cookie);
  }, 180_000);

  it('says that a generated token is not logged, and logs none', async () => {
    const cli = runCli([...isolated(dirs), '--log-format=json', dirs.root]);
    await waitFor(() => cli.stderr().includes('token'), 'the token warning', cli);
    await stop(cli);
    const err = parseJsonLines(cli.stderr());
    expect(err.find((entry) => entry.message.includes('random token'))).toMatchObject({ level: 'warn' });
    parseJsonLines(cli.stdout());
    expect(cli.stdout() + cli.stderr()).not.toMatch(/[0-9a-f]{48}/);
  }, 120_000);

  it('refuses an unknown format', async () => {
    const cli = runCli([...isolated(dirs), '--log-format=xml', dirs.root]);
    expect((await cli.exit).code).toBe(2);
    expect(cli.stderr()).toContain('--log-format must be text or json');
  });
});

describe('nbserve --log-format text (the default)', () => {
  it('keeps the token, the Authorization header and the cookie out of the log', async () => {
    const cli = runCli([...isolated(dirs), '--log-level=info', `--token=${TOKEN}`, dirs.root]);
    const printed = await cli.url;
    expect(printed).toBe(`${new URL(printed).origin}/?token=${TOKEN}`); // the banner still shows it, on stdout
    const cookie = await secretBearingRequests(`${new URL(printed).origin}/`);
    await waitFor(() => /200 GET \/api\/contents [\d.]+ms/.test(cli.stderr()), 'the cookie request line', cli);
    await stop(cli);
    const log = cli.stderr();
    expect(log).toMatch(/\[I [\d:.]+ nbserve\] 200 GET \/api\/contents\?token=%5Bsecret%5D [\d.]+ms/);
    expect(log).not.toContain(TOKEN);
    expect(log).not.toContain(cookie);
    for (const line of lines(log)) expect(() => JSON.parse(line)).toThrow();
  }, 120_000);
});
