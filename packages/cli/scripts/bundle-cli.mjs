/**
 * Bundles the `nbserve` command (dist/nbserve.js, the package's bin) and the package's library
 * entry (dist/index.js, what `import 'nbserve'` loads), so a start loads a few modules instead of
 * resolving and compiling several hundred, and the package needs none of the workspace packages
 * installed. Code both share goes to a chunk beside them. Run by `pnpm build` after the web and
 * kernel-js bundles (pnpm runs `bundle` scripts in dependency order); tsc writes only the
 * declarations.
 *
 * Workspace modules find run-time files relative to their own `import.meta.url` (the web UI's
 * prebuilt assets, the kernel-js kernel entry and logos). In the bundle every module shares the
 * bundle's URL, so each workspace module's `import.meta.url` is rewritten to where that module
 * would sit in a mirror `dist/packages/<pkg>/` tree, and exactly the files those paths reach are
 * copied there. The result is relocatable: it depends only on files inside packages/cli.
 *
 * The built JupyterLab (packages/jupyterlab/dist: its static files, page template, schemas,
 * themes and third-party-licenses.json) is copied to `lab/` beside the bundle, where the server
 * looks for it first, so `npx nbserve` serves /lab without building anything.
 */
import { cp, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const packageDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const packagesDir = path.resolve(packageDir, '..');
const distDir = path.join(packageDir, 'dist');
export const BUNDLE = path.join(distDir, 'nbserve.js');

/** Native or optional modules, resolved from the installed package's node_modules at run time. */
const EXTERNAL = ['zeromq', 'esbuild', 'bufferutil', 'utf-8-validate', 'tsx', 'tsx/*'];

/** Run-time files of other workspace packages, as [package, path inside it] (copied into the mirror). */
const RUNTIME_FILES = [
  ['web', 'dist/static'],
  ['kernel-js', 'resources'],
  ['kernel-js', 'dist/kernel'],
  ['http', 'api/spec.yaml'],
];

/** `import.meta.url` of a workspace module as if it lived in the mirror, as `.js` (so "am I running from source?" checks say no). */
const relocateImportMeta = {
  name: 'relocate-import-meta',
  setup(build) {
    // web's index re-exports the print renderer (KaTeX, marked: 60 % of the code), which the
    // server only loads through import('@nbserve/web/print'). esbuild assigns chunks by import
    // edges, so that barrel edge would pull it into the start-up chunk: in the bundle it points at
    // a stand-in that says where the real renderer is (nothing in the server calls it this way).
    build.onResolve({ filter: /^\.\/server\/print\.js$/ }, (args) =>
      args.importer.endsWith(path.join('packages', 'web', 'src', 'index.ts'))
        ? { path: 'print-via-barrel', namespace: 'nbserve-lazy' }
        : undefined,
    );
    // Live documents (Yjs and its kin: a third of the server's code) load on first use through
    // import('@nbserve/core/collaboration'). The core barrel re-exports them for library users;
    // esbuild assigns modules to chunks by import edges before it drops unused code, so that edge
    // alone would put them in the start-up chunk. Nothing in the server imports them from the
    // barrel (a value imported so would fail this build: "No matching export").
    build.onResolve({ filter: /^\.\/collaboration\/index\.js$/ }, (args) =>
      args.importer.endsWith(path.join('packages', 'core', 'src', 'index.ts'))
        ? { path: 'collaboration-via-barrel', namespace: 'nbserve-empty' }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'nbserve-empty' }, () => ({ contents: 'export {};', loader: 'js' }));
    build.onLoad({ filter: /.*/, namespace: 'nbserve-lazy' }, () => ({
      contents: [
        'const lazy = () => { throw new Error("the bundled server renders print pages through import(\'@nbserve/web/print\')"); };',
        'export const renderNotebookHtml = lazy;',
        'export const renderPrintPage = lazy;',
      ].join('\n'),
      loader: 'js',
    }));
    build.onLoad({ filter: /\/packages\/(core|http|web|kernel-js)\/src\/.*\.ts$/ }, async (args) => {
      const text = await readFile(args.path, 'utf8');
      if (!text.includes('import.meta.url')) return undefined;
      const relative = path.relative(packagesDir, args.path).replace(/\.ts$/, '.js').split(path.sep).join('/');
      const url = `new URL(${JSON.stringify(`./packages/${relative}`)}, import.meta.url).href`;
      return { contents: text.replaceAll('import.meta.url', url), loader: 'ts' };
    });
  },
};

/** The built JupyterLab app directory, copied to `<outDir>/lab`. */
const LAB_DIST = path.join(packagesDir, 'jupyterlab', 'dist');

/**
 * Writes `<outDir>/nbserve.js` and its mirror tree. `sources` overrides where a run-time file
 * is copied from (key `<pkg>/<path>`), e.g. a web bundle a test built into a temp dir.
 * `requireLab` fails when JupyterLab is not built (the published package must carry it).
 */
export async function bundleCli({ outDir = distDir, sources = {}, requireLab = false } = {}) {
  const esbuild = await import('esbuild');
  for (const [pkg, file] of RUNTIME_FILES) {
    const from = sources[`${pkg}/${file}`] ?? path.join(packagesDir, pkg, file);
    const to = path.join(outDir, 'packages', pkg, file);
    await rm(to, { recursive: true, force: true });
    await mkdir(path.dirname(to), { recursive: true });
    // a missing web or kernel bundle would make the bin fall back to building from sources it does not have
    await cp(from, to, { recursive: true, errorOnExist: false });
  }
  // Chunk names carry content hashes, and builds before the bundle was the library entry left
  // tsc's JavaScript here: drop every script outside the mirror so no stale one ships.
  for (const entry of await readdir(outDir, { recursive: true, withFileTypes: true }).catch(() => [])) {
    const file = path.join(entry.parentPath, entry.name);
    const inMirror = path.relative(outDir, file).startsWith(`packages${path.sep}`);
    const inLab = path.relative(outDir, file).startsWith(`lab${path.sep}`);
    if (entry.isFile() && !inMirror && !inLab && /\.js(\.map)?$/.test(entry.name)) await rm(file);
  }
  await copyLab(outDir, requireLab);
  await esbuild.build({
    entryPoints: { nbserve: path.join(packageDir, 'src/main.ts'), index: path.join(packageDir, 'src/index.ts') },
    outdir: outDir,
    // lazily imported code (the print renderer) goes to chunks beside the entry, so relative
    // import.meta.url lookups resolve the same from every output file
    splitting: true,
    chunkNames: 'nbserve-[name]-[hash]',
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    conditions: ['@nbserve/source'],
    external: EXTERNAL,
    // CommonJS dependencies (ws, commander) call require() for Node built-ins
    banner: {
      js: "import { createRequire as __nbserveRequire } from 'node:module';\nconst require = __nbserveRequire(import.meta.url);",
    },
    plugins: [relocateImportMeta],
    sourcemap: 'linked',
    legalComments: 'none',
    logLevel: 'error',
  });
  for (const entry of await readdir(outDir, { withFileTypes: true })) {
    if (entry.isFile() && entry.name.endsWith('.js')) await asciiOnly(path.join(outDir, entry.name));
  }
}

async function copyLab(outDir, requireLab) {
  const to = path.join(outDir, 'lab');
  await rm(to, { recursive: true, force: true });
  try {
    await cp(LAB_DIST, to, { recursive: true });
  } catch (error) {
    if (requireLab || error.code !== 'ENOENT') throw error;
  }
}

/**
 * esbuild escapes non-ASCII characters in strings, templates and identifiers but not in regular
 * expressions or the comments it keeps. One such character makes V8 hold the whole module as a
 * two-byte string: a slower decode and a slower parse (2-26 ms more CPU to the first answer here,
 * docs/benchmarks.md). In regular expressions they become `\uXXXX` escapes (the same pattern); in
 * comments `?` (one character each, so source-map columns stay right).
 */
async function asciiOnly(file) {
  const text = await readFile(file, 'utf8');
  const hasNonAscii = /[\u0080-\uffff]/;
  if (!hasNonAscii.test(text)) return;
  const { tokenizer, tokTypes } = await import('acorn');
  const nonAscii = /[\u0080-\uffff]/g;
  const edits = [];
  const onComment = (_block, _text, start, end) => {
    edits.push([start, end, text.slice(start, end).replace(nonAscii, '?')]);
  };
  const options = { ecmaVersion: 'latest', sourceType: 'module', allowHashBang: true, onComment };
  for (const token of tokenizer(text, options)) {
    const source = text.slice(token.start, token.end);
    if (!hasNonAscii.test(source)) continue;
    if (token.type !== tokTypes.regexp)
      throw new Error(`${file}: a non-ASCII character in a ${token.type.label} token`);
    const escaped = source.replace(nonAscii, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
    edits.push([token.start, token.end, escaped]);
  }
  edits.sort((a, b) => b[0] - a[0]);
  let out = text;
  for (const [start, end, replacement] of edits) out = out.slice(0, start) + replacement + out.slice(end);
  await writeFile(file, out);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await bundleCli({ requireLab: true });
  process.stdout.write(`nbserve: bundled the CLI into ${path.relative(process.cwd(), BUNDLE)}\n`);
}
