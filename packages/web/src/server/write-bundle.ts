import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { PREBUILT_DIR } from './assets.js';
import { buildWebAssets } from './build.js';

/** `pnpm --filter @nbserve/web bundle`: writes the browser bundle to dist/static for publishing. */
const assets = await buildWebAssets();
await rm(PREBUILT_DIR, { recursive: true, force: true });
await mkdir(PREBUILT_DIR, { recursive: true });
for (const file of assets.files.values()) await writeFile(path.join(PREBUILT_DIR, file.name), file.body);
await writeFile(
  path.join(PREBUILT_DIR, 'manifest.json'),
  JSON.stringify({ manifest: assets.manifest, preload: assets.preload, files: [...assets.files.keys()] }, null, 2),
);
console.log(`wrote ${assets.files.size} files to ${PREBUILT_DIR}`);
