import { rss } from '../lib/processes.js';
import type { Subject } from '../lib/report.js';
import type { Scenario } from '../lib/scenario.js';
import { median } from '../lib/stats.js';

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
    for (const kind of ctx.serverKinds()) {
      const times: number[] = [];
      const rssValues: number[] = [];
      for (let i = 0; i < runs; i++) {
        const ok = await ctx.withServer(kind, async (server) => {
          times.push(server.startupMs);
          await new Promise((resolve) => setTimeout(resolve, settleMs));
          rssValues.push(rss(server.pid));
          return true;
        });
        if (!ok) break;
      }
      if (times.length === 0) continue;
      startup[kind] = median(times);
      memory[kind] = median(rssValues) / MB;
      ctx.log(
        `${kind}: start ${times.map((t) => t.toFixed(0)).join(', ')} ms; idle RSS ${memory[kind]?.toFixed(1)} MB`,
      );
    }
    ctx.record({
      metric: `start to first 200 on /api (median of ${runs})`,
      unit: 'ms',
      values: startup,
      targets: [{ kind: 'ratio', against: 'jupyter_server', op: '<=', bound: 0.25, text: '≥4x faster' }],
      notes: ['nbserve runs from TypeScript source through tsx, exactly as `pnpm nbserve`'],
    });
    ctx.record({
      metric: 'idle memory (RSS)',
      unit: 'MB',
      values: memory,
      targets: [{ kind: 'ratio', against: 'jupyter_server', op: '<', bound: 1, text: 'less than jupyter_server' }],
    });
  },
};
