import type { ChildrenWatch, ContentsStore, StoreStat } from '../store.js';

interface Kept {
  /** The directory's version (ContentsStore.directoryVersion) its names were read under. */
  version: string;
  /** Begun before the entries were stat'ed. */
  watch: ChildrenWatch;
  /** The listed names (shared with the sorted-names cache). */
  names: readonly string[];
  /** The entries' stats as listed; `null` until the listing is done. */
  stats: ListedStats | null;
  at: number;
}

/** A kept listing: its names in order and their stats. */
export interface KeptListing {
  names: readonly string[];
  stats: ListedStats;
}

/**
 * The stats a listing wrote, as numbers, to write it again without a stat: 320 KB for 10,000
 * entries, where their JSON is 2.7 MB.
 */
export class ListedStats {
  readonly #values: Float64Array;

  constructor(count: number) {
    this.#values = new Float64Array(count * FIELDS).fill(Number.NaN);
  }

  get bytes(): number {
    return this.#values.byteLength;
  }

  /** Records the stat of the `i`-th name. */
  set(i: number, stat: StoreStat): void {
    const values = this.#values;
    const at = i * FIELDS;
    values[at] = (stat.kind === 'directory' ? DIRECTORY : 0) | (stat.writable ? WRITABLE : 0);
    values[at + 1] = stat.size;
    values[at + 2] = stat.mtimeMs;
    values[at + 3] = stat.createdMs;
  }

  /** `visit(i, stat)` for each recorded stat in [start, end), in order; `stat` is lent for the call. */
  each(start: number, end: number, visit: (i: number, stat: StoreStat) => void): void {
    const values = this.#values;
    const stat: StoreStat = { kind: 'file', size: 0, mtimeMs: 0, createdMs: 0, writable: false };
    for (let i = start; i < end; i++) {
      const at = i * FIELDS;
      const flags = values[at] as number;
      if (Number.isNaN(flags)) continue; // gone when it was listed
      stat.kind = flags & DIRECTORY ? 'directory' : 'file';
      stat.writable = (flags & WRITABLE) !== 0;
      stat.size = values[at + 1] as number;
      stat.mtimeMs = values[at + 2] as number;
      stat.createdMs = values[at + 3] as number;
      visit(i, stat);
    }
  }
}

/** Numbers per entry in ListedStats: flags, size, mtime, creation time. */
const FIELDS = 4;
const DIRECTORY = 2;
const WRITABLE = 1;

/**
 * Whole listings of big directories (their names and stats), written again while nothing in
 * them changes. Clients poll listings (JupyterLab every few seconds, from every tab); a 10,000-entry directory
 * costs 10,000 stats each time, about 40 ms of system calls here, and no version of a directory
 * says whether a file in it was changed in place. So a listing is kept only where the store can
 * watch the directory (ContentsStore.watchChildren: a local file system), the watch begins before
 * the entries are stat'ed, and the listing is served again only while the watch has seen no
 * change, the directory's version is the same and it is at most MAX_AGE_MS old (the bound on
 * what a watch cannot see: see FsChildrenWatch). A change through the manager drops them all.
 */
export class KeptListings {
  /** Smaller directories are listed afresh (a few ms at most). */
  static readonly MIN_ENTRIES = 2048;
  /** Bigger ones are not kept (one pass costs a second copy of its stats while listing). */
  static readonly MAX_ENTRIES = 20_000;
  /** A directory with more subdirectories is not kept (a watch each). */
  static readonly MAX_SUBDIRECTORIES = 32;
  static readonly MAX_DIRECTORIES = 8;
  static readonly MAX_BYTES = 16 * 1024 * 1024;
  static readonly MAX_AGE_MS = 60_000;

  readonly #store: ContentsStore;
  /** Least recently used first. */
  readonly #kept = new Map<string, Kept>();
  #bytes = 0;

  constructor(store: ContentsStore) {
    this.#store = store;
  }

  /** `path`'s listing, if one is kept and still holds. */
  async get(path: string): Promise<KeptListing | null> {
    const kept = this.#kept.get(path);
    if (!kept?.stats) return null;
    const version = (await this.#store.directoryVersion?.(path)) ?? null;
    // A change made before this request was sent has its event queued already: the kernel queues
    // it before the changing call returns. It is read in this turn of the event loop's poll phase
    // at the latest, so look once that phase is over.
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (this.#kept.get(path) !== kept) return null;
    if (kept.watch.changed || version !== kept.version || performance.now() - kept.at > KeptListings.MAX_AGE_MS) {
      this.#drop(path);
      return null;
    }
    this.#kept.delete(path);
    this.#kept.set(path, kept);
    return { names: kept.names, stats: kept.stats };
  }

  /**
   * Begins watching `path` before its entries are stat'ed (`names` were read under `version`, the
   * first `directories` of them subdirectories): gives the function to hand the listed stats to,
   * or `null` when this listing is not to be kept.
   */
  async watch(
    path: string,
    version: string | null,
    names: readonly string[],
    directories: number,
  ): Promise<((stats: ListedStats) => void) | null> {
    if (version === null || !this.#store.watchChildren) return null;
    if (names.length < KeptListings.MIN_ENTRIES || names.length > KeptListings.MAX_ENTRIES) return null;
    if (directories > KeptListings.MAX_SUBDIRECTORIES) return null;
    const watch = await this.#store.watchChildren(path, names.slice(0, directories)).catch(() => null);
    if (watch === null) return null;
    this.#drop(path);
    const kept: Kept = { version, watch, names, stats: null, at: performance.now() };
    this.#kept.set(path, kept);
    this.#evict();
    return (stats) => {
      // the first listing done wins; one that saw a change meanwhile is not kept
      if (this.#kept.get(path) !== kept || kept.stats !== null || watch.changed) return;
      kept.stats = stats;
      this.#bytes += bytesHeld(kept);
      this.#evict();
    };
  }

  /** Everything changed through the manager: nothing kept is served again. */
  clear(): void {
    for (const path of [...this.#kept.keys()]) this.#drop(path);
  }

  #drop(path: string): void {
    const kept = this.#kept.get(path);
    if (!kept) return;
    kept.watch.close();
    this.#bytes -= bytesHeld(kept);
    this.#kept.delete(path);
  }

  #evict(): void {
    for (const oldest of this.#kept.keys()) {
      if (this.#kept.size <= KeptListings.MAX_DIRECTORIES && this.#bytes <= KeptListings.MAX_BYTES) break;
      this.#drop(oldest);
    }
  }
}

/** About the memory a kept listing holds: its stats, and its names (if the sorted-names cache lets them go). */
function bytesHeld(kept: Kept): number {
  return kept.stats === null ? 0 : kept.stats.bytes + 64 * kept.names.length;
}
