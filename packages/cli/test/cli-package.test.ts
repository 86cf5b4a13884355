// needs: kernel
import { execFile } from 'node:child_process';
import { promises as fs, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';
import { KernelManager, type KernelMessage, ServerConnection } from '@jupyterlab/services';
import { parse } from 'acorn';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { isolated, runCli, tempDirs, useCliRuns } from '../../../testing/cli.js';
import { REPO } from '../../../testing/repo.js';
import { makeTempDir } from '../../../testing/temp.js';
import { TOKEN } from '../../../testing/token.js';

const run = promisify(execFile);
const TSC = path.join(REPO, 'node_modules/typescript/bin/tsc');

/**
 * What a user gets from npm. The five packages are packed with `pnpm -r pack` from a clean copy
 * of the repository (no dist/: each package's `prepack` must build it), then installed with npm
 * into fresh projects outside the repository, where nothing of the workspace can be found.
 */
const PACKAGES = {
  nbserve: 'nbserve',
  core: '@nbserve/core',
  http: '@nbserve/http',
  web: '@nbserve/web',
  kernel: '@nbserve/kernel-js',
};
type Key = keyof typeof PACKAGES;

let work: string;
const tarballs = {} as Record<Key, string>;
/** The files of each tarball, without the leading `package/`. */
const listings = {} as Record<Key, string[]>;
/** Each tarball extracted. */
const unpacked = {} as Record<Key, string>;

interface Manifest {
  name: string;
  version: string;
  main?: string;
  types?: string;
  bin?: Record<string, string>;
  exports?: Record<string, Record<string, string>>;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}
const manifest = async (key: Key) =>
  JSON.parse(await fs.readFile(path.join(unpacked[key], 'package.json'), 'utf8')) as Manifest;

/** The repository's tracked and new (not ignored) files, copied: a fresh clone of the working tree. */
async function copyRepository(to: string): Promise<void> {
  const { stdout } = await run('git', ['ls-files', '-z', '-co', '--exclude-standard'], {
    cwd: REPO,
    maxBuffer: 64 * 1024 * 1024,
  });
  for (const file of stdout.split('\0').filter(Boolean)) {
    const from = path.join(REPO, file);
    if (!(await fs.stat(from).catch(() => null))?.isFile()) continue; // deleted in the working tree
    await fs.mkdir(path.dirname(path.join(to, file)), { recursive: true });
    await fs.copyFile(from, path.join(to, file));
  }
}

/** npm, quietly, preferring its cache (the registry is only asked for what the cache lacks). */
function npmInstall(cwd: string, specs: string[] = []) {
  return run(
    'npm',
    ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--prefer-offline', '--loglevel=error', ...specs],
    {
      cwd,
      maxBuffer: 16 * 1024 * 1024,
    },
  );
}

/** A fresh project outside the repository with `dependencies` installed by npm. */
async function consumerProject(name: string, dependencies: Record<string, string>, extra: object = {}) {
  const dir = path.join(work, name);
  await fs.mkdir(dir);
  await fs.writeFile(
    path.join(dir, 'package.json'),
    JSON.stringify({ name, private: true, type: 'module', dependencies, ...extra }),
  );
  await npmInstall(dir);
  return dir;
}

/** The version of a dependency the repository itself installed, so consumers get the same. */
const version = (dependency: string) =>
  (JSON.parse(readFileSync(path.join(REPO, 'node_modules', dependency, 'package.json'), 'utf8')) as Manifest).version;

beforeAll(async () => {
  work = await makeTempDir('nbserve-package-');
  const copy = path.join(work, 'repo');
  await copyRepository(copy);
  const dists = (await fs.readdir(path.join(copy, 'packages'))).map((p) => path.join(copy, 'packages', p, 'dist'));
  for (const dist of dists) expect(await fs.stat(dist).catch(() => null)).toBeNull();
  await run('pnpm', ['install', '--frozen-lockfile', '--offline', '--reporter=silent'], { cwd: copy });
  const out = path.join(work, 'tarballs');
  await run('pnpm', ['-r', 'pack', '--pack-destination', out], { cwd: copy, maxBuffer: 64 * 1024 * 1024 });
  for (const [key, name] of Object.entries(PACKAGES) as [Key, string][]) {
    tarballs[key] = path.join(out, `${name.replace('@', '').replace('/', '-')}-0.1.0.tgz`);
    const { stdout } = await run('tar', ['tzf', tarballs[key]], { maxBuffer: 16 * 1024 * 1024 });
    listings[key] = stdout
      .split('\n')
      .filter(Boolean)
      .map((f) => f.replace(/^package\//, ''));
    unpacked[key] = path.join(work, 'unpacked', key);
    await fs.mkdir(unpacked[key], { recursive: true });
    await run('tar', ['xzf', tarballs[key], '-C', unpacked[key], '--strip-components=1']);
  }
}, 600_000);

useCliRuns();
afterAll(async () => {
  if (work) await fs.rm(work, { recursive: true, force: true });
});

describe('pnpm -r pack from a clean checkout', () => {
  it('builds first: every file a package.json points at (bin, main, types, exports) is in its tarball', async () => {
    for (const key of Object.keys(PACKAGES) as Key[]) {
      const pkg = await manifest(key);
      const targets = [
        pkg.main,
        pkg.types,
        ...Object.values(pkg.bin ?? {}),
        ...Object.values(pkg.exports ?? {}).flatMap((conditions) =>
          Object.entries(conditions)
            .filter(([condition]) => condition !== '@nbserve/source') // the workspace's own, never published
            .map(([, file]) => file),
        ),
      ].filter((t): t is string => t !== undefined);
      expect(targets.length, pkg.name).toBeGreaterThan(0);
      for (const target of targets) expect(listings[key], `${pkg.name}: ${target}`).toContain(path.normalize(target));
    }
  });

  it('ships the bins and the run-time assets: web UI, built-in kernel, logos', () => {
    expect(listings.nbserve).toEqual(
      expect.arrayContaining([
        'dist/nbserve.js',
        'dist/index.js',
        'dist/index.d.ts',
        'dist/packages/kernel-js/dist/kernel/main.cjs',
        'dist/packages/kernel-js/dist/kernel/engine/worker.js',
        'dist/packages/kernel-js/resources/javascript/logo-64x64.png',
      ]),
    );
    const assets = (files: string[], dir: string) => files.filter((f) => f.startsWith(dir));
    expect(assets(listings.nbserve, 'dist/packages/web/dist/static/').some((f) => f.endsWith('.js'))).toBe(true);
    expect(assets(listings.nbserve, 'dist/packages/web/dist/static/').some((f) => f.endsWith('.css'))).toBe(true);
    expect(assets(listings.web, 'dist/static/').some((f) => f.endsWith('.js'))).toBe(true);
    expect(listings.kernel).toEqual(
      expect.arrayContaining(['dist/main.js', 'dist/kernel/main.cjs', 'resources/typescript/logo-64x64.png']),
    );
  });

  it('the shipped JavaScript imports nothing but Node built-ins and declared dependencies', async () => {
    // ws loads these only when they are installed (inside try/catch), as its optional peers
    const optional = new Set(['bufferutil', 'utf-8-validate']);
    const builtins = new Set(builtinModules);
    for (const key of Object.keys(PACKAGES) as Key[]) {
      const pkg = await manifest(key);
      const declared = new Set(
        Object.keys({ ...pkg.dependencies, ...pkg.optionalDependencies, ...pkg.peerDependencies }),
      );
      const undeclared = new Set<string>();
      const scripts = listings[key].filter((f) => /\.(c|m)?js$/.test(f));
      expect(scripts.length).toBeGreaterThan(0);
      for (const file of scripts) {
        const source = await fs.readFile(path.join(unpacked[key], file), 'utf8');
        for (const specifier of importedSpecifiers(source, file)) {
          if (specifier.startsWith('.') || specifier.startsWith('node:') || builtins.has(specifier)) continue;
          const name = specifier.startsWith('@')
            ? specifier.split('/').slice(0, 2).join('/')
            : (specifier.split('/')[0] as string);
          if (!declared.has(name) && !optional.has(name) && !builtins.has(name)) undeclared.add(`${name} (${file})`);
        }
      }
      expect([...undeclared], pkg.name).toEqual([]);
    }
  });
});

describe('installed from its tarball into a fresh project', () => {
  let project: string;
  beforeAll(async () => {
    project = await consumerProject('uses-nbserve', {
      nbserve: `file:${tarballs.nbserve}`,
      '@types/node': version('@types/node'),
    });
  }, 300_000);

  it("import('nbserve') loads the library entry", async () => {
    const { stdout } = await run(
      process.execPath,
      ['--input-type=module', '-e', "const m = await import('nbserve'); console.log(Object.keys(m).sort().join(' '))"],
      { cwd: project },
    );
    expect(stdout.trim()).toBe('FLAGS buildProgram normalizeBooleanArgs parseFlagValue runCli');
  });

  it('the bin prints the version', async () => {
    const { stdout } = await run(path.join(project, 'node_modules/.bin/nbserve'), ['--version'], { cwd: project });
    expect(stdout.trim()).toBe((await manifest('nbserve')).version);
  });

  it('the bin serves and runs code on both built-in kernels', async () => {
    const dirs = await tempDirs();
    const bin = path.join(project, 'node_modules/nbserve/dist/nbserve.js');
    const cli = runCli([dirs.root, ...isolated(dirs), `--token=${TOKEN}`], { bin, cwd: project });
    const serverSettings = ServerConnection.makeSettings({
      baseUrl: (await cli.url).split('?')[0] as string,
      token: TOKEN,
      WebSocket: WebSocket as unknown as typeof globalThis.WebSocket,
      fetch: globalThis.fetch,
    });
    const kernels = new KernelManager({ serverSettings });
    try {
      for (const [name, code] of [
        ['javascript', '6 * 7'],
        ['typescript', 'const answer: number = 6 * 7; answer'],
      ] as const) {
        const kernel = await kernels.startNew({ name });
        const results: KernelMessage.IIOPubMessage[] = [];
        const future = kernel.requestExecute({ code });
        future.onIOPub = (msg) => {
          if (msg.header.msg_type === 'execute_result') results.push(msg);
        };
        expect((await future.done).content.status, name).toBe('ok');
        expect(
          results.map((msg) => (msg.content as { data: Record<string, string> }).data['text/plain']),
          name,
        ).toEqual(['42']);
        await kernel.shutdown();
      }
    } finally {
      kernels.dispose();
      cli.child.kill('SIGTERM');
      await cli.exit;
      await fs.rm(dirs.dir, { recursive: true, force: true });
    }
  });

  it("nbserve's types compile with skipLibCheck false", async () => {
    await fs.writeFile(
      path.join(project, 'cli.ts'),
      [
        "import { buildProgram, FLAGS, runCli } from 'nbserve';",
        "const code: number = await runCli(['--version']);",
        'const names: string[] = FLAGS.map((flag) => flag.name);',
        "buildProgram(() => {}).name('nbserve');",
        'console.log(code, names);',
      ].join('\n'),
    );
    await typecheck(project);
  }, 120_000);
});

describe('embedding, as the README shows, against the packed types', () => {
  it('the README example and examples/*.ts compile with skipLibCheck false', async () => {
    const workspace = { core: tarballs.core, http: tarballs.http, web: tarballs.web, 'kernel-js': tarballs.kernel };
    const ours = Object.fromEntries(Object.entries(workspace).map(([k, t]) => [`@nbserve/${k}`, `file:${t}`]));
    const project = await consumerProject(
      'embeds-nbserve',
      { ...ours, hono: version('hono'), '@types/node': version('@types/node') },
      // the tarballs depend on each other by version: point those at the tarballs too
      { overrides: Object.fromEntries(Object.keys(ours).map((name) => [name, `$${name}`])) },
    );
    const readme = await fs.readFile(path.join(REPO, 'README.md'), 'utf8');
    const embedding = readme.slice(readme.indexOf('## Embedding'));
    const example = /```ts\n([\s\S]*?)```/.exec(embedding)?.[1];
    expect(example).toContain("from '@nbserve/http'");
    await fs.writeFile(path.join(project, 'readme-embedding.ts'), example as string);
    for (const file of ['embed-hono.ts', 'core-managers.ts']) {
      await fs.copyFile(path.join(REPO, 'examples', file), path.join(project, file));
    }
    await typecheck(project);
  }, 300_000);
});

/** tsc over the project's `*.ts` as a consumer would run it: strict, NodeNext, library types checked. */
async function typecheck(project: string): Promise<void> {
  await fs.writeFile(
    path.join(project, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        skipLibCheck: false,
        noEmit: true,
        types: ['node'],
      },
      include: ['*.ts'],
    }),
  );
  const result = await run(process.execPath, [TSC, '-p', project], { cwd: project }).catch(
    (error: { stdout: string }) => error,
  );
  expect(result.stdout).toBe('');
}

/** Every module specifier a script imports, requires or loads with import(), from its syntax tree. */
function importedSpecifiers(source: string, file: string): string[] {
  const tree = parse(source.replace(/^#!.*/, ''), {
    ecmaVersion: 'latest',
    sourceType: file.endsWith('.cjs') ? 'script' : 'module',
    allowAwaitOutsideFunction: true,
    allowReturnOutsideFunction: true,
  });
  const found: string[] = [];
  const literal = (node: unknown) => {
    const n = node as { type?: string; value?: unknown } | undefined;
    if (n?.type === 'Literal' && typeof n.value === 'string') found.push(n.value);
  };
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const child of node) visit(child);
      return;
    }
    if (!node || typeof node !== 'object') return;
    const n = node as Record<string, unknown> & { type?: string };
    if (
      n.type === 'ImportDeclaration' ||
      n.type === 'ExportAllDeclaration' ||
      n.type === 'ExportNamedDeclaration' ||
      n.type === 'ImportExpression'
    ) {
      literal(n.source);
    }
    if (n.type === 'CallExpression') {
      const callee = n.callee as { type?: string; name?: string };
      // require('x'), esbuild's __require('x'), createRequire(url)('x')
      const requires =
        (callee.type === 'Identifier' && /require$/i.test(callee.name ?? '')) || callee.type === 'CallExpression';
      if (requires && (n.arguments as unknown[]).length === 1) literal((n.arguments as unknown[])[0]);
    }
    for (const value of Object.values(n)) if (value && typeof value === 'object') visit(value);
  };
  visit(tree);
  return found;
}
