/**
 * Bundles the kernel process (main thread + execution worker) into two self-contained files, so
 * a kernel start loads two modules instead of resolving and compiling dozens. Used by
 * `pnpm build` (dist/kernel/) and by the source-mode launcher (scripts/dev-kernel.mjs).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const packageDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export async function bundleKernel(outdir) {
  const esbuild = await import('esbuild');
  await esbuild.build({
    entryPoints: {
      main: path.join(packageDir, 'src/main.ts'),
      'engine/worker': path.join(packageDir, 'src/engine/worker.ts'),
    },
    outdir,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    conditions: ['@nbserve/source'],
    // Resolved from the package's node_modules at run time (zeromq is native).
    external: ['zeromq', 'esbuild', 'acorn', 'valibot'],
    sourcemap: 'linked',
    logLevel: 'error',
  });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const outdir = path.resolve(packageDir, process.argv[2] ?? 'dist/kernel');
  await bundleKernel(outdir);
  process.stdout.write(`kernel-js: bundled the kernel into ${path.relative(process.cwd(), outdir) || '.'}\n`);
}
