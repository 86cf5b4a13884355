import type { StoreStat } from '../store.js';

/** A notebook as a GET serves it: its content already as JSON text, with what the model adds. */
export interface ServedNotebook {
  /** UTF-8 of `JSON.stringify` of the served content (lines joined, code cells marked trusted or not). */
  contentJson: Uint8Array;
  /** Bytes of the stored file. */
  size: number;
  /** nbformat validation message, if any. */
  message: string | null;
}

interface Entry extends ServedNotebook {
  mtimeMs: number;
  createdMs: number;
}

/**
 * The served JSON of recently read notebooks, keyed by path and checked against the file's
 * (mtime, ctime/birth time, size) on every use, so an edit on disk is never served stale.
 * Reopening a 20 MB notebook then costs a stat instead of read + parse + validate + HMAC +
 * stringify. Bounded by total bytes, least recently used first out.
 */
export class ServedNotebookCache {
  readonly #entries = new Map<string, Entry>();
  readonly #maxBytes: number;
  #bytes = 0;

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  /** Whether anything is kept at all. */
  get enabled(): boolean {
    return this.#maxBytes > 0;
  }

  get(path: string, stat: StoreStat): ServedNotebook | null {
    const entry = this.#entries.get(path);
    if (!entry) return null;
    if (entry.mtimeMs !== stat.mtimeMs || entry.createdMs !== stat.createdMs || entry.size !== stat.size) {
      this.delete(path);
      return null;
    }
    // Most recently used goes last, so eviction takes the least recently used.
    this.#entries.delete(path);
    this.#entries.set(path, entry);
    return entry;
  }

  set(path: string, stat: StoreStat, served: ServedNotebook): void {
    this.delete(path);
    const bytes = served.contentJson.byteLength;
    if (bytes > this.#maxBytes) return;
    while (this.#bytes + bytes > this.#maxBytes) {
      const oldest = this.#entries.keys().next().value;
      if (oldest === undefined) break;
      this.delete(oldest);
    }
    this.#entries.set(path, { ...served, mtimeMs: stat.mtimeMs, createdMs: stat.createdMs });
    this.#bytes += bytes;
  }

  delete(path: string): void {
    const entry = this.#entries.get(path);
    if (!entry) return;
    this.#entries.delete(path);
    this.#bytes -= entry.contentJson.byteLength;
  }

  clear(): void {
    this.#entries.clear();
    this.#bytes = 0;
  }
}
