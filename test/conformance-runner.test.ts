import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO } from '../testing/repo.js';
import { makeTempDir } from '../testing/temp.js';

/** Runs a command, resolving with its exit code and output whatever the code. */
function run(
  file: string,
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(file, args, { cwd: REPO, env: { ...process.env, ...env }, timeout: 120_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

const REPORT = path.join(REPO, 'scripts/conformance/report.py');
const lastLine = (text: string) => text.trimEnd().split('\n').at(-1);

describe('scripts/conformance/report.py', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await makeTempDir('nbserve-conformance-report-');
  });
  afterAll(() => fs.rm(dir, { recursive: true, force: true }));

  /** A result file as the pytest plugin writes it, and its pytest log beside it. */
  async function result(name: string, results: Record<string, string>, exitstatus = 1): Promise<string> {
    const file = path.join(dir, `${name}.json`);
    const entries = Object.entries(results).map(([id, outcome]) => [id, { outcome, message: `${outcome} here` }]);
    await fs.writeFile(file, JSON.stringify({ exitstatus, results: Object.fromEntries(entries) }));
    await fs.writeFile(path.join(dir, `${name}.log`), `pytest output of ${name}`);
    return file;
  }

  it('accepts exactly the failures docs/compatibility.md allows, in every test class, and ends with the summary', async () => {
    const docs = path.join(REPO, 'docs/compatibility.md');
    const file = await result('allowed', {
      'contents/tests/test_contents_api.py::APITest::test_copy_dir_400': 'failed',
      'contents/tests/test_contents_api.py::GenericFileCheckpointsAPITest::test_copy_dir_400': 'failed',
      'contents/tests/test_contents_api.py::APITest::test_copy': 'passed',
      'api/tests/test_api.py::APITest::test_get_status': 'skipped',
    });
    const out = await run('/usr/bin/python3', [REPORT, docs, file]);
    expect(out.code, out.stdout).toBe(0);
    expect(out.stdout).toContain('allowed  FAILED  contents/tests/test_contents_api.py::APITest::test_copy_dir_400');
    expect(out.stdout).not.toContain('pytest output of allowed');
    expect(lastLine(out.stdout)).toBe('conformance: 1 passed, 2 failed, 0 errors of 3');
  });

  it('fails on any other failure or error, and shows pytest’s report of that run', async () => {
    const docs = path.join(dir, 'compatibility.md');
    await fs.writeFile(docs, 'Allowed failures: `contents/tests/test_contents_api.py::test_copy_dir_400`\n');
    const ok = await result('ok', { 'contents/tests/test_contents_api.py::APITest::test_copy_dir_400': 'failed' });
    const bad = await result('bad', {
      // the same test name in another file is not allowed
      'kernels/tests/test_kernels_api.py::KernelAPITest::test_copy_dir_400': 'failed',
      'kernels/tests/test_kernels_api.py::KernelAPITest::test_main_kernel_handler': 'error',
    });
    const out = await run('/usr/bin/python3', [REPORT, docs, ok, bad]);
    expect(out.code).toBe(1);
    expect(out.stdout).toContain(
      'FAILED   kernels/tests/test_kernels_api.py::KernelAPITest::test_copy_dir_400 :: failed here',
    );
    expect(out.stdout).toContain('ERROR    kernels/tests/test_kernels_api.py::KernelAPITest::test_main_kernel_handler');
    expect(out.stdout).toContain('pytest output of bad');
    expect(out.stdout).not.toContain('pytest output of ok');
    expect(lastLine(out.stdout)).toBe('conformance: 0 passed, 2 failed, 1 errors of 3');
  });

  it('fails when a run left no result, or pytest itself broke, or nothing ran', async () => {
    const docs = path.join(REPO, 'docs/compatibility.md');
    const passed = await result('passed', { 'config/tests/test_config_api.py::APITest::test_modify': 'passed' }, 0);
    const missing = await run('/usr/bin/python3', [REPORT, docs, passed, path.join(dir, 'never-written.json')]);
    expect(missing.code).toBe(1);
    expect(missing.stdout).toContain('BROKEN');
    const crashed = await result('crashed', {}, 3);
    expect((await run('/usr/bin/python3', [REPORT, docs, passed, crashed])).code).toBe(1);
    const nothing = await run('/usr/bin/python3', [REPORT, docs, await result('empty', {}, 5)]);
    expect(nothing.code).toBe(1);
    expect(lastLine(nothing.stdout)).toBe('conformance: 0 passed, 0 failed, 0 errors of 0');
  });
});

describe('scripts/conformance.sh', () => {
  it('runs a Notebook 6.4 test file against nbserve under /a%40b/ and passes', async () => {
    const out = await run('bash', ['scripts/conformance.sh'], {
      CONFORMANCE_SKIP_BUILD: '1',
      // the sources, so that this test needs no build
      CONFORMANCE_NBSERVE: 'node --conditions=@nbserve/source --import tsx packages/cli/src/main.ts',
      CONFORMANCE_FILES: 'config/tests/test_config_api.py',
    });
    expect(out.code, out.stdout + out.stderr).toBe(0);
    expect(lastLine(out.stdout)).toBe('conformance: 3 passed, 0 failed, 0 errors of 3');
  });

  it('fails with the reason when the server does not start', async () => {
    const out = await run('bash', ['scripts/conformance.sh'], {
      CONFORMANCE_SKIP_BUILD: '1',
      CONFORMANCE_NBSERVE: 'node -e process.exit(3)',
      CONFORMANCE_FILES: 'config/tests/test_config_api.py',
    });
    expect(out.code).toBe(1);
    expect(out.stdout).toContain('RuntimeError: nbserve did not start');
    expect(out.stdout).not.toMatch(/--token=[0-9a-f]{32}/);
    expect(lastLine(out.stdout)).toBe('conformance: 0 passed, 0 failed, 3 errors of 3');
  });
});
