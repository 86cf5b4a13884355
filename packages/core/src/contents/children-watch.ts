import { type FSWatcher, watch } from 'node:fs';
import type { ChildrenWatch } from './store.js';

/**
 * A ChildrenWatch over Linux's inotify (`fs.watch`). A directory's watch is told of every entry
 * created, deleted or renamed in it and of every child whose bytes (IN_MODIFY) or attributes
 * (IN_ATTRIB: mode, owner, timestamps) change; the kernel queues the event before the call that
 * made the change returns, so it is ready to read before any request sent after that change
 * (see KeptListings#get). Not seen: a write through another hard link of a file or through a
 * shared memory mapping; KeptListings bounds how long those go unseen. Other platforms' watches
 * promise less (macOS coalesces, Windows buffers), so there is none there.
 */
export class FsChildrenWatch implements ChildrenWatch {
  #changed = false;
  #watchers: FSWatcher[] = [];

  /** Watches each of `directories`; `null` if any cannot be watched. */
  static open(directories: readonly string[]): FsChildrenWatch | null {
    if (process.platform !== 'linux') return null;
    const opened = new FsChildrenWatch();
    try {
      for (const path of directories) {
        // not persistent: a watch never keeps the process alive
        const watcher = watch(path, { persistent: false }, () => opened.#sawChange());
        watcher.on('error', () => opened.#sawChange());
        opened.#watchers.push(watcher);
      }
    } catch {
      opened.close(); // gone meanwhile, or no inotify watches left (ENOSPC)
      return null;
    }
    return opened;
  }

  get changed(): boolean {
    return this.#changed;
  }

  close(): void {
    for (const watcher of this.#watchers) watcher.close();
    this.#watchers = [];
  }

  #sawChange(): void {
    this.#changed = true;
    this.close(); // one change is all a kept listing needs to know
  }
}
