import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { staleBuildProblem } from '../lib/freshness.js';
import { executeToIdle } from '../lib/kernel-client.js';
import { kernelspecArgv, launchDirect } from '../lib/kernels.js';
import type { Subject } from '../lib/report.js';
import type { Scenario } from '../lib/scenario.js';
import { median, percentile } from '../lib/stats.js';
import { REPO_ROOT } from '../lib/workspace.js';

const KERNELSPECS_MODULE = join(REPO_ROOT, 'packages/kernel-js/src/kernelspecs.ts');
const COMPILED_KERNEL = join(REPO_ROOT, 'packages/kernel-js/dist/main.js');
/** What the `dist` kernelspec runs when it exists (`pnpm build` makes it; see kernelspecs.ts). */
const KERNEL_BUNDLE = join(REPO_ROOT, 'packages/kernel-js/dist/kernel/main.cjs');
const BUNDLED_SOURCES = ['packages/kernel-js/src', 'packages/core/src/protocol', 'packages/core/src/errors.ts'];

/**
 * Rebuilds the kernel bundle (esbuild only, about a second) when a source it is made of is newer,
 * so the compiled row measures the current code, not whatever `pnpm build` last produced.
 */
function ensureKernelBundle(log: (line: string) => void): void {
  const built = existsSync(KERNEL_BUNDLE) ? statSync(KERNEL_BUNDLE).mtimeMs : 0;
  const newer = BUNDLED_SOURCES.map((p) => join(REPO_ROOT, p)).find((p) => {
    if (!existsSync(p)) return false;
    if (!statSync(p).isDirectory()) return statSync(p).mtimeMs > built;
    return readdirSync(p, { recursive: true, encoding: 'utf8' }).some(
      (f) => f.endsWith('.ts') && statSync(join(p, f)).mtimeMs > built,
    );
  });
  if (built && !newer) return;
  log(`bundling the kernel (${built ? `${newer} changed` : 'no dist/kernel/main.cjs'})`);
  execFileSync(process.execPath, ['scripts/bundle-kernel.mjs', 'dist/kernel'], {
    cwd: join(REPO_ROOT, 'packages/kernel-js'),
    stdio: 'pipe',
  });
}

interface KernelJsSpecs {
  builtinKernelSpecs(options: { mode: 'source' | 'dist' }): Array<{ name: string; spec: { argv: string[] } }>;
}

/**
 * The built-in kernel's command line exactly as nbserve offers it: from the kernel-js package's
 * own kernelspec definitions, in `source` mode (tsx, what `pnpm nbserve` runs) and in `dist`
 * mode (compiled JS, what an installed nbserve runs) when dist/ is current.
 */
async function javascriptArgvs(): Promise<{ source?: string[]; dist?: string[]; problem?: string }> {
  if (!existsSync(KERNELSPECS_MODULE)) return { problem: 'packages/kernel-js/src/kernelspecs.ts not found' };
  const specs = (await import(pathToFileURL(KERNELSPECS_MODULE).href)) as KernelJsSpecs;
  const argv = (mode: 'source' | 'dist') =>
    specs.builtinKernelSpecs({ mode }).find((s) => s.name === 'javascript')?.spec.argv;
  const stale = staleBuildProblem(COMPILED_KERNEL, ['core', 'kernel-js']);
  const source = argv('source');
  // a build a few edits behind starts the same way: measure it unless it is missing
  const dist = stale?.includes('does not exist') || stale?.includes('has not been built') ? undefined : argv('dist');
  return {
    ...(source ? { source } : {}),
    ...(dist ? { dist } : {}),
    ...(stale ? { problem: stale } : {}),
  };
}

interface Measured {
  startTimes: number[];
  roundTrips: number[];
}

/** One start (and, on the first, the `1+1` round trips) of one kernel, added to `into`. */
async function measureStart(argv: string[], first: boolean, executes: number, into: Measured): Promise<void> {
  const t0 = performance.now();
  const kernel = await launchDirect(argv);
  try {
    await kernel.client.kernelInfo();
    into.startTimes.push(performance.now() - t0);
    if (first) {
      for (let w = 0; w < 10; w++) await executeToIdle(kernel.client, '1+1');
      for (let n = 0; n < executes; n++) {
        const result = await executeToIdle(kernel.client, '1+1');
        if ((result.counts.execute_result ?? 0) !== 1) throw new Error('1+1 produced no execute_result');
        into.roundTrips.push(result.ms);
      }
    }
  } finally {
    await kernel.stop();
  }
}

/** The JavaScript kernel and ipykernel, each launched directly and driven over ZeroMQ by the same client. */
export const kernelJsScenario: Scenario = {
  name: 'kernel-js',
  group: 'kernel-js',
  title: 'built-in JavaScript kernel vs ipykernel: start to kernel_info_reply, `1+1` round trip (direct ZMQ)',
  budgetMs: 180_000,
  async run(ctx) {
    try {
      ensureKernelBundle((line) => ctx.log(line));
    } catch (error) {
      ctx.log(`kernel bundle could not be built: ${(error as { stderr?: Buffer }).stderr?.toString() ?? error}`);
    }
    const argvs = await javascriptArgvs();
    if (!argvs.source) {
      ctx.fail('kernel-js', argvs.problem ?? 'no javascript kernelspec');
      return;
    }
    if (!argvs.dist) ctx.fail('kernel-js (compiled)', argvs.problem ?? 'no dist kernelspec');
    const starts = ctx.size(5, 2);
    const executes = ctx.size(200, 50);
    const start: Partial<Record<Subject, number>> = {};
    const rtt: Partial<Record<Subject, number>> = {};
    const p99: Partial<Record<Subject, number>> = {};
    const kernels: Array<[Subject, string, string[]]> = [
      ['kernel-js', 'kernel-js (source, tsx)', argvs.source],
      ['ipykernel', 'ipykernel', kernelspecArgv('python3', ctx.jupyterPath)],
    ];
    if (argvs.dist) kernels.push(['kernel-js', 'kernel-js (compiled)', argvs.dist]);
    const compiled: Partial<Record<Subject, number>> = {};
    // Round robin (one start of each kernel per round), so load from other work on the machine
    // falls on every kernel alike instead of on whichever happened to be measured then.
    const measured = kernels.map((): Measured => ({ startTimes: [], roundTrips: [] }));
    for (let round = 0; round < starts; round++) {
      for (const [k, [, , kernelArgv]] of kernels.entries()) {
        await measureStart(kernelArgv, round === 0, executes, measured[k] as Measured);
      }
    }
    for (const [k, [who, label]] of kernels.entries()) {
      const m = measured[k] as Measured;
      const into = label === 'kernel-js (compiled)' ? compiled : start;
      into[who] = median(m.startTimes);
      if (into === start) {
        rtt[who] = median(m.roundTrips);
        p99[who] = percentile(m.roundTrips, 99);
      }
      ctx.log(
        `${label}: start ${m.startTimes.map((t) => t.toFixed(0)).join(', ')} ms; 1+1 median ${median(m.roundTrips).toFixed(2)} ms, p99 ${percentile(m.roundTrips, 99).toFixed(2)} ms`,
      );
    }
    if (compiled['kernel-js'] !== undefined && start.ipykernel !== undefined) {
      ctx.record({
        metric: `start to kernel_info_reply, shipped bundle dist/kernel/main.cjs (median of ${starts})`,
        unit: 'ms',
        primary: 'kernel-js',
        values: { 'kernel-js': compiled['kernel-js'], ipykernel: start.ipykernel },
        targets: [{ kind: 'ratio', against: 'ipykernel', op: '<=', bound: 1 / 3, text: '≥3x faster than ipykernel' }],
      });
    }
    ctx.record({
      metric: `start to kernel_info_reply, from source via tsx (median of ${starts})`,
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
