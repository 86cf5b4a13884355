import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildWebAssets, contentTypeOf, type StaticAsset, type WebAssets } from './build.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
/** Where `pnpm --filter @nbserve/web bundle` writes a prebuilt bundle (used by the published package). */
export const PREBUILT_DIR = path.resolve(HERE, '..', '..', 'dist', 'static');

let cached: Promise<WebAssets> | undefined;

/**
 * The browser bundle, built once per process. Running from TypeScript sources (tests,
 * `pnpm nbserve`) it is bundled in memory on first use, so no manual build step exists;
 * running from `dist` a prebuilt bundle is loaded if present.
 */
export function getWebAssets(): Promise<WebAssets> {
  cached ??= loadAssets().catch((error: unknown) => {
    cached = undefined; // let the next request retry instead of caching a failure
    throw error;
  });
  return cached;
}

async function loadAssets(): Promise<WebAssets> {
  const fromDist = HERE.split(path.sep).includes('dist');
  if (fromDist) {
    const prebuilt = await loadPrebuilt(PREBUILT_DIR);
    if (prebuilt) return prebuilt;
  }
  return buildWebAssets();
}

async function loadPrebuilt(dir: string): Promise<WebAssets | undefined> {
  let manifestText: string;
  try {
    manifestText = await readFile(path.join(dir, 'manifest.json'), 'utf8');
  } catch {
    return undefined;
  }
  const parsed = JSON.parse(manifestText) as {
    manifest: Record<string, string>;
    preload?: Record<string, string[]>;
    files: string[];
  };
  const files = new Map<string, StaticAsset>();
  for (const name of parsed.files) {
    const body = new Uint8Array(await readFile(path.join(dir, path.basename(name))));
    files.set(name, { name, body, contentType: contentTypeOf(name) });
  }
  return { files, manifest: parsed.manifest, preload: parsed.preload ?? {} };
}
