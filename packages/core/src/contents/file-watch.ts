import { watch } from 'node:fs';
import nodePath from 'node:path';
import type { FileWatch } from './store.js';

/**
 * Watches one file through Linux's inotify (`fs.watch`) on its directory, not on the file: an
 * editor's atomic save (write a temp file, rename it over) replaces the file's inode, which a
 * watch on the file would lose; the directory's watch sees the new entry and in-place writes
 * alike. `onChange` may be called for changes that leave the file as it was (a touch), and more
 * than once per change. `null` where it cannot watch (another platform, no inotify watches left).
 */
export function watchFile(realPath: string, onChange: () => void): FileWatch | null {
  if (process.platform !== 'linux') return null;
  const name = nodePath.basename(realPath);
  try {
    // not persistent: a watch never keeps the process alive
    const watcher = watch(nodePath.dirname(realPath), { persistent: false }, (_event, filename) => {
      if (filename === null || filename === name) onChange();
    });
    watcher.on('error', () => onChange()); // the directory went: the next look finds the file gone
    return { close: () => watcher.close() };
  } catch {
    return null;
  }
}
