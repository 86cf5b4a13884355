import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

const created: string[] = [];

/** A temp dir removed by `removeTempDirs()` when the run ends. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), `nbserve-bench-${prefix}`));
  created.push(dir);
  return dir;
}

export function removeTempDirs(): void {
  for (const dir of created.splice(0)) rmSync(dir, { recursive: true, force: true });
}
