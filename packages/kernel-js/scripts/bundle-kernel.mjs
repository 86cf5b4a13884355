/**
 * Bundles the kernel process (main thread + execution worker) into two self-contained files, so
 * a kernel start loads two modules instead of resolving and compiling dozens: `main.cjs` (the
 * kernelspec's entry) and `engine/worker.js`. Used by
 * `pnpm build` (dist/kernel/) and by the source-mode launcher (scripts/dev-kernel.mjs).
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const packageDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export async function bundleKernel(outdir) {
  const esbuild = await import('esbuild');
  const common = {
    bundle: true,
    platform: 'node',
    target: 'node20',
    conditions: ['@nbserve/source'],
    sourcemap: 'linked',
    logLevel: 'error',
  };
  // The main thread (sockets, protocol) is on the start-up path of every kernel: CommonJS skips
  // the ESM loader's start-up cost, valibot is bundled (only the few schemas used), and the
  // externals are required where first used (acorn by is_complete, not at start).
  await esbuild.build({
    ...common,
    entryPoints: [path.join(packageDir, 'src/main.ts')],
    outfile: path.join(outdir, 'main.cjs'),
    format: 'cjs',
    external: ['esbuild', 'acorn'],
    define: { 'import.meta.url': '__kernelMainUrl' },
    banner: { js: 'var __kernelMainUrl = require("node:url").pathToFileURL(__filename).href;' },
  });
  // Kernelspecs installed before the entry became main.cjs still name main.js.
  await writeFile(path.join(outdir, 'main.js'), "import './main.cjs';\n");
  // The execution thread (user code; ESM so the notebook's imports resolve as ESM).
  await esbuild.build({
    ...common,
    entryPoints: { 'engine/worker': path.join(packageDir, 'src/engine/worker.ts') },
    outdir,
    format: 'esm',
    // Resolved from the package's node_modules at run time.
    external: ['esbuild', 'acorn', 'valibot'],
  });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const outdir = path.resolve(packageDir, process.argv[2] ?? 'dist/kernel');
  await bundleKernel(outdir);
  process.stdout.write(`kernel-js: bundled the kernel into ${path.relative(process.cwd(), outdir) || '.'}\n`);
}
