import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO } from '../testing/repo.js';
import { makeTempDir } from '../testing/temp.js';

/**
 * A server that starts like nbserve and answers `GET /api`, but whose other routes are broken
 * (404): what a regression in a route looks like to the bench.
 */
const BROKEN_SERVER = `
import http from 'node:http';
const args = process.argv.slice(2);
const port = Number(args[args.indexOf('--port') + 1]);
const token = args[args.indexOf('--token') + 1];
const server = http.createServer((req, res) => {
  const authorized = req.headers.authorization === 'token ' + token;
  const status = !authorized ? 403 : req.url === '/api' ? 200 : 404;
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(status === 200 ? { version: 'broken' } : { message: 'Not Found', reason: null }));
});
server.listen(port, '127.0.0.1');
process.on('SIGTERM', () => process.exit(0));
`;

let dir: string;
beforeAll(async () => {
  dir = await makeTempDir('nbserve-bench-failures-');
  await fs.writeFile(path.join(dir, 'broken-server.mjs'), BROKEN_SERVER);
});
afterAll(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

describe('pnpm bench', () => {
  it('fails the run, naming the scenario, the server and the request, when a route is broken', async () => {
    const results = path.join(dir, 'results');
    const outcome = await new Promise<{ code: number | null; stdout: string }>((resolve) => {
      execFile(
        process.execPath,
        ['--conditions=@nbserve/source', '--import', 'tsx', 'bench/run.ts', 'concurrency', '--quick', '--no-jupyter'],
        {
          cwd: REPO,
          env: {
            ...process.env,
            NBSERVE_BENCH_CLI: path.join(dir, 'broken-server.mjs'),
            NBSERVE_BENCH_RESULTS: results,
          },
          timeout: 120_000,
        },
        (error, stdout) => resolve({ code: error ? ((error.code as number | null) ?? null) : 0, stdout }),
      );
    });
    expect(outcome.code, outcome.stdout).toBe(1);
    const failure = 'FAILED concurrency: nbserve: GET /api/contents/<dir> -> 404';
    expect(outcome.stdout).toContain(failure);
    expect(outcome.stdout).not.toContain('not available');
    expect(await fs.readFile(path.join(results, 'latest.md'), 'utf8')).toContain(failure);
  });
});
