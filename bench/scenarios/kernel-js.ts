import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchContext } from '../lib/context.js';
import { ApiClient } from '../lib/http-client.js';
import { executeToIdle } from '../lib/kernel-client.js';
import { kernelspecArgv, launchDirect } from '../lib/kernels.js';
import type { Subject } from '../lib/report.js';
import type { Scenario } from '../lib/scenario.js';
import { median, percentile } from '../lib/stats.js';
import { REPO_ROOT, tempDir } from '../lib/workspace.js';

/**
 * The built-in kernel's command line, found the way a user would: `nbserve kernelspec install
 * --prefix`, else the `javascript` spec a running nbserve reports on /api/kernelspecs.
 */
async function javascriptArgv(ctx: BenchContext): Promise<string[] | string> {
  const prefix = tempDir('kernelspec-');
  const install = spawnSync(
    process.execPath,
    [
      '--conditions=@nbserve/source',
      '--import',
      'tsx',
      join(REPO_ROOT, 'packages/cli/src/main.ts'),
      'kernelspec',
      'install',
      '--prefix',
      prefix,
    ],
    { cwd: REPO_ROOT, encoding: 'utf8', timeout: 30_000 },
  );
  const file = join(prefix, 'share/jupyter/kernels/javascript/kernel.json');
  if (install.status === 0 && existsSync(file))
    return (JSON.parse(readFileSync(file, 'utf8')) as { argv: string[] }).argv;
  const fromServer = await ctx.withServer('nbserve', async (server) => {
    const api = new ApiClient(server.origin, server.token);
    try {
      const res = await api.request('GET', '/api/kernelspecs/javascript');
      if (res.status !== 200) return undefined;
      return (JSON.parse(res.body.toString('utf8')) as { spec?: { argv?: string[] } }).spec?.argv;
    } finally {
      api.close();
    }
  });
  return (
    fromServer ??
    `\`nbserve kernelspec install\` failed: ${(install.stderr || install.stdout || '').trim().slice(0, 200)}`
  );
}

async function measureKernel(argv: string[], starts: number, executes: number) {
  const startTimes: number[] = [];
  const roundTrips: number[] = [];
  for (let i = 0; i < starts; i++) {
    const t0 = performance.now();
    const kernel = await launchDirect(argv);
    try {
      await kernel.client.kernelInfo();
      startTimes.push(performance.now() - t0);
      if (i === 0) {
        for (let w = 0; w < 10; w++) await executeToIdle(kernel.client, '1+1');
        for (let n = 0; n < executes; n++) {
          const result = await executeToIdle(kernel.client, '1+1');
          if ((result.counts.execute_result ?? 0) !== 1) throw new Error('1+1 produced no execute_result');
          roundTrips.push(result.ms);
        }
      }
    } finally {
      await kernel.stop();
    }
  }
  return { startTimes, roundTrips };
}

/** The JavaScript kernel and ipykernel, each launched directly and driven over ZeroMQ by the same client. */
export const kernelJsScenario: Scenario = {
  name: 'kernel-js',
  group: 'kernel-js',
  title: 'built-in JavaScript kernel vs ipykernel: start to kernel_info_reply, `1+1` round trip (direct ZMQ)',
  budgetMs: 180_000,
  async run(ctx) {
    const argv = await javascriptArgv(ctx);
    if (typeof argv === 'string') {
      ctx.markUnavailable('kernel-js', argv);
      return;
    }
    const starts = ctx.size(5, 2);
    const executes = ctx.size(200, 50);
    const start: Partial<Record<Subject, number>> = {};
    const rtt: Partial<Record<Subject, number>> = {};
    const p99: Partial<Record<Subject, number>> = {};
    const kernels: Array<[Subject, string[]]> = [
      ['kernel-js', argv],
      ['ipykernel', kernelspecArgv('python3', ctx.jupyterPath)],
    ];
    for (const [who, kernelArgv] of kernels) {
      const m = await measureKernel(kernelArgv, starts, executes);
      start[who] = median(m.startTimes);
      rtt[who] = median(m.roundTrips);
      p99[who] = percentile(m.roundTrips, 99);
      ctx.log(
        `${who}: start ${m.startTimes.map((t) => t.toFixed(0)).join(', ')} ms; 1+1 median ${rtt[who]?.toFixed(2)} ms, p99 ${p99[who]?.toFixed(2)} ms`,
      );
    }
    ctx.record({
      metric: `start to kernel_info_reply (median of ${starts})`,
      unit: 'ms',
      primary: 'kernel-js',
      values: start,
      targets: [{ kind: 'ratio', against: 'ipykernel', op: '<=', bound: 1 / 3, text: '≥3x faster than ipykernel' }],
    });
    ctx.record({
      metric: `\`1+1\` round trip, median of ${executes}`,
      unit: 'ms',
      primary: 'kernel-js',
      values: rtt,
      targets: [{ kind: 'ratio', against: 'ipykernel', op: '<=', bound: 1, text: 'no slower than ipykernel' }],
    });
    ctx.record({ metric: '`1+1` round trip, p99', unit: 'ms', primary: 'kernel-js', values: p99 });
  },
};
