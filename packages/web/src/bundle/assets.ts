import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildWebAssets, contentTypeOf, type StaticAsset, type WebAssets } from './build.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
/** Where `pnpm --filter @nbserve/web bundle` writes a prebuilt bundle (used by the published package). */
export const PREBUILT_DIR = path.resolve(HERE, '..', '..', 'dist', 'static');

let cached: Promise<WebAssets> | undefined;

/**
 * The browser bundle, built once per process. Wherever the TypeScript sources exist (tests,
 * `pnpm nbserve`, the compiled CLI in this repository) they are bundled in memory on first use
 * (about a second), so no manual build step exists; an install without sources loads the
 * bundle `pnpm --filter @nbserve/web bundle` wrote.
 */
export function getWebAssets(): Promise<WebAssets> {
  cached ??= loadAssets().catch((error: unknown) => {
    cached = undefined; // let the next request retry instead of caching a failure
    throw error;
  });
  return cached;
}

async function loadAssets(): Promise<WebAssets> {
  // A prebuilt bundle is only for installs without the sources (the published package): in the
  // repository the sources are bundled fresh, so a stale dist/static can never be served.
  const hasSources = existsSync(path.resolve(HERE, '..', '..', 'src', 'browser', 'notebook-page.ts'));
  if (!hasSources) {
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
