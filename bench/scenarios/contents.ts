import { rmSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { ensureCliBundle, nbserveBinNote } from '../lib/cli-bundle.js';
import { writeImageNotebook, writeNotebookDir } from '../lib/fixtures.js';
import { ApiClient, type ApiResponse } from '../lib/http-client.js';
import { runLoad } from '../lib/load.js';
import { peakRss, resetPeakRss, rss } from '../lib/processes.js';
import type { Subject } from '../lib/report.js';
import type { Scenario } from '../lib/scenario.js';
import type { ServerHandle } from '../lib/servers.js';
import { median } from '../lib/stats.js';

const MB = 1e6;

function expectOk(res: ApiResponse, what: string): void {
  if (res.status < 200 || res.status >= 300) {
    throw new Error(`${what} -> ${res.status}: ${res.body.toString('utf8').slice(0, 200)}`);
  }
}

const fixtureDirs = new Map<string, string>();
function notebookDir(root: string, count: number): string {
  const key = `${root}:${count}`;
  let dir = fixtureDirs.get(key);
  if (!dir) {
    dir = writeNotebookDir(root, `dir-${count}`, count);
    fixtureDirs.set(key, dir);
  }
  return dir;
}

/**
 * `GET /api/contents/<dir>` (the whole default model, content=1) of directories of 10,000 and
 * 100,000 small notebooks, one server for both, nbserve as the shipped bin; and the server's peak
 * RSS while listing the 100,000 as a multiple of its idle RSS before any listing.
 */
export const listingScenario: Scenario = {
  name: 'listing',
  group: 'contents',
  title: 'GET /api/contents of directories of 10,000 and 100,000 notebooks, and peak memory',
  budgetMs: 900_000,
  async run(ctx) {
    const small = 10_000;
    const big = ctx.size(100_000, 20_000);
    const smallDir = notebookDir(ctx.root, small);
    // its own fixture, removed after: a 100,000-entry root would slow every later scenario's server
    const bigDir = writeNotebookDir(ctx.root, `dir-big-${big}`, big);
    const runs = ctx.size(7, 3);
    const bigRuns = ctx.size(3, 2);
    const bundleProblem = ensureCliBundle((line) => ctx.log(line));
    if (bundleProblem) ctx.fail('nbserve (bundled bin)', bundleProblem);
    const smallTimes: Partial<Record<Subject, number>> = {};
    const changedTimes: Partial<Record<Subject, number>> = {};
    const bigTimes: Partial<Record<Subject, number>> = {};
    const growth: Partial<Record<Subject, number>> = {};
    const notes: string[] = [nbserveBinNote(bundleProblem)];
    try {
      for (const kind of ctx.serverKinds()) {
        const result = await ctx.withServer(
          kind,
          async (server) => {
            const api = new ApiClient(server.origin, server.token);
            try {
              await new Promise((resolve) => setTimeout(resolve, 500));
              const idle = rss(server.pid);
              const smallSamples = await listTimes(api, smallDir, small, runs);
              const canReset = resetPeakRss(server.pid);
              let sampled = 0;
              const sampler = canReset
                ? undefined
                : setInterval(() => (sampled = Math.max(sampled, rss(server.pid))), 5);
              const bigSamples = await listTimes(api, bigDir, big, bigRuns);
              if (sampler) clearInterval(sampler);
              const peak = canReset ? peakRss(server.pid) : sampled;
              // each after a notebook in it was touched, as by another program's save: nothing
              // listed before may be served again (after the peak: their garbage is not the big
              // listing's)
              const changedSamples = await listTimes(api, smallDir, small, runs, (i) => {
                const notebook = join(ctx.root, smallDir, `notebook-${String(i * 7).padStart(5, '0')}.ipynb`);
                utimesSync(notebook, new Date(), new Date());
              });
              return { smallSamples, changedSamples, bigSamples, idle, peak };
            } finally {
              api.close();
            }
          },
          { compiled: kind === 'nbserve' && !bundleProblem },
        );
        smallTimes[kind] = median(result.smallSamples);
        changedTimes[kind] = median(result.changedSamples);
        bigTimes[kind] = median(result.bigSamples);
        growth[kind] = result.peak / result.idle;
        notes.push(`${kind}: idle RSS ${(result.idle / MB).toFixed(0)} MB, peak ${(result.peak / MB).toFixed(0)} MB`);
        ctx.log(
          `${kind}: ${small} entries ${result.smallSamples.map((t) => t.toFixed(0)).join(', ')} ms, after a change ${result.changedSamples.map((t) => t.toFixed(0)).join(', ')} ms; ${big} entries ${result.bigSamples.map((t) => t.toFixed(0)).join(', ')} ms; RSS idle ${(result.idle / MB).toFixed(0)} MB, peak ${(result.peak / MB).toFixed(0)} MB`,
        );
      }
    } finally {
      rmSync(join(ctx.root, bigDir), { recursive: true, force: true });
    }
    ctx.record({
      metric: `list 10,000 notebooks (median of ${runs}, first is cold)`,
      unit: 'ms',
      values: smallTimes,
      targets: [{ kind: 'ratio', against: 'jupyter_server', op: '<=', bound: 0.1, text: '≥10x faster' }],
      notes: [notes[0] as string],
    });
    ctx.record({
      metric: `list 10,000 notebooks, one of them touched before each (median of ${runs})`,
      unit: 'ms',
      values: changedTimes,
      notes: [notes[0] as string],
    });
    ctx.record({
      metric: `list ${big.toLocaleString('en-US')} notebooks (median of ${bigRuns}, first is cold)`,
      unit: 'ms',
      values: bigTimes,
      notes: [notes[0] as string],
    });
    ctx.record({
      metric: `peak RSS while listing ${big.toLocaleString('en-US')} notebooks, as a multiple of idle RSS`,
      unit: 'x',
      values: growth,
      targets: [{ kind: 'at most', bound: 2, text: 'at most 2x idle' }],
      notes,
    });
  },
};

/**
 * Times `runs` listings of `dir` (the first one cold), checking each lists `count` entries;
 * `before(i)` runs before the i-th, untimed.
 */
async function listTimes(
  api: ApiClient,
  dir: string,
  count: number,
  runs: number,
  before?: (i: number) => void,
): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    before?.(i);
    const res = await api.request('GET', `/api/contents/${dir}`);
    expectOk(res, 'GET /api/contents/<dir>');
    if (i === 0) {
      const model = JSON.parse(res.body.toString('utf8')) as { content?: unknown[] };
      if (model.content?.length !== count) throw new Error(`listed ${model.content?.length} of ${count} entries`);
    }
    samples.push(res.ms);
    // past the server's 100 ms reuse of any served listing (a big folder's is kept longer while
    // a watch sees nothing change in it: see KeptListings)
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
  return samples;
}

/** 50 keep-alive connections in a closed loop, each listing a directory of 100 notebooks. */
export const concurrencyScenario: Scenario = {
  name: 'concurrency',
  group: 'contents',
  title: '50 concurrent connections listing a directory of 100 notebooks for 10 s',
  budgetMs: 120_000,
  async run(ctx) {
    const dir = notebookDir(ctx.root, 100);
    const seconds = ctx.size(10, 3);
    const connections = 50;
    const rps: Partial<Record<Subject, number>> = {};
    const p99: Partial<Record<Subject, number>> = {};
    const notes: string[] = [];
    for (const kind of ctx.serverKinds()) {
      const result = await ctx.withServer(kind, async (server) => {
        const api = new ApiClient(server.origin, server.token);
        try {
          expectOk(await api.request('GET', `/api/contents/${dir}`), 'GET /api/contents/<dir>');
        } finally {
          api.close();
        }
        return await runLoad({
          url: `${server.origin}/api/contents/${dir}`,
          token: server.token,
          connections,
          seconds,
          warmupSeconds: ctx.size(1, 0.5),
        });
      });
      rps[kind] = result.requestsPerSecond;
      p99[kind] = result.p99;
      if (result.errors > 0)
        notes.push(`${kind}: ${result.errors} failed requests ${JSON.stringify(result.errorKinds)}`);
      ctx.log(
        `${kind}: ${result.requestsPerSecond.toFixed(0)} req/s, p50 ${result.p50.toFixed(1)} ms, p99 ${result.p99.toFixed(1)} ms, ${result.errors} errors ${JSON.stringify(result.errorKinds)}`,
      );
    }
    ctx.record({
      metric: `requests/s, ${connections} connections, ${seconds} s`,
      unit: 'req/s',
      values: rps,
      targets: [{ kind: 'ratio', against: 'jupyter_server', op: '>=', bound: 10, text: '≥10x jupyter_server' }],
      notes,
    });
    ctx.record({ metric: 'p99 latency under that load', unit: 'ms', values: p99 });
  },
};

/** GET and PUT of a ~20 MB notebook whose bulk is PNG outputs; peak RSS of the server over both. */
export const bigNotebookScenario: Scenario = {
  name: 'big-notebook',
  group: 'contents',
  title: 'GET and PUT of a 20 MB notebook with image outputs, and peak server memory',
  budgetMs: 240_000,
  async run(ctx) {
    const name = writeImageNotebook(ctx.root, 'big-20mb.ipynb', 20);
    const runs = ctx.size(5, 2);
    const get: Partial<Record<Subject, number>> = {};
    const put: Partial<Record<Subject, number>> = {};
    const peak: Partial<Record<Subject, number>> = {};
    const notes: string[] = [];
    for (const kind of ctx.serverKinds()) {
      const result = await ctx.withServer(kind, (server) => measureBigNotebook(server, name, runs));
      get[kind] = median(result.get);
      put[kind] = median(result.put);
      peak[kind] = result.peakGrowth / MB;
      notes.push(`${kind}: idle RSS ${(result.idle / MB).toFixed(0)} MB, peak ${(result.peak / MB).toFixed(0)} MB`);
      ctx.log(
        `${kind}: GET ${result.get.map((t) => t.toFixed(0)).join(', ')} ms; PUT ${result.put.map((t) => t.toFixed(0)).join(', ')} ms; peak RSS ${(result.peak / MB).toFixed(0)} MB`,
      );
    }
    ctx.record({
      metric: `GET 20 MB notebook (median of ${runs})`,
      unit: 'ms',
      values: get,
      targets: [{ kind: 'ratio', against: 'jupyter_server', op: '<=', bound: 0.5, text: '≥2x faster' }],
    });
    ctx.record({
      metric: `PUT 20 MB notebook (median of ${runs})`,
      unit: 'ms',
      values: put,
      targets: [{ kind: 'ratio', against: 'jupyter_server', op: '<=', bound: 0.5, text: '≥2x faster' }],
    });
    ctx.record({ metric: 'peak RSS growth over idle during GET+PUT', unit: 'MB', values: peak, notes });
  },
};

async function measureBigNotebook(server: ServerHandle, name: string, runs: number) {
  const api = new ApiClient(server.origin, server.token);
  try {
    await new Promise((resolve) => setTimeout(resolve, 500));
    const idle = rss(server.pid);
    const canReset = resetPeakRss(server.pid);
    let sampledPeak = 0;
    // without clear_refs (not root), sample RSS instead of reading the kernel's high-water mark
    const sampler = canReset ? undefined : setInterval(() => (sampledPeak = Math.max(sampledPeak, rss(server.pid))), 5);
    const get: number[] = [];
    const put: number[] = [];
    let body: Buffer | undefined;
    for (let i = 0; i < runs; i++) {
      const res = await api.request('GET', `/api/contents/${name}?type=notebook&content=1`);
      expectOk(res, 'GET /api/contents/<notebook>');
      get.push(res.ms);
      if (!body) {
        const model = JSON.parse(res.body.toString('utf8')) as { content: unknown };
        body = Buffer.from(JSON.stringify({ type: 'notebook', format: 'json', content: model.content }));
      }
      const saved = await api.request('PUT', `/api/contents/saved-${name}`, body);
      expectOk(saved, 'PUT /api/contents/<notebook>');
      put.push(saved.ms);
    }
    if (sampler) clearInterval(sampler);
    const peak = canReset ? peakRss(server.pid) : sampledPeak;
    expectOk(await api.request('DELETE', `/api/contents/saved-${name}`), 'DELETE /api/contents/<notebook>');
    return { get, put, idle, peak, peakGrowth: peak - idle };
  } finally {
    api.close();
  }
}
