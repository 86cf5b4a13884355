/**
 * Storage behind the ContentsManager. Paths are normalized API paths (see paths.ts): relative,
 * `/`-separated, `""` for the root. A store never interprets Jupyter semantics (hidden files,
 * naming, formats); it only moves bytes and keeps every path inside its root.
 */
export interface StoreStat {
  kind: 'file' | 'directory';
  /** Bytes for files; directories report whatever the backend has (ignored by the manager). */
  size: number;
  /** Epoch milliseconds, fractional part kept for microsecond timestamps. */
  mtimeMs: number;
  /** Birth time where the backend has it, else change time. */
  createdMs: number;
  writable: boolean;
}

/** Inclusive byte offsets, as in an HTTP `Range: bytes=start-end`. */
export interface ByteRange {
  start: number;
  end: number;
}

/** Children of a directory by kind, names only, in no particular order. */
export interface StoreNames {
  files: string[];
  directories: string[];
  /** How many of them are symbolic links (resolved on each listing: their kinds may change). */
  links?: number;
}

/** A watch on a directory's entries (see ContentsStore.watchChildren). */
export interface ChildrenWatch {
  /** Whether a change was seen since the watch began. */
  readonly changed: boolean;
  /** Stops watching; `changed` stays as it was. */
  close(): void;
}

/** A watch on one file (see ContentsStore.watchFile). */
export interface FileWatch {
  close(): void;
}

export interface StoreEntry {
  name: string;
  stat: StoreStat;
}

/**
 * What a store promises beyond the ContentsStore contract. The manager's fast paths rely on these
 * promises and ask for them here; a store that does not declare them (a third-party store, unless
 * it opts in) gets the same answers, only without those fast paths.
 */
export interface StoreCapabilities {
  /**
   * `stat` follows every change: a file's (`mtimeMs`, `createdMs`, `size`) differ after its bytes
   * change, a directory's `mtimeMs` after an entry is added, removed or renamed. The manager then
   * serves notebook JSON and listings it built before while they are unchanged.
   */
  readonly statTracksChanges: boolean;
  /**
   * `write` and `append` are done with `data` once their promise settles (written out or copied,
   * never kept), so the manager reuses one buffer for serializing notebooks from save to save.
   */
  readonly releasesWrittenData: boolean;
}

/** How `ContentsStore.write` replaces a file. */
export interface WriteOptions {
  /**
   * Called when the new bytes are ready to replace the file (written, synced), just before they
   * do; a throw leaves the file as it was. A save checks its precondition again here, so that
   * a rewrite by another program while it wrote and synced is refused, not overwritten.
   */
  beforeReplace?: (() => Promise<void>) | undefined;
}

export interface ContentsStore {
  /** Fast paths this store allows (see StoreCapabilities); none when absent. */
  readonly capabilities?: StoreCapabilities;
  /** `null` when nothing is there (or the entry is not reachable inside the root). */
  stat(path: string): Promise<StoreStat | null>;
  /** Children of a directory with their stats; unreadable, special and escaping entries are left out. */
  list(path: string): Promise<StoreEntry[]>;
  /**
   * Optional: the children's names and kinds without a stat each (what `list` would list, except
   * that an entry whose stat fails is still here), so a page of a huge directory stats only its
   * own entries. Without it a page is cut from `list`.
   */
  listKinds?(path: string): Promise<StoreNames>;
  /**
   * Optional, with `listKinds`: stats of some children of a directory (`names` as `listKinds`
   * gave them), `null` for one that is gone or unreadable; all `null` when the directory is.
   * Without it each child is `stat`ed by its path.
   */
  statChildren?(path: string, names: readonly string[]): Promise<(StoreStat | null)[]>;
  /**
   * Optional: a token that changes whenever an entry of the directory is added, removed or
   * renamed (by anyone), so `listKinds` may be reused while it stays the same; `null` where
   * that cannot be known (a network file system, a directory changed in the last seconds).
   */
  directoryVersion?(path: string): Promise<string | null>;
  /**
   * Optional, with `listKinds`: statChildren for `names[start..end)` without an array of results:
   * `visit(i, stat)` for each child that is there, in order. `stat` is lent for the call only
   * (the store may reuse one object for all), so a listing writes each entry out at once.
   */
  statChildrenEach?(
    path: string,
    names: readonly string[],
    start: number,
    end: number,
    visit: (index: number, stat: StoreStat) => void,
  ): Promise<void>;
  /**
   * Optional: a watch that sees every change any program makes to what a listing of the
   * directory shows: an entry added, removed or renamed, a file's bytes or attributes changed in
   * place, and an entry added, removed or renamed in one of `subdirectories` (which changes its
   * mtime). `null` where that cannot be promised (a network file system, no watches left). A
   * listing built after the watch began is then served again until it sees a change.
   */
  watchChildren?(path: string, subdirectories: readonly string[]): Promise<ChildrenWatch | null>;
  /**
   * Optional: calls `onChange` soon after any program changes the file's bytes, replaces it (an
   * atomic save) or removes it; `null` where that cannot be promised (a network file system).
   */
  watchFile?(path: string, onChange: () => void): Promise<FileWatch | null>;
  read(path: string): Promise<Uint8Array>;
  /**
   * Optional: `read` into memory the caller lends: `take(length)` gives a buffer of at least
   * `length` bytes, called at most once; the bytes returned are in that buffer, or (a file that
   * grew while it was read) in one of the store's own.
   */
  readInto?(path: string, take: (length: number) => Uint8Array): Promise<Uint8Array>;
  /**
   * The file's bytes as a stream, for serving large files without buffering them; `range`
   * (inclusive byte offsets, already checked against the size) serves part of it.
   */
  readStream(path: string, range?: ByteRange): Promise<{ stat: StoreStat; stream: ReadableStream<Uint8Array> }>;
  /**
   * Replaces the file atomically: readers see the old bytes or the new ones, never a mix.
   * `data` is lent for the call: a store that keeps it must copy it (callers reuse their buffers).
   */
  write(path: string, data: Uint8Array, options?: WriteOptions): Promise<void>;
  /** Appends to a file (chunked uploads); creates it when missing. */
  append(path: string, data: Uint8Array): Promise<void>;
  /** Creates one directory; its parent must exist. */
  mkdir(path: string): Promise<void>;
  /** Moves a file or directory; the target must not exist (the manager checks, the store refuses). */
  rename(from: string, to: string): Promise<void>;
  /** Deletes a file, or a directory with everything in it. */
  remove(path: string): Promise<void>;
}
