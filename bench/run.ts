import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BenchContext } from './lib/context.js';
import { killAllGroups, killProcessesMentioning } from './lib/processes.js';
import { renderTable, writeResults } from './lib/report.js';
import type { Scenario } from './lib/scenario.js';
import { REPO_ROOT, removeTempDirs, runDirectory, tempDir } from './lib/workspace.js';
import { SCENARIOS } from './scenarios/index.js';
import { FLOOD_KERNEL } from './scenarios/iopub.js';

const USAGE = `usage: pnpm bench [--quick] [--no-jupyter] [--profile] [scenario-or-group ...]

groups:    ${[...new Set(SCENARIOS.map((s) => s.group))].join(', ')}
scenarios: ${SCENARIOS.map((s) => s.name).join(', ')}

--quick       smaller inputs and shorter runs (a smoke test of the harness, ~4 min)
--no-jupyter  skip the jupyter_server / Notebook 6.4 comparison runs
--profile     run nbserve under node --cpu-prof; profiles go to bench/results/profiles/<scenario>/
              (summarise one with: node --import tsx bench/profile-summary.ts <file.cpuprofile>)

Any failure (a server that does not start, a request answered with an unexpected status, a missing
prerequisite) is printed as FAILED <scenario>: <subject>: <request> and makes the run exit 1.

environment: NBSERVE_BENCH_CLI=<file> measures another nbserve entry point with the same flags;
             NBSERVE_BENCH_RESULTS=<dir> writes latest.json and latest.md there (default bench/results)`;

function parseArgs(argv: string[]): { quick: boolean; jupyter: boolean; profile: boolean; selected: Scenario[] } {
  let quick = false;
  let profile = false;
  let jupyter = true;
  const names: string[] = [];
  for (const arg of argv) {
    if (arg === '--') continue;
    if (arg === '--quick') quick = true;
    else if (arg === '--no-jupyter') jupyter = false;
    else if (arg === '--profile') profile = true;
    else if (arg === '--help' || arg === '-h') {
      console.log(USAGE);
      process.exit(0);
    } else if (arg.startsWith('-')) {
      console.error(`unknown option ${arg}\n\n${USAGE}`);
      process.exit(2);
    } else names.push(arg);
  }
  const selected =
    names.length === 0 ? SCENARIOS : SCENARIOS.filter((s) => names.includes(s.name) || names.includes(s.group));
  const unknown = names.filter((n) => !SCENARIOS.some((s) => s.name === n || s.group === n));
  if (unknown.length > 0) {
    console.error(`unknown scenario or group: ${unknown.join(', ')}\n\n${USAGE}`);
    process.exit(2);
  }
  return { quick, jupyter, profile, selected };
}

const FLOOD_FIXTURE = join(REPO_ROOT, 'testing/flood-kernelspec.ts');

/**
 * Kernelspecs only the bench uses, visible to every server through JUPYTER_PATH: the kernels
 * engineer's Node flood kernel (a test fixture), when it exists in this tree.
 */
async function writeBenchKernelspecs(): Promise<string> {
  const dir = tempDir('jupyter-path-');
  mkdirSync(join(dir, 'kernels'), { recursive: true });
  if (existsSync(FLOOD_FIXTURE)) {
    const fixture = (await import(pathToFileURL(FLOOD_FIXTURE).href)) as {
      writeFloodKernelSpec(kernelsDir: string, name: string): Promise<string>;
    };
    await fixture.writeFloodKernelSpec(join(dir, 'kernels'), FLOOD_KERNEL);
  }
  return dir;
}

function cleanupEverything(): void {
  killAllGroups();
  // kernels started by servers live in their own groups; their connection files name our temp dirs
  killProcessesMentioning(runDirectory());
  removeTempDirs();
}

async function main(): Promise<void> {
  const { quick, jupyter, profile, selected } = parseArgs(process.argv.slice(2));
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      cleanupEverything();
      process.exit(130);
    });
  }
  const compareJupyter = jupyter && existsSync('/usr/bin/python3') && pythonHas('jupyter_server');
  const profileDir = profile ? join(REPO_ROOT, 'bench/results/profiles') : undefined;
  const ctx = new BenchContext(quick, compareJupyter, tempDir('root-'), await writeBenchKernelspecs(), profileDir);
  const started = performance.now();
  console.log(
    `nbserve bench: ${selected.map((s) => s.name).join(', ')}${quick ? ' (quick)' : ''}; ` +
      `jupyter_server comparison ${compareJupyter ? 'on' : 'off'}`,
  );
  const errors: string[] = [];
  for (const scenario of selected) {
    ctx.scenario = scenario.name;
    console.log(`\n== ${scenario.name}: ${scenario.title}`);
    const t0 = performance.now();
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        scenario.run(ctx),
        new Promise((_, reject) => {
          timer = setTimeout(
            () => reject(new Error(`over its budget of ${scenario.budgetMs / 1000} s`)),
            scenario.budgetMs,
          );
        }),
      ]);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      errors.push(`${scenario.name}: ${message}`);
      console.log(`  [${scenario.name}] ERROR: ${message}`);
      killAllGroups();
      killProcessesMentioning(runDirectory());
    } finally {
      clearTimeout(timer);
    }
    console.log(`  (${((performance.now() - t0) / 1000).toFixed(1)} s)`);
  }
  const durationS = (performance.now() - started) / 1000;
  console.log(`\n${renderTable(ctx.rows)}\n`);
  const failures = [...ctx.failures, ...errors];
  for (const line of failures) console.log(`FAILED ${line}`);
  const file = writeResults(process.env.NBSERVE_BENCH_RESULTS ?? join(REPO_ROOT, 'bench/results'), {
    command: `pnpm bench ${process.argv.slice(2).join(' ')}`.trim(),
    quick,
    rows: ctx.rows,
    failures,
    durationS,
  });
  console.log(`\n${ctx.rows.length} figures in ${durationS.toFixed(0)} s -> ${file}`);
  if (failures.length > 0) console.log(`${failures.length} failure(s): the run failed`);
  cleanupEverything();
  process.exitCode = failures.length > 0 ? 1 : 0;
}

function pythonHas(module: string): boolean {
  return existsSync(`/usr/lib/python3/dist-packages/${module}`);
}

main().catch((error) => {
  console.error(error);
  cleanupEverything();
  process.exit(1);
});
