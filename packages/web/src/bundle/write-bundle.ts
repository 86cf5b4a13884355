import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { PREBUILT_DIR } from './assets.js';
import { buildWebAssets } from './build.js';

/**
 * `pnpm --filter @nbserve/web bundle`: writes the browser bundle to dist/static for publishing
 * (or to the directory given as the first argument, e.g. the CLI bundle test's temp dir).
 */
const outDir = process.argv[2] ? path.resolve(process.argv[2]) : PREBUILT_DIR;
const assets = await buildWebAssets();
await rm(outDir, { recursive: true, force: true });
await mkdir(outDir, { recursive: true });
for (const file of assets.files.values()) await writeFile(path.join(outDir, file.name), file.body);
await writeFile(
  path.join(outDir, 'manifest.json'),
  JSON.stringify({ manifest: assets.manifest, preload: assets.preload, files: [...assets.files.keys()] }, null, 2),
);
console.log(`wrote ${assets.files.size} files to ${outDir}`);
