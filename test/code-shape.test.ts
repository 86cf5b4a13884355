import { promises as fs } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { NEEDS, needsOf } from '../testing/lanes/needs.js';
import { refusedProgram } from '../testing/lanes/refused.mjs';
import { REPO } from '../testing/repo.js';

/** Split a file that grows past this by responsibility, not by arbitrary cuts. */
const MAX_LINES = 450;

/**
 * Modules of ours written to run in a browser too: no Node APIs, and no dependency but those the
 * page has itself (`ycells`: yjs, @jupyter/ydoc and lib0, which the shared notebook needs anyway).
 */
const BROWSER_SAFE_MODULES = new Set([
  '@nbserve/core/html',
  '@nbserve/core/is-object',
  '@nbserve/core/safe-url',
  '@nbserve/core/ycells',
  '@nbserve/core/math',
  '@nbserve/core/render',
  '@nbserve/core/stream-text',
]);

/** Web code that runs in the page: the browser's own, and `shared/` (used by the page and the server). */
const PAGE_DIRS = ['packages/web/src/browser', 'packages/web/src/shared'];

/** Import cycles not cut yet (none now): the test fails on any cycle not listed here. */
const KNOWN_CYCLES: string[][] = [];

/** Every file under `dir`, as paths relative to the repository. */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await fs.readdir(path.join(REPO, dir), { withFileTypes: true, recursive: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => path.relative(REPO, path.join(e.parentPath, e.name)))
    .sort();
}

async function sourceDirs(): Promise<string[]> {
  const packages = await fs.readdir(path.join(REPO, 'packages'), { withFileTypes: true });
  const dirs: string[] = [];
  for (const p of packages) {
    const src = path.join('packages', p.name, 'src');
    if (p.isDirectory() && (await fs.stat(path.join(REPO, src)).catch(() => undefined))?.isDirectory()) dirs.push(src);
  }
  return dirs;
}

/** The modules of @nbserve/* a source file imports or re-exports, and whether only as types. */
function ourImports(text: string): { from: string; typeOnly: boolean }[] {
  const found: { from: string; typeOnly: boolean }[] = [];
  // `import { type A }` is not enough: it may leave the module imported for its side effects.
  for (const [, clause, from] of text.matchAll(/^\s*(?:import|export)\b([^;]*?)from\s+['"](@nbserve\/[^'"]*)['"]/gm))
    found.push({ from: from ?? '', typeOnly: /^\s*type\b/.test(clause ?? '') });
  for (const [, from] of text.matchAll(/import\(\s*['"](@nbserve\/[^'"]*)['"]/g))
    found.push({ from: from ?? '', typeOnly: false });
  return found;
}

/** Every TypeScript file of the product and of the shared test kit. */
async function sourceFiles(): Promise<string[]> {
  const files: string[] = [];
  for (const dir of [...(await sourceDirs()), 'testing']) files.push(...(await filesUnder(dir)));
  return files.filter((file) => file.endsWith('.ts'));
}

/** Whether `text` defines a function named `name` (a declaration or an arrow/function expression). */
function definesFunction(text: string, name: string): boolean {
  return new RegExp(`\\bfunction\\s+${name}\\b|\\b(?:const|let|var)\\s+${name}\\s*[=:]`).test(text);
}

/** `isObject` written out by hand instead of imported. */
const INLINE_IS_OBJECT = /typeof (\w+) === 'object' && \1 !== null && !Array\.isArray\(\1\)/;

/**
 * Every TypeScript file of the tests: each package's `test/` folder, the repository-wide checks in
 * `test/` and the shared kit in `testing/`.
 */
async function testFiles(): Promise<string[]> {
  const packages = await fs.readdir(path.join(REPO, 'packages'), { withFileTypes: true });
  const files: string[] = [];
  for (const p of packages) {
    const test = path.join('packages', p.name, 'test');
    if (p.isDirectory() && (await fs.stat(path.join(REPO, test)).catch(() => undefined))?.isDirectory())
      files.push(...(await filesUnder(test)));
  }
  files.push(...(await filesUnder('test')), ...(await filesUnder('testing')));
  return files.filter((file) => file.endsWith('.ts'));
}

/** The relative modules a file imports or re-exports (statically or with `import()`). */
function relativeImports(text: string): string[] {
  const found: string[] = [];
  for (const [, from] of text.matchAll(/^\s*(?:import|export)\b[^;]*?from\s+['"](\.{1,2}\/[^'"]*)['"]/gm))
    found.push(from ?? '');
  for (const [, from] of text.matchAll(/import\(\s*['"](\.{1,2}\/[^'"]*)['"]/g)) found.push(from ?? '');
  return found;
}

/** `packages/<name>/test/…` -> `<name>`; the repository-wide `test/…` -> `(repo)`; anything else -> undefined. */
function testPackageOf(file: string): string | undefined {
  if (file.startsWith('test/')) return '(repo)';
  return /^packages\/([^/]+)\/test\//.exec(file)?.[1];
}

/** The test token, a string constant named TOKEN: defined in testing/token.ts only. */
const TOKEN_DEFINITION = /^\s*(?:export\s+)?(?:const|let|var)\s+TOKEN\s*=\s*['"`]/m;

/**
 * A helper module (not a test file) that builds an nbserve app for tests: it imports nbserve's
 * http package (or its sources) and calls `createApp`, `serve` or `listen`. Only testing/server.ts
 * may; tests of `serve` itself call it in their own file.
 */
function isServerStarter(file: string, text: string): boolean {
  if (file.endsWith('.test.ts')) return false;
  const http = /from\s+['"](?:@nbserve\/http|(?:\.\.\/)+(?:http\/)?src\/(?:app|serve|index)\.js)['"]/.test(text);
  return http && /(?<![.\w])(?:createApp|serve|listen)\(/.test(text);
}

/** Where each `@nbserve/<package>[/<sub>]` module is in the sources (its `@nbserve/source` export). */
async function sourceExports(): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const p of await fs.readdir(path.join(REPO, 'packages'))) {
    const manifest = path.join(REPO, 'packages', p, 'package.json');
    const json = await fs.readFile(manifest, 'utf8').catch(() => null);
    if (json === null) continue;
    const { name, exports = {} } = JSON.parse(json) as { name: string; exports?: Record<string, unknown> };
    for (const [sub, target] of Object.entries(exports)) {
      const source = (target as Record<string, unknown>)['@nbserve/source'];
      if (typeof source === 'string') out.set(`${name}${sub.slice(1)}`, path.join('packages', p, source));
    }
  }
  return out;
}

/**
 * The source files `file` imports: static, type-only, `import()` and `import('…').T` alike, as
 * TypeScript's own scanner finds them; modules outside the repository's sources are left out.
 */
async function importedSources(file: string, text: string, exported: Map<string, string>): Promise<string[]> {
  const found: string[] = [];
  for (const { fileName } of ts.preProcessFile(text, true, true).importedFiles) {
    if (!fileName.startsWith('.')) {
      const target = exported.get(fileName);
      if (target !== undefined) found.push(target);
      continue;
    }
    const base = path.join(path.dirname(file), fileName).replace(/\.js$/, '');
    for (const candidate of [`${base}.ts`, `${base}.tsx`, path.join(base, 'index.ts')]) {
      if (await fs.stat(path.join(REPO, candidate)).catch(() => null)) {
        found.push(candidate);
        break;
      }
    }
  }
  return found;
}

/** The groups of files that import each other in a circle, each sorted (Tarjan's strongly connected components). */
function importCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (file: string) => {
    order.set(file, order.size);
    low.set(file, order.get(file) as number);
    stack.push(file);
    onStack.add(file);
    for (const next of graph.get(file) ?? []) {
      if (!order.has(next)) visit(next);
      if (onStack.has(next)) low.set(file, Math.min(low.get(file) as number, low.get(next) as number));
    }
    if (low.get(file) !== order.get(file)) return;
    const group: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop() as string;
      onStack.delete(member);
      group.push(member);
    } while (member !== file);
    if (group.length > 1 || graph.get(file)?.includes(file)) cycles.push(group.sort());
  };
  for (const file of graph.keys()) if (!order.has(file)) visit(file);
  return cycles.sort((a, b) => (a[0] as string).localeCompare(b[0] as string));
}

/**
 * Timed waits in the tests: a call of `setTimeout`, `sleep` or `delay` (comments and string
 * literals, such as code sent to a kernel, left out). A test waits for an event (testing/wait.ts)
 * or moves a test clock (testing/clock.ts); what is left is a real-time behaviour under test.
 */
// What is left: waits on which a test checks that something does not happen (nothing reverts, no
// cull, no save over a file), real time measured (CPU, latency), the test kernels' own timers, and
// the kit's poll and deadline (testing/wait.ts). Lower it, never raise it.
const MAX_TIMED_WAITS = 36;
/** Raw `mkdtemp` beside the kit's `makeTempDir` (testing/temp.ts), for tests about temp dirs only. */
const MAX_RAW_MKDTEMP = 3;

const STRING_LITERAL = /'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|`(?:[^`\\]|\\.)*`/g;
const TIMED_WAIT = /(?<![.\w])(?:setTimeout|sleep|delay)\(/g;
const RAW_MKDTEMP = /\bmkdtemp(?:Sync)?\(/g;

/** How often `pattern` occurs in the code of `text`, comment lines and string literals left out. */
function codeMatches(text: string, pattern: RegExp): number {
  let count = 0;
  for (const line of text.split('\n')) {
    if (/^\s*(?:\/\/|\*|\/\*)/.test(line)) continue;
    count += line.replace(STRING_LITERAL, "''").match(pattern)?.length ?? 0;
  }
  return count;
}

/** The relative modules `file` imports, transitively, outside packages' sources (test helpers, testing/). */
async function testHelpersOf(file: string, seen = new Set<string>()): Promise<Set<string>> {
  const text = await fs.readFile(path.join(REPO, file), 'utf8');
  for (const from of relativeImports(text)) {
    const target = path.relative(REPO, path.resolve(REPO, path.dirname(file), from)).replace(/\.js$/, '.ts');
    if (/^packages\/[^/]+\/src\//.test(target) || seen.has(target)) continue;
    if (!(await fs.stat(path.join(REPO, target)).catch(() => undefined))) continue;
    seen.add(target);
    await testHelpersOf(target, seen);
  }
  return seen;
}

function lineCount(text: string): number {
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

describe('the shape of the code', () => {
  it(`keeps every file under packages/*/src at ${MAX_LINES} lines or fewer`, async () => {
    const dirs = await sourceDirs();
    expect(dirs).toEqual(expect.arrayContaining(['packages/core/src', 'packages/web/src']));
    const offenders: string[] = [];
    for (const dir of dirs) {
      for (const file of await filesUnder(dir)) {
        const lines = lineCount(await fs.readFile(path.join(REPO, file), 'utf8'));
        if (lines > MAX_LINES) offenders.push(`${file} (${lines} lines)`);
      }
    }
    expect(offenders).toEqual([]);
  });

  it('imports nothing of our other packages into the page code (browser/, shared/) but types and the dependency-free modules', async () => {
    const values: string[] = [];
    const files = (await Promise.all(PAGE_DIRS.map(filesUnder))).flat();
    expect(files).toEqual(expect.arrayContaining(['packages/web/src/browser/notebook/render-mime.ts']));
    for (const file of files) {
      const text = await fs.readFile(path.join(REPO, file), 'utf8');
      for (const { from, typeOnly } of ourImports(text))
        if (!typeOnly && !BROWSER_SAFE_MODULES.has(from)) values.push(`${file}: ${from}`);
    }
    expect(values).toEqual([]);
  });

  it('has no import cycles in packages/*/src, type-only imports included', async () => {
    const exported = await sourceExports();
    const graph = new Map<string, string[]>();
    for (const dir of await sourceDirs()) {
      for (const file of await filesUnder(dir)) {
        if (!/\.tsx?$/.test(file)) continue;
        graph.set(file, await importedSources(file, await fs.readFile(path.join(REPO, file), 'utf8'), exported));
      }
    }
    expect(graph.get('packages/web/src/browser/notebook/output-area.ts')).toContain(
      'packages/web/src/browser/notebook/render-mime.ts',
    );
    expect(importCycles(graph)).toEqual(KNOWN_CYCLES);
  });

  it('throws NbserveErrors only through the helpers of packages/core/src/errors.ts', async () => {
    const offenders: string[] = [];
    for (const file of await sourceFiles()) {
      if (file === 'packages/core/src/errors.ts') continue;
      const text = await fs.readFile(path.join(REPO, file), 'utf8');
      if (/\bnew\s+NbserveError\s*\(/.test(text)) offenders.push(file);
    }
    expect(offenders).toEqual([]);
  });

  it.each([
    ['isObject', 'packages/core/src/util/is-object.ts'],
    ['escapeHtml', 'packages/core/src/html/escape.ts'],
    ['isSafeUrl', 'packages/core/src/html/safe-url.ts'],
  ])('defines %s once, in %s, for every runtime (server, kernel, browser)', async (name, home) => {
    const definitions: string[] = [];
    const inline: string[] = [];
    for (const file of await sourceFiles()) {
      const text = await fs.readFile(path.join(REPO, file), 'utf8');
      if (definesFunction(text, name)) definitions.push(file);
      if (file !== home && name === 'isObject' && INLINE_IS_OBJECT.test(text)) inline.push(file);
    }
    expect(definitions).toEqual([home]);
    expect(inline).toEqual([]);
  });

  it("keeps each package's tests out of other packages' test folders: shared helpers live in testing/", async () => {
    const files = await testFiles();
    expect(files).toEqual(expect.arrayContaining(['testing/server.ts', 'packages/http/test/base-url-matrix.test.ts']));
    const offenders: string[] = [];
    for (const file of files) {
      const text = await fs.readFile(path.join(REPO, file), 'utf8');
      for (const from of relativeImports(text)) {
        const target = path.relative(REPO, path.resolve(REPO, path.dirname(file), from));
        const owner = testPackageOf(target);
        if (owner !== undefined && owner !== testPackageOf(file)) offenders.push(`${file}: ${from}`);
      }
    }
    expect(offenders).toEqual([]);
  });

  it('defines the test token once (testing/token.ts) and the test server starters once (testing/server.ts)', async () => {
    const tokens: string[] = [];
    const starters: string[] = [];
    const tests = await testFiles();
    for (const file of [...tests, ...(await filesUnder('scripts'))]) {
      if (!file.endsWith('.ts')) continue;
      const text = await fs.readFile(path.join(REPO, file), 'utf8');
      if (TOKEN_DEFINITION.test(text)) tokens.push(file);
      if (tests.includes(file) && isServerStarter(file, text)) starters.push(file);
    }
    expect(tokens).toEqual(['testing/token.ts']);
    expect(starters).toEqual(['testing/server.ts']);
  });

  it(`waits on a timer at most ${MAX_TIMED_WAITS} times in the tests, and makes temp dirs with makeTempDir`, async () => {
    let waits = 0;
    let mkdtemps = 0;
    const where: string[] = [];
    for (const file of await testFiles()) {
      const text = await fs.readFile(path.join(REPO, file), 'utf8');
      const found = codeMatches(text, TIMED_WAIT);
      waits += found;
      if (found > 0) where.push(`${file} (${found})`);
      if (file !== 'testing/temp.ts') mkdtemps += codeMatches(text, RAW_MKDTEMP);
    }
    expect(waits, `timed waits in ${where.join(', ')}`).toBeLessThanOrEqual(MAX_TIMED_WAITS);
    expect(mkdtemps).toBeLessThanOrEqual(MAX_RAW_MKDTEMP);
  });

  it('marks every test file that needs a kernel, a browser, jupyter_server or JupyterHub (`// needs: …`)', async () => {
    const offenders: string[] = [];
    for (const file of (await testFiles()).filter((f) => f.endsWith('.test.ts'))) {
      const text = await fs.readFile(path.join(REPO, file), 'utf8');
      const needs = needsOf(text);
      for (const word of needs)
        if (!(NEEDS as readonly string[]).includes(word)) offenders.push(`${file}: unknown need "${word}"`);
      // what the unit lane's guard cannot see before it is too late: the helpers a file imports
      const helpers = await testHelpersOf(file);
      const wanted: string[] = [];
      if (helpers.has('testing/chromium.ts')) wanted.push('browser');
      if (helpers.has('testing/jupyter-server.ts') || helpers.has('testing/notebook6.ts'))
        wanted.push('jupyter_server');
      if (/\bstartHub\(/.test(text)) wanted.push('jupyterhub');
      for (const need of wanted) if (!needs.includes(need)) offenders.push(`${file}: add "${need}" to its needs line`);
    }
    expect(offenders).toEqual([]);
  });

  it('finds what the checks above look for', async () => {
    expect(relativeImports("import { a } from '../../http/test/x.js';\nawait import('./y.js');")).toEqual([
      '../../http/test/x.js',
      './y.js',
    ]);
    expect(testPackageOf('packages/http/test/x.ts')).toBe('http');
    expect(testPackageOf('testing/server.ts')).toBeUndefined();
    expect(testPackageOf('test/code-shape.test.ts')).toBe('(repo)');
    expect(TOKEN_DEFINITION.test("const TOKEN = 'abc';")).toBe(true);
    expect(TOKEN_DEFINITION.test("export const TOKEN = 'abc';")).toBe(true);
    expect(TOKEN_DEFINITION.test("export const NOTEBOOK6_TOKEN = 'abc';")).toBe(false);
    expect(TOKEN_DEFINITION.test("import { TOKEN } from '../../../testing/token.js';")).toBe(false);
    const starter = "import { serve } from '../src/serve.js';\nexport const start = () => serve({ port: 0 });";
    expect(isServerStarter('packages/http/test/kernels-fixture.ts', starter)).toBe(true);
    expect(isServerStarter('packages/web/test/harness.ts', starter.replace('../src/', '../../http/src/'))).toBe(true);
    expect(isServerStarter('packages/http/test/app-tls.test.ts', starter)).toBe(false);
    expect(isServerStarter('testing/notebook6.ts', "import { spawn } from 'node:child_process';")).toBe(false);
    const double = "import { hubConfigFromEnv } from '@nbserve/http';\nserver.listen(0, '127.0.0.1');";
    expect(isServerStarter('testing/hub-double.ts', double)).toBe(false);
    expect(definesFunction('export function isObject(value: unknown) {}', 'isObject')).toBe(true);
    expect(definesFunction('const isObject = (v: unknown) => true;', 'isObject')).toBe(true);
    expect(definesFunction('function isPlainObject(v) {}', 'isObject')).toBe(false);
    expect(definesFunction("import { isObject } from './x.js';", 'isObject')).toBe(false);
    expect(INLINE_IS_OBJECT.test("typeof value === 'object' && value !== null && !Array.isArray(value)")).toBe(true);
    const cyclic = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a', 'd']],
      ['d', []],
      ['e', ['e']],
    ]);
    expect(importCycles(cyclic)).toEqual([['a', 'b', 'c'], ['e']]);
    expect(
      importCycles(
        new Map([
          ['a', ['b']],
          ['b', []],
        ]),
      ),
    ).toEqual([]);
    const exported = new Map([['@nbserve/core/html', 'packages/core/src/html/escape.ts']]);
    const imports =
      "import type { A } from './render-mime.js';\nexport * from '../lib/dom.js';\ntype B = import('./model.js').B;\n" +
      "await import('@nbserve/core/html');\nimport 'katex';\n";
    expect(await importedSources('packages/web/src/browser/notebook/x.ts', imports, exported)).toEqual([
      'packages/web/src/browser/notebook/render-mime.ts',
      'packages/web/src/browser/lib/dom.ts',
      'packages/web/src/browser/notebook/model.ts',
      'packages/core/src/html/escape.ts',
    ]);
    expect(
      codeMatches("await new Promise((r) => setTimeout(r, 5));\n// setTimeout(r)\nrun('time.sleep(1)');", TIMED_WAIT),
    ).toBe(1);
    expect(codeMatches('await sleep(10); await delay(2); req.setTimeout(5);', TIMED_WAIT)).toBe(2);
    expect(codeMatches("fs.mkdtemp(p); mkdtempSync(q); 'mkdtemp(' ", RAW_MKDTEMP)).toBe(2);
    expect(needsOf('// needs: kernel, browser\nimport x;')).toEqual(['kernel', 'browser']);
    expect(refusedProgram('/usr/bin/python3', ['-m', 'ipykernel_launcher', '-f', '/r/kernel-1.json'])).toBe('kernel');
    expect(refusedProgram('node', ['dev-kernel.mjs', '-f', '/tmp/k/kernel.json'])).toBe('kernel');
    expect(refusedProgram('/usr/bin/chromium', ['--headless'])).toBe('browser');
    expect(refusedProgram('python3', ['-m', 'jupyter_server', '--port=1'])).toBe('jupyter_server');
    expect(refusedProgram('/usr/bin/jupyterhub', ['-f', 'config.py'])).toBe('jupyterhub');
    expect(refusedProgram('node', ['--import', 'tsx', 'packages/cli/src/main.ts', '--port', '0'])).toBeUndefined();
    expect(refusedProgram('git', ['ls-files'])).toBeUndefined();
    expect(needsOf('/** header */\n// needs: jupyterhub\n')).toEqual(['jupyterhub']);
    expect(needsOf("const s = '// needs: kernel';")).toEqual([]);
    expect(lineCount('a\nb\n')).toBe(2);
    expect(lineCount('a\nb')).toBe(2);
    const text = "import type { A } from '@nbserve/core';\nimport {\n  type B,\n} from '@nbserve/core';\n";
    expect(ourImports(`${text}export type { C } from '@nbserve/http';\nawait import('@nbserve/core');`)).toEqual([
      { from: '@nbserve/core', typeOnly: true },
      { from: '@nbserve/core', typeOnly: false },
      { from: '@nbserve/http', typeOnly: true },
      { from: '@nbserve/core', typeOnly: false },
    ]);
  });
});
