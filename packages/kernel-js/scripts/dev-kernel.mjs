/**
 * Runs the kernel from its TypeScript sources without a TypeScript loader at run time: the
 * sources are bundled once with esbuild into a cache keyed by their modification times, and
 * later starts import the cached bundle directly. This is what the `source`-mode kernelspec
 * runs (`pnpm nbserve`, tests), so editing a source file takes effect at the next kernel start
 * while a start stays as fast as the compiled kernel's.
 */

import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { bundleKernel, packageDir } from './bundle-kernel.mjs';

const coreSrc = path.resolve(packageDir, '../core/src');
const inputs = [path.join(packageDir, 'src'), path.join(coreSrc, 'protocol'), path.join(coreSrc, 'errors.ts')];

function collect(entry, out) {
  const info = statSync(entry);
  if (info.isDirectory()) for (const name of readdirSync(entry)) collect(path.join(entry, name), out);
  else if (entry.endsWith('.ts')) out.push(`${entry}:${info.mtimeMs}:${info.size}`);
}

const stamps = [];
for (const input of inputs) collect(input, stamps);
const key = createHash('sha256').update(stamps.sort().join('\n')).digest('hex').slice(0, 16);
const cacheRoot = path.join(packageDir, 'node_modules', '.cache', 'dev-kernel');
const outdir = path.join(cacheRoot, key);
const main = path.join(outdir, 'main.cjs');

let fresh = false;
try {
  fresh = statSync(main).isFile();
} catch {
  fresh = false;
}

if (!fresh) {
  // Build next to the final place and rename, so kernels starting together never see half a bundle.
  const staging = `${outdir}.${process.pid}.tmp`;
  await bundleKernel(staging);
  mkdirSync(cacheRoot, { recursive: true });
  try {
    renameSync(staging, outdir);
  } catch {
    rmSync(staging, { recursive: true, force: true }); // another kernel won the race
  }
  // Old bundles of earlier source versions are dead weight.
  for (const name of readdirSync(cacheRoot)) {
    if (name !== key && !name.endsWith('.tmp')) rmSync(path.join(cacheRoot, name), { recursive: true, force: true });
  }
}

await import(pathToFileURL(main).href);
