/** A directory's listed names in listing order: its subdirectories first, then the rest. */
export interface SortedNames {
  names: readonly string[];
  /** How many of `names` are subdirectories. */
  directories: number;
}

/**
 * Sorted child names of big directories, for listings whole or paged: a page of a 100,000-entry
 * folder then costs the stats of its own entries, and a whole listing only its stats, not a
 * readdir and a sort of every name. An entry is only used while the directory's version (see
 * `ContentsStore.directoryVersion`: device, inode, mtime and ctime, given only on a local file
 * system and for a directory not changed in the last seconds) is the one it was read under, so
 * an entry added, removed or renamed by any program is seen at once. The entries' stats are not
 * kept here (KeptListings keeps them where a watch on the directory allows).
 */
export class SortedNamesCache {
  /** Directories smaller than this are listed afresh each time (it costs less than a millisecond). */
  static readonly MIN_ENTRIES = 2048;
  /** At most this many directories are kept (100,000 names take a few MB). */
  static readonly MAX_DIRECTORIES = 4;
  readonly #entries = new Map<string, { version: string; listed: SortedNames }>();

  /** The names read under `version`, or undefined. */
  get(path: string, version: string): SortedNames | undefined {
    const entry = this.#entries.get(path);
    if (!entry) return undefined;
    if (entry.version !== version) {
      this.#entries.delete(path);
      return undefined;
    }
    // most recently used last
    this.#entries.delete(path);
    this.#entries.set(path, entry);
    return entry.listed;
  }

  /** Keeps the names read after the directory's version was found to be `version`. */
  set(path: string, version: string, listed: SortedNames): void {
    this.#entries.delete(path);
    if (listed.names.length < SortedNamesCache.MIN_ENTRIES) return;
    this.#entries.set(path, { version, listed: { names: listed.names, directories: listed.directories } });
    for (const oldest of this.#entries.keys()) {
      if (this.#entries.size <= SortedNamesCache.MAX_DIRECTORIES) break;
      this.#entries.delete(oldest);
    }
  }

  clear(): void {
    this.#entries.clear();
  }
}
