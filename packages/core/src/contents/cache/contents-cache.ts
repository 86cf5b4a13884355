import { LentBuffers } from '../../util/spare-buffer.js';
import type { ContentsModel } from '../model.js';
import type { ContentsStore } from '../store.js';
import { KeptListings } from './kept-listings.js';
import { ServedListings } from './served-listings.js';
import { ServedNotebookCache } from './served-notebooks.js';
import { SortedNamesCache } from './sorted-names.js';

export interface ContentsCacheOptions {
  store: ContentsStore;
  /** Bytes of served notebook JSON kept for reopening unchanged notebooks; 0 = none. */
  notebookCacheBytes: number;
  /** The server's spares, which its request bodies are read into too; default: spares of its own. */
  lent?: LentBuffers | undefined;
}

/**
 * Everything the contents manager serves again instead of reading it afresh, under one rule: an
 * entry holds only while the version it was built under holds, and a change made through the
 * manager drops everything it touched (`changed`).
 *
 * - A directory's version is `ContentsStore.directoryVersion` (device, inode, mtime and ctime of
 *   a settled directory on a local file system), which any entry added, removed or renamed by any
 *   program changes. Its sorted names (SortedNamesCache) hold while it does; its entries' stats
 *   (KeptListings) also need the watch on the directory (ContentsStore.watchChildren) to have
 *   seen no change, because an in-place edit of a file changes no directory's version.
 * - A notebook's version is its own stat (mtime, ctime, size): its served JSON
 *   (ServedNotebookCache) holds while that does. A signature drops them all (`trustChanged`).
 * - A serialized listing is shared for 100 ms by the requests that poll it (ServedListings),
 *   while the directory's mtime holds.
 *
 * Where the store's stats do not follow every change (StoreCapabilities.statTracksChanges) no
 * served answer is kept. The lent buffers are the server's (see LentBuffers): a request body is
 * read into the shared one before anything knows what it is for.
 */
export class ContentsCache {
  readonly sortedNames = new SortedNamesCache();
  readonly keptListings: KeptListings;
  readonly notebooks: ServedNotebookCache;
  /** `null` where the store's stats do not follow every change. */
  readonly servedListings: ServedListings | null;
  /** Memory lent for big bodies, reads and saves, and a second one for what needs two at once. */
  readonly lent: LentBuffers;
  /** Directory listings being built, joined by concurrent requests for the same directory. */
  readonly #building = new Map<string, Promise<ContentsModel[]>>();
  /** Big notebooks served once without keeping their JSON: path -> the stat they had. */
  readonly #openedOnce = new Map<string, string>();

  constructor(options: ContentsCacheOptions) {
    const tracked = options.store.capabilities?.statTracksChanges === true;
    this.keptListings = new KeptListings(options.store);
    this.notebooks = new ServedNotebookCache(tracked ? options.notebookCacheBytes : 0);
    this.servedListings = tracked ? new ServedListings() : null;
    this.lent = options.lent ?? new LentBuffers();
  }

  /** `build()`'s listing of `path`, or the one already being built for it since the last change. */
  building(path: string, build: () => Promise<ContentsModel[]>): Promise<ContentsModel[]> {
    let pending = this.#building.get(path);
    if (!pending) {
      pending = build().finally(() => {
        if (this.#building.get(path) === pending) this.#building.delete(path);
      });
      this.#building.set(path, pending);
    }
    return pending;
  }

  /** Whether the big notebook at `path` was served once before under `statKey` (see ServedBytes). */
  openedOnce(path: string, statKey: string): boolean {
    return this.#openedOnce.get(path) === statKey;
  }

  rememberOpened(path: string, statKey: string | null): void {
    if (statKey === null) {
      this.#openedOnce.delete(path);
      return;
    }
    if (this.#openedOnce.size >= MAX_OPENED_ONCE) this.#openedOnce.clear();
    this.#openedOnce.set(path, statKey);
  }

  /**
   * Something changed through the manager: listings are built afresh (a client sees its own
   * writes), and a notebook at `path` (saved, renamed or deleted) no longer holds its served JSON.
   */
  changed(path?: string): void {
    this.#building.clear();
    this.sortedNames.clear();
    this.keptListings.clear();
    this.servedListings?.clear();
    if (path !== undefined) {
      this.notebooks.delete(path);
      this.#openedOnce.delete(path);
    }
  }

  /** Something was signed: notebooks served before may be trusted now. */
  trustChanged(): void {
    this.notebooks.clear();
  }
}

/** Notebooks opened once, remembered so that the next open keeps their JSON. */
const MAX_OPENED_ONCE = 256;
