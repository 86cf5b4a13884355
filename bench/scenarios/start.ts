import type { BenchContext } from '../lib/context.js';
import { rss } from '../lib/processes.js';
import type { Subject } from '../lib/report.js';
import type { Scenario } from '../lib/scenario.js';
import { compiledCliProblem } from '../lib/servers.js';
import { addSamples, median } from '../lib/stats.js';

const MB = 1e6;

/** Spawn the server as a user would, poll `GET /api` until it answers 200; then let it idle and read its RSS. */
export const startScenario: Scenario = {
  name: 'start',
  group: 'server',
  title: 'server start to first answer on /api, and idle memory (RSS of the server process)',
  budgetMs: 180_000,
  async run(ctx) {
    const runs = ctx.size(5, 2);
    const settleMs = ctx.size(2000, 500);
    const startup: Partial<Record<Subject, number>> = {};
    const memory: Partial<Record<Subject, number>> = {};
    const times: Partial<Record<Subject, number[]>> = {};
    const rssValues: Partial<Record<Subject, number[]>> = {};
    const failed = new Set<string>();
    // alternate the servers run by run, so load from elsewhere on the machine hits both alike
    for (let i = 0; i < runs; i++) {
      for (const kind of ctx.serverKinds()) {
        if (failed.has(kind)) continue;
        const ok = await ctx.withServer(kind, async (server) => {
          await new Promise((resolve) => setTimeout(resolve, settleMs));
          addSamples(times, kind, server.startupMs);
          addSamples(rssValues, kind, rss(server.pid));
          return true;
        });
        if (!ok) failed.add(kind);
      }
    }
    for (const kind of ctx.serverKinds()) {
      const t = times[kind];
      const m = rssValues[kind];
      if (!t || !m) continue;
      startup[kind] = median(t);
      memory[kind] = median(m) / MB;
      ctx.log(`${kind}: start ${t.map((x) => x.toFixed(0)).join(', ')} ms; idle RSS ${memory[kind]?.toFixed(1)} MB`);
    }
    ctx.record({
      metric: `start to first 200 on /api (median of ${runs})`,
      unit: 'ms',
      values: startup,
      targets: [{ kind: 'ratio', against: 'jupyter_server', op: '<=', bound: 0.25, text: '≥4x faster' }],
      notes: ['nbserve runs from TypeScript source through tsx, exactly as `pnpm nbserve`'],
    });
    await measureCompiled(ctx, runs, settleMs, startup, memory.jupyter_server);
    ctx.record({
      metric: 'idle memory (RSS)',
      unit: 'MB',
      values: memory,
      targets: [{ kind: 'ratio', against: 'jupyter_server', op: '<', bound: 1, text: 'less than jupyter_server' }],
    });
  },
};

/** The compiled CLI (`node packages/cli/dist/main.js`, what an npm install runs), when dist/ is current. */
async function measureCompiled(
  ctx: BenchContext,
  runs: number,
  settleMs: number,
  fromSource: Partial<Record<Subject, number>>,
  jupyterMemory: number | undefined,
): Promise<void> {
  // others edit sources all the time: a build a few edits behind still starts the same way, so it
  // is measured and the lag is noted; only a missing build makes the row unavailable
  const problem = compiledCliProblem();
  if (problem?.includes('does not exist') || problem?.includes('has not been built')) {
    ctx.markUnavailable('nbserve (compiled)', problem);
    return;
  }
  const times: number[] = [];
  const rssValues: number[] = [];
  for (let i = 0; i < runs; i++) {
    const ok = await ctx.withServer(
      'nbserve',
      async (server) => {
        await new Promise((resolve) => setTimeout(resolve, settleMs));
        times.push(server.startupMs);
        rssValues.push(rss(server.pid));
        return true;
      },
      { compiled: true },
    );
    if (!ok) return;
  }
  ctx.log(
    `nbserve (compiled): start ${times.map((x) => x.toFixed(0)).join(', ')} ms; idle RSS ${(median(rssValues) / MB).toFixed(1)} MB`,
  );
  const values: Partial<Record<Subject, number>> = { nbserve: median(times) };
  if (fromSource.jupyter_server !== undefined) values.jupyter_server = fromSource.jupyter_server;
  const memory: Partial<Record<Subject, number>> = { nbserve: median(rssValues) / MB };
  if (jupyterMemory !== undefined) memory.jupyter_server = jupyterMemory;
  ctx.record({
    metric: `start, compiled JS without tsx (median of ${runs})`,
    unit: 'ms',
    values,
    targets: [{ kind: 'ratio', against: 'jupyter_server', op: '<=', bound: 0.25, text: '≥4x faster' }],
    notes: [
      'node packages/cli/dist/main.js: the JavaScript an installed nbserve runs',
      ...(problem ? [`measured although ${problem}`] : []),
    ],
  });
  ctx.record({
    metric: 'idle memory (RSS), compiled JS',
    unit: 'MB',
    values: memory,
    targets: [{ kind: 'ratio', against: 'jupyter_server', op: '<', bound: 1, text: 'less than jupyter_server' }],
  });
}
