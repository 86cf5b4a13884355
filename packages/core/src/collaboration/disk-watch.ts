import type { FileWatch } from '../contents/store.js';
import type { DocumentFile } from './document-file.js';

/** Changes come in bursts (a truncate and a write, a temp file renamed over): one look after the last. */
const SETTLE_MS = 20;
/** A file missing this long is gone (not renamed through the contents API, not mid-save by an editor). */
const GONE_MS = 250;

/**
 * Tells a room when its file may have changed on disk: watched (inotify, see
 * ContentsStore.watchFile) where the store can, else polled every `pollMs`. Follows the file
 * through renames (the room passes the path it has now on each look).
 */
export class DiskWatch {
  readonly #file: DocumentFile;
  readonly #pollMs: number;
  readonly #onChange: () => void;
  #watch: FileWatch | null = null;
  #watchedPath: string | undefined;
  #settle: NodeJS.Timeout | undefined;
  #poll: NodeJS.Timeout | undefined;
  #recheck: NodeJS.Timeout | undefined;
  #goneAt: number | undefined;
  #closed = false;

  constructor(file: DocumentFile, pollMs: number, onChange: () => void) {
    this.#file = file;
    this.#pollMs = pollMs;
    this.#onChange = onChange;
  }

  /** Watches `path` (again, when the file moved); polls where it cannot. */
  async follow(path: string): Promise<void> {
    if (this.#closed || path === this.#watchedPath) return;
    this.#watch?.close();
    this.#watchedPath = path;
    this.#watch = await this.#file.watch(path, () => this.#changed());
    if (this.#closed) this.#watch?.close();
    const polled = this.#watch === null && this.#pollMs > 0;
    if (polled && this.#poll === undefined) {
      this.#poll = setInterval(this.#onChange, this.#pollMs);
      this.#poll.unref();
    } else if (!polled) {
      clearInterval(this.#poll);
      this.#poll = undefined;
    }
  }

  /** The file was there at the last look. */
  present(): void {
    this.#goneAt = undefined;
  }

  /**
   * The file was missing at a look: true once it has been for GONE_MS; until then false, and
   * the room is told to look again then.
   */
  gone(): boolean {
    const now = Date.now();
    this.#goneAt ??= now;
    if (now - this.#goneAt >= GONE_MS) return true;
    this.#watchedPath = undefined; // a file moved back in place gets a new watch
    clearTimeout(this.#recheck);
    this.#recheck = setTimeout(this.#onChange, GONE_MS - (now - this.#goneAt));
    this.#recheck.unref();
    return false;
  }

  close(): void {
    this.#closed = true;
    this.#watch?.close();
    clearTimeout(this.#settle);
    clearTimeout(this.#recheck);
    clearInterval(this.#poll);
  }

  #changed(): void {
    if (this.#closed) return;
    clearTimeout(this.#settle);
    this.#settle = setTimeout(this.#onChange, SETTLE_MS);
    this.#settle.unref();
  }
}
