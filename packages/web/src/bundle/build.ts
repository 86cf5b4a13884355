import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type * as esbuild from 'esbuild';

/** One built static file, served from memory under `<base>/static/<name>`. */
export interface StaticAsset {
  readonly name: string;
  readonly body: Uint8Array;
  readonly contentType: string;
}

/**
 * The built browser bundle: files keyed by their content-hashed names, and a manifest from
 * logical names (`notebook.js`, `notebook.css`) to hashed names, which pages link to.
 */
export interface WebAssets {
  readonly files: ReadonlyMap<string, StaticAsset>;
  readonly manifest: Readonly<Record<string, string>>;
  /** Per entry: the hashed names of all JS chunks it will load (for `modulepreload`). */
  readonly preload: Readonly<Record<string, readonly string[]>>;
}

/** The page entry points; each gets a JS file and (if it imports CSS) a CSS file. */
export const ENTRY_POINTS = ['dashboard', 'notebook', 'editor', 'terminal', 'print', 'output-frame'] as const;
export type EntryName = (typeof ENTRY_POINTS)[number];

/** Sources in src/browser named other than `<entry>.ts` (beside `notebook/`, `notebook.ts` said too little). */
const ENTRY_SOURCES: Partial<Record<EntryName, string>> = { notebook: 'notebook-page.ts', editor: 'editor-page.ts' };

/** Always the TypeScript sources (also when this module runs from dist/), which esbuild bundles. */
const SRC_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'src');

/** Chunks loaded on first use only, never announced with `modulepreload` (the widget manager). */
const LAZY_ENTRIES = ['browser/notebook/widgets/manager.ts'];

const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.ttf': 'font/ttf',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

export function contentTypeOf(name: string): string {
  return CONTENT_TYPES[path.extname(name)] ?? 'application/octet-stream';
}

/**
 * Entries built as one file each (no chunks shared with the other pages): the dashboard's code is
 * small, and a page of one script and one stylesheet loads without a waterfall of chunks queued
 * behind the browser's six connections to the server.
 */
const SINGLE_FILE_ENTRIES: readonly EntryName[] = ['dashboard'];

/** Bundles the browser code with esbuild into memory (about a second); nothing touches disk. */
export async function buildWebAssets(options: { minify?: boolean } = {}): Promise<WebAssets> {
  const entry = (e: EntryName): [string, string] => [e, path.join(SRC_DIR, 'browser', ENTRY_SOURCES[e] ?? `${e}.ts`)];
  const split = ENTRY_POINTS.filter((e) => !SINGLE_FILE_ENTRIES.includes(e));
  const builds = await Promise.all([
    buildEntries(Object.fromEntries(split.map(entry)), true, options),
    buildEntries(Object.fromEntries(SINGLE_FILE_ENTRIES.map(entry)), false, options),
  ]);
  const files = new Map<string, StaticAsset>();
  const manifest: Record<string, string> = {};
  const preload: Record<string, string[]> = {};
  for (const built of builds) {
    for (const [name, file] of built.files) files.set(name, file);
    Object.assign(manifest, built.manifest);
    Object.assign(preload, built.preload);
  }
  return { files, manifest, preload };
}

async function buildEntries(
  entryPoints: Record<string, string>,
  splitting: boolean,
  options: { minify?: boolean },
): Promise<WebAssets> {
  // loaded on first build only: a server that serves the prebuilt bundle never loads esbuild
  const { build } = await import('esbuild');
  const result = await build({
    entryPoints,
    absWorkingDir: SRC_DIR,
    bundle: true,
    splitting,
    format: 'esm',
    platform: 'browser',
    // The browser code takes its one HTML escaper from core's sources (this only runs where they exist).
    conditions: ['@nbserve/source'],
    target: ['chrome100', 'firefox100', 'safari15'],
    minify: options.minify ?? true,
    sourcemap: false,
    write: false,
    metafile: true,
    outdir: '/static-out',
    entryNames: '[name]-[hash]',
    chunkNames: 'chunk-[hash]',
    assetNames: '[name]-[hash]',
    loader: { '.woff2': 'file', '.woff': 'file', '.ttf': 'file' },
    // The widget manager's HTML sanitizer would bring postcss along: the page's DOMPurify does it.
    alias: { 'sanitize-html': path.join(SRC_DIR, 'browser/notebook/widgets/sanitize-html.ts') },
    // KaTeX ships woff/ttf fallbacks that every supported browser can skip.
    plugins: [woff2OnlyFonts],
    logLevel: 'silent',
    legalComments: 'none',
  });
  const files = new Map<string, StaticAsset>();
  for (const out of result.outputFiles) {
    const name = path.basename(out.path);
    files.set(name, { name, body: out.contents, contentType: contentTypeOf(name) });
  }
  const manifest: Record<string, string> = {};
  const preload: Record<string, string[]> = {};
  const outputs = result.metafile.outputs;
  // By entry name, not source name (ENTRY_SOURCES); chunks loaded by import() by their source's.
  const entryNames = new Map(Object.entries(entryPoints).map(([name, file]) => [path.relative(SRC_DIR, file), name]));
  for (const [outPath, meta] of Object.entries(outputs)) {
    if (!meta.entryPoint) continue;
    const logical = entryNames.get(meta.entryPoint) ?? path.basename(meta.entryPoint, '.ts');
    manifest[`${logical}.js`] = path.basename(outPath);
    if (meta.cssBundle) manifest[`${logical}.css`] = path.basename(meta.cssBundle);
    preload[logical] = chunkClosure(outputs, outPath).map((p) => path.basename(p));
  }
  return { files, manifest, preload };
}

/**
 * Every JS chunk an entry loads, statically or through `import()`, so the page can announce them
 * all with `modulepreload` and the browser fetches them in parallel instead of level by level.
 */
function chunkClosure(outputs: esbuild.Metafile['outputs'], entry: string): string[] {
  const seen = new Set<string>();
  const visit = (file: string) => {
    for (const imp of outputs[file]?.imports ?? []) {
      if (imp.external || !imp.path.endsWith('.js') || seen.has(imp.path)) continue;
      if (imp.kind === 'dynamic-import' && LAZY_ENTRIES.includes(outputs[imp.path]?.entryPoint ?? '')) continue;
      seen.add(imp.path);
      visit(imp.path);
    }
  };
  visit(entry);
  // empty chunks too (esbuild leaves one where shared modules hold only CSS): they are imported
  // all the same, and one found only once its importer has loaded costs a round trip of its own
  return [...seen];
}

const woff2OnlyFonts: esbuild.Plugin = {
  name: 'woff2-only-fonts',
  setup(build) {
    build.onResolve({ filter: /\.(woff|ttf)$/ }, (args) => ({ path: args.path, external: true }));
  },
};
