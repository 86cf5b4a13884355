import { ensureCliBundle, nbserveBinNote } from '../lib/cli-bundle.js';
import type { BenchContext } from '../lib/context.js';
import { rss } from '../lib/processes.js';
import type { Subject } from '../lib/report.js';
import type { Scenario } from '../lib/scenario.js';
import type { ServerKind } from '../lib/servers.js';
import { addSamples, median } from '../lib/stats.js';

const MB = 1e6;

/** One way to run a server: the shipped nbserve bin, nbserve from source, or a Jupyter server. */
interface Variant {
  label: string;
  kind: ServerKind;
  compiled: boolean;
  env?: Record<string, string>;
}

/**
 * Set on these machines (for their proxy), and read by every Node process before its first line
 * of JavaScript: Node parses the whole CA bundle at start, about 45 ms here (`node -e 0` takes
 * 0.10 s with it, 0.06 s without). An empty value is as if unset.
 */
const EXTRA_CA_CERTS = 'NODE_EXTRA_CA_CERTS';
const WITHOUT_EXTRA_CA = 'nbserve (no NODE_EXTRA_CA_CERTS)';

/**
 * Spawn the server as a user would, poll `GET /api` until it answers 200; then let it idle and
 * read its RSS. nbserve's headline figure is the shipped bin (`packages/cli/dist/nbserve.js`,
 * the one-file bundle an npm install runs, rebuilt here when a source is newer); the sources
 * through tsx (`pnpm nbserve`) are a secondary row. All variants alternate run by run.
 */
export const startScenario: Scenario = {
  name: 'start',
  group: 'server',
  title: 'server start to first answer on /api, and idle memory (RSS of the server process)',
  budgetMs: 180_000,
  async run(ctx) {
    const runs = ctx.size(5, 2);
    const settleMs = ctx.size(2000, 500);
    const bundleProblem = ensureCliBundle((line) => ctx.log(line));
    if (bundleProblem) ctx.fail('nbserve (bundled bin)', bundleProblem);
    const variants: Variant[] = [];
    for (const kind of ctx.serverKinds()) {
      if (kind === 'nbserve' && !bundleProblem) {
        variants.push({ label: 'nbserve', kind, compiled: true });
        if (process.env[EXTRA_CA_CERTS])
          variants.push({ label: WITHOUT_EXTRA_CA, kind, compiled: true, env: { [EXTRA_CA_CERTS]: '' } });
      }
      variants.push({ label: kind === 'nbserve' ? 'nbserve (source)' : kind, kind, compiled: false });
    }
    const times: Record<string, number[]> = {};
    const rssValues: Record<string, number[]> = {};
    // alternate the variants run by run, so load from elsewhere on the machine hits all alike
    for (let i = 0; i < runs; i++) {
      for (const v of variants) {
        await ctx.withServer(
          v.kind,
          async (server) => {
            await new Promise((resolve) => setTimeout(resolve, settleMs));
            addSamples(times, v.label, server.startupMs);
            addSamples(rssValues, v.label, rss(server.pid));
          },
          { compiled: v.compiled, ...(v.env ? { env: v.env } : {}) },
        );
      }
    }
    for (const v of variants) {
      const t = times[v.label];
      const m = rssValues[v.label];
      if (t && m) {
        ctx.log(
          `${v.label}: start ${t.map((x) => x.toFixed(0)).join(', ')} ms; idle RSS ${(median(m) / MB).toFixed(1)} MB`,
        );
      }
    }
    const medians = (samples: Record<string, number[]>, nbserveLabel: string, scale = 1) => {
      const values: Partial<Record<Subject, number>> = {};
      for (const v of variants) {
        const s = samples[v.label];
        if (!s) continue;
        if (v.label === nbserveLabel) values.nbserve = median(s) / scale;
        else if (v.kind !== 'nbserve') values[v.kind as Subject] = median(s) / scale;
      }
      return values;
    };
    const shipped = bundleProblem ? 'nbserve (source)' : 'nbserve';
    const shippedNote = nbserveBinNote(bundleProblem);
    ctx.record({
      metric: `start to first 200 on /api (median of ${runs})`,
      unit: 'ms',
      values: medians(times, shipped),
      targets: [{ kind: 'ratio', against: 'jupyter_server', op: '<=', bound: 0.25, text: '≥4x faster' }],
      notes: [shippedNote],
    });
    ctx.record({
      metric: 'idle memory (RSS)',
      unit: 'MB',
      values: medians(rssValues, shipped, MB),
      targets: [{ kind: 'ratio', against: 'jupyter_server', op: '<', bound: 1, text: 'less than jupyter_server' }],
      notes: [shippedNote],
    });
    if (!bundleProblem)
      recordFromSource(ctx, runs, medians(times, 'nbserve (source)'), medians(rssValues, 'nbserve (source)', MB));
    if (times[WITHOUT_EXTRA_CA]) {
      ctx.record({
        metric: `start to first 200 on /api, ${EXTRA_CA_CERTS} unset for nbserve only (median of ${runs})`,
        unit: 'ms',
        values: medians(times, WITHOUT_EXTRA_CA),
        notes: [
          `${EXTRA_CA_CERTS} is set in this machine's environment (${process.env[EXTRA_CA_CERTS]}); every Node process then parses that CA bundle before it runs anything. For information: the target is for the run above, in the machine's environment`,
        ],
      });
    }
  },
};

/** The secondary rows: nbserve from TypeScript source through tsx, exactly as `pnpm nbserve`. */
function recordFromSource(
  ctx: BenchContext,
  runs: number,
  start: Partial<Record<Subject, number>>,
  memory: Partial<Record<Subject, number>>,
): void {
  const notes = [
    'nbserve runs from TypeScript source through tsx, exactly as `pnpm nbserve` (development); for information: the targets are for the shipped bin above',
  ];
  ctx.record({
    metric: `start from source through tsx (median of ${runs})`,
    unit: 'ms',
    values: start,
    notes,
  });
  ctx.record({
    metric: 'idle memory (RSS), from source through tsx',
    unit: 'MB',
    values: memory,
    notes,
  });
}
