import { statSync } from 'node:fs';
import path from 'node:path';

/**
 * How long after a change a file's times may still look unchanged by a second change: Linux
 * stamps files with a coarse clock (a few ms) and some filesystems (FAT, some network mounts)
 * only to the second or two.
 */
const TIMESTAMP_GRANULARITY_MS = 2000;

const MISSING = 'missing';

/**
 * What a kernelspec listing was read from: for each path its inode, size and times (or that it
 * was missing). While every stamp still matches the disk, nothing the listing shows has changed:
 * a spec directory appearing or going changes its parent's mtime, a kernel.json edited in place
 * changes its own, and a search directory that does not exist yet is covered by its nearest
 * existing ancestor, whose mtime changes when the missing part is created.
 */
export class DiskStamps {
  readonly #stamps = new Map<string, string>();
  #newestChangeMs = 0;

  /** Records the current state of `file`; stamp before reading, so a change after it is seen. */
  add(file: string): boolean {
    const { stamp, changedMs } = stampOf(file);
    this.#stamps.set(file, stamp);
    this.#newestChangeMs = Math.max(this.#newestChangeMs, changedMs);
    return stamp !== MISSING;
  }

  /** Records a search directory, or when it is missing, the ancestors up to the first that exists. */
  addSearchDir(dir: string): boolean {
    if (this.add(dir)) return true;
    let current = dir;
    while (path.dirname(current) !== current) {
      current = path.dirname(current);
      if (this.add(current)) break;
    }
    return false;
  }

  /**
   * True when every recorded path is as it was. Synchronous on purpose: a `stat` takes a few
   * microseconds, a tenth of a round trip through libuv's thread pool.
   */
  unchanged(): boolean {
    for (const [file, stamp] of this.#stamps) if (stampOf(file).stamp !== stamp) return false;
    return true;
  }

  /**
   * Whether the stamps can be trusted: a change made within the timestamp granularity of the
   * newest recorded change could leave its times as they were, so a listing read that soon
   * after a change is re-read next time.
   */
  settledBefore(readStartedMs: number): boolean {
    return this.#newestChangeMs < readStartedMs - TIMESTAMP_GRANULARITY_MS;
  }
}

function stampOf(file: string): { stamp: string; changedMs: number } {
  try {
    const s = statSync(file, { throwIfNoEntry: false });
    if (!s) return { stamp: MISSING, changedMs: 0 };
    return {
      stamp: `${s.dev}:${s.ino}:${s.size}:${s.mtimeMs}:${s.ctimeMs}`,
      changedMs: Math.max(s.mtimeMs, s.ctimeMs),
    };
  } catch {
    // Missing, or not reachable (ENOTDIR, EACCES): either way there is nothing to list there.
    return { stamp: MISSING, changedMs: 0 };
  }
}
