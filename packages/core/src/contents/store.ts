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

export interface StoreEntry {
  name: string;
  stat: StoreStat;
}

export interface ContentsStore {
  /** `null` when nothing is there (or the entry is not reachable inside the root). */
  stat(path: string): Promise<StoreStat | null>;
  /** Children of a directory with their stats; unreadable, special and escaping entries are left out. */
  list(path: string): Promise<StoreEntry[]>;
  read(path: string): Promise<Uint8Array>;
  /**
   * The file's bytes as a stream, for serving large files without buffering them; `range`
   * (inclusive byte offsets, already checked against the size) serves part of it.
   */
  readStream(path: string, range?: ByteRange): Promise<{ stat: StoreStat; stream: ReadableStream<Uint8Array> }>;
  /**
   * Replaces the file atomically: readers see the old bytes or the new ones, never a mix.
   * `data` is lent for the call: a store that keeps it must copy it (callers reuse their buffers).
   */
  write(path: string, data: Uint8Array): Promise<void>;
  /** Appends to a file (chunked uploads); creates it when missing. */
  append(path: string, data: Uint8Array): Promise<void>;
  /** Creates one directory; its parent must exist. */
  mkdir(path: string): Promise<void>;
  /** Moves a file or directory; the target must not exist (the manager checks, the store refuses). */
  rename(from: string, to: string): Promise<void>;
  /** Deletes a file, or a directory with everything in it. */
  remove(path: string): Promise<void>;
}
