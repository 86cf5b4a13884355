import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

let runDir: string | undefined;

/**
 * The one temp dir of this run; every other temp dir lives inside it. Its path also marks every
 * process this run causes (servers' roots, kernels' connection files), so cleanup can find them
 * without touching a concurrent run's processes.
 */
export function runDirectory(): string {
  runDir ??= mkdtempSync(join(tmpdir(), 'nbserve-bench-'));
  return runDir;
}

/** A temp dir removed by `removeTempDirs()` when the run ends. */
export function tempDir(prefix: string): string {
  return mkdtempSync(join(runDirectory(), prefix));
}

export function removeTempDirs(): void {
  if (runDir) rmSync(runDir, { recursive: true, force: true });
  runDir = undefined;
}
