import { badRequest } from '../errors.js';
import { joinPath } from './paths.js';
import type { ContentsStore } from './store.js';

/** Symlinked directories can form cycles; no real project is this deep. */
const MAX_COPY_DEPTH = 64;

/**
 * Refuses to copy a directory tree holding more than `maxBytes` of files, as jupyter_server does
 * (its `max_copy_folder_size_mb`), without walking further once the limit is passed.
 */
export async function checkCopySize(store: ContentsStore, from: string, maxBytes: number): Promise<void> {
  let total = 0;
  const walk = async (dir: string, depth: number): Promise<void> => {
    if (depth > MAX_COPY_DEPTH) throw badRequest(`Can't copy "${from}": the directory tree is too deep`);
    const entries = await store.list(dir);
    for (const entry of entries) {
      if (entry.stat.kind === 'file') total += entry.stat.size;
      if (total > maxBytes) return;
    }
    await Promise.all(
      entries.filter((e) => e.stat.kind === 'directory').map((e) => walk(joinPath(dir, e.name), depth + 1)),
    );
  };
  await walk(from, 0);
  if (total > maxBytes) {
    const limitMb = Math.round(maxBytes / (1024 * 1024));
    throw badRequest(`Can't copy folders larger than ${limitMb}MB, "${from}" is larger`);
  }
}

/** Copies a directory and everything below it to `to`, which must not exist yet. */
export async function copyTree(store: ContentsStore, from: string, to: string): Promise<void> {
  await store.mkdir(to);
  for (const entry of await store.list(from)) {
    const source = joinPath(from, entry.name);
    const target = joinPath(to, entry.name);
    if (entry.stat.kind === 'directory') await copyTree(store, source, target);
    else await store.write(target, await store.read(source));
  }
}
