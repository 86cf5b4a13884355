import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureCliBundle, nbserveBinNote } from '../lib/cli-bundle.js';
import type { BenchContext } from '../lib/context.js';
import { curlGet } from '../lib/curl.js';
import { writeImageNotebook } from '../lib/fixtures.js';
import { ApiClient, type ApiResponse } from '../lib/http-client.js';
import { cpuTimeMs, peakRss, resetPeakRss, rss } from '../lib/processes.js';
import type { Subject } from '../lib/report.js';
import type { Scenario } from '../lib/scenario.js';
import type { ServerHandle } from '../lib/servers.js';
import { median } from '../lib/stats.js';

const MB = 1e6;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function expectOk(res: ApiResponse, what: string): void {
  if (res.status < 200 || res.status >= 300) {
    throw new Error(`${what} -> ${res.status}: ${res.body.toString('utf8').slice(0, 200)}`);
  }
}

/**
 * The floor, in a fresh Node process: `fs.readFile` + `JSON.parse` of the same file, timed from
 * inside; its peak RSS growth over the RSS before the read (VmHWM reset through clear_refs).
 */
const FLOOR_SCRIPT = `
const { readFile } = require('node:fs/promises');
const { readFileSync, writeFileSync } = require('node:fs');
const field = (name) => Number(new RegExp('^' + name + ':\\\\s+(\\\\d+) kB', 'm').exec(readFileSync('/proc/self/status', 'utf8'))[1]) * 1024;
(async () => {
  try { writeFileSync('/proc/self/clear_refs', '5'); } catch {}
  const before = field('VmRSS');
  const t0 = performance.now();
  const nb = JSON.parse(await readFile(process.argv[1], 'utf8'));
  const ms = performance.now() - t0;
  if (!Array.isArray(nb.cells)) throw new Error('not a notebook');
  process.stdout.write(JSON.stringify({ ms, peak: field('VmHWM') - before }));
})();
`;

function floorRead(path: string): { ms: number; peak: number } {
  const out = spawnSync(process.execPath, ['-e', FLOOR_SCRIPT, path], { encoding: 'utf8' });
  if (out.status !== 0) throw new Error(`floor read failed: ${out.stderr.slice(0, 300)}`);
  return JSON.parse(out.stdout) as { ms: number; peak: number };
}

/**
 * A 20 MB notebook that another program (the bench) has just written — in the OS page cache,
 * never read by the server — opened once with GET, then saved back with PUT; each run a new file.
 */
export const coldOpenScenario: Scenario = {
  name: 'cold-open',
  group: 'contents',
  title: 'first GET of a 20 MB notebook written by another program, then PUT; peak server memory',
  budgetMs: 300_000,
  async run(ctx: BenchContext) {
    const runs = ctx.size(5, 2);
    const source = join(ctx.root, writeImageNotebook(ctx.root, 'cold-source.ipynb', 20));
    const bytes = readFileSync(source);
    rmSync(source);
    // saved back as stored (lines split, as a client may send them), built without a parse
    const putBody = Buffer.concat([
      Buffer.from('{"type":"notebook","format":"json","content":'),
      bytes,
      Buffer.from('}'),
    ]);
    const get: Partial<Record<Subject, number>> = {};
    const peak: Partial<Record<Subject, number>> = {};
    const cpu: Partial<Record<Subject, number>> = {};
    const notes: string[] = [];
    let file = 0;
    const freshFile = () => {
      const name = `cold-${++file}.ipynb`;
      writeFileSync(join(ctx.root, name), bytes);
      return name;
    };
    const floorTimes: number[] = [];
    const floorPeaks: number[] = [];
    for (let i = 0; i < runs; i++) {
      const name = freshFile();
      const floor = floorRead(join(ctx.root, name));
      floorTimes.push(floor.ms);
      floorPeaks.push(floor.peak);
      rmSync(join(ctx.root, name));
    }
    get.floor = median(floorTimes);
    peak.floor = median(floorPeaks) / MB;
    ctx.log(`floor: ${floorTimes.map((t) => t.toFixed(0)).join(', ')} ms`);
    const bundleProblem = ensureCliBundle((line) => ctx.log(line));
    if (bundleProblem) ctx.fail('nbserve (bundled bin)', bundleProblem);
    for (const kind of ctx.serverKinds()) {
      const result = await ctx.withServer(kind, (server) => measureColdOpens(server, runs, freshFile, putBody), {
        compiled: kind === 'nbserve' && !bundleProblem,
      });
      get[kind] = median(result.get);
      peak[kind] = median(result.peak) / MB;
      cpu[kind] = median(result.cpu);
      ctx.log(
        `${kind}: GET ${result.get.map((t) => t.toFixed(0)).join(', ')} ms; PUT ${result.put.map((t) => t.toFixed(0)).join(', ')} ms; ` +
          `peak RSS growth ${result.peak.map((p) => (p / MB).toFixed(0)).join(', ')} MB; CPU per GET ${result.cpu.join(', ')} ms`,
      );
      notes.push(`${kind}: idle RSS ${(result.idle / MB).toFixed(0)} MB`);
    }
    ctx.record({
      metric: `first GET of a 20 MB notebook just written by another program (median of ${runs})`,
      unit: 'ms',
      values: get,
      targets: [{ kind: 'ratio', against: 'jupyter_server', op: '<=', bound: 0.3, text: '≤0.3x jupyter_server' }],
      notes: [
        'floor: fs.readFile + JSON.parse of the same file in a fresh Node process',
        'the GETs are timed by curl (connect to last byte, body discarded): the Node client added 350-450 ms to either server',
        nbserveBinNote(bundleProblem),
      ],
    });
    ctx.record({
      metric: 'server CPU time for that GET',
      unit: 'ms',
      values: cpu,
      notes: [
        'user + system time of the server process from /proc (10 ms ticks): less sensitive to load from elsewhere than the wall-clock time',
      ],
    });
    ctx.record({
      metric: 'peak RSS over idle (before the first open) during that GET and a PUT of it',
      unit: 'MB',
      values: peak,
      targets: [{ kind: 'ratio', against: 'jupyter_server', op: '<=', bound: 1, text: '≤ jupyter_server' }],
      notes: [...notes, 'floor: VmHWM growth of the fresh Node process over readFile + JSON.parse'],
    });
  },
};

async function measureColdOpens(server: ServerHandle, runs: number, freshFile: () => string, body: Buffer) {
  const api = new ApiClient(server.origin, server.token);
  const get: number[] = [];
  const put: number[] = [];
  const peak: number[] = [];
  const cpu: number[] = [];
  try {
    await sleep(1000);
    // what the server holds after an open (caches, a grown heap) counts in the next run's peak
    const idle = rss(server.pid);
    for (let i = 0; i < runs; i++) {
      const name = freshFile();
      await sleep(1000);
      if (!resetPeakRss(server.pid)) throw new Error('cannot reset VmHWM (/proc/<pid>/clear_refs needs root)');
      const cpu0 = cpuTimeMs(server.pid);
      const res = await curlGet(server.origin, server.token, `/api/contents/${name}?type=notebook&content=1`);
      if (res.status !== 200) throw new Error(`GET /api/contents/<notebook> -> ${res.status}`);
      get.push(res.ms);
      cpu.push(cpuTimeMs(server.pid) - cpu0);
      const saved = await api.request('PUT', `/api/contents/${name}`, body);
      expectOk(saved, 'PUT /api/contents/<notebook>');
      put.push(saved.ms);
      peak.push(peakRss(server.pid) - idle);
      expectOk(await api.request('DELETE', `/api/contents/${name}`), 'DELETE /api/contents/<notebook>');
    }
    return { get, put, peak, idle, cpu };
  } finally {
    api.close();
  }
}
