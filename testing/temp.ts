import { promises as fs, mkdtempSync, realpathSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** A fresh directory under the system temp dir, symlinks resolved (as the server reports paths). */
export async function makeTempDir(prefix = 'nbserve-test-'): Promise<string> {
  return await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), prefix)));
}

/** Removes a directory made by `makeTempDir` (or any tree), ignoring a missing one. */
export async function removeDir(dir: string): Promise<void> {
  await fs.rm(dir, { recursive: true, force: true });
}

/** Every entry under `dir` with its bytes (or link target): equal snapshots mean nothing changed. */
export async function snapshotTree(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (abs: string, rel: string): Promise<void> => {
    for (const entry of await fs.readdir(abs, { withFileTypes: true })) {
      const childAbs = path.join(abs, entry.name);
      const childRel = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isSymbolicLink()) out[childRel] = `link -> ${await fs.readlink(childAbs)}`;
      else if (entry.isDirectory()) {
        out[childRel] = 'dir';
        await walk(childAbs, childRel);
      } else out[childRel] = `file ${(await fs.readFile(childAbs)).toString('base64')}`;
    }
  };
  await walk(dir, '');
  return out;
}

/** `makeTempDir` for a module's top level or a synchronous hook. */
export function makeTempDirSync(prefix = 'nbserve-test-'): string {
  return realpathSync(mkdtempSync(path.join(os.tmpdir(), prefix)));
}
