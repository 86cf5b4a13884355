import type { FromWorker } from './messages.js';

/** Largest text of one `stream` message; megabytes of output travel as many bounded chunks. */
export const STREAM_CHUNK = 64 * 1024;
/** A long synchronous loop that prints still shows its output at this pace. */
const FLUSH_INTERVAL_MS = 50;

/**
 * Coalesces console output per cell and stream name, so 100 000 `console.log` calls become a
 * few messages, and splits huge writes into chunks of at most STREAM_CHUNK characters.
 */
export class StreamBuffer {
  #cell = -1;
  #name: 'stdout' | 'stderr' = 'stdout';
  #text = '';
  #lastFlush = Date.now();
  #timer: NodeJS.Timeout | undefined;

  constructor(private readonly post: (message: FromWorker) => void) {}

  write(cell: number, name: 'stdout' | 'stderr', text: string): void {
    if (text.length === 0) return;
    if (cell !== this.#cell || name !== this.#name) {
      this.flush();
      this.#cell = cell;
      this.#name = name;
    }
    this.#text += text;
    if (this.#text.length >= STREAM_CHUNK || Date.now() - this.#lastFlush >= FLUSH_INTERVAL_MS) this.flush();
    else if (!this.#timer) {
      this.#timer = setTimeout(() => this.flush(), 0);
      this.#timer.unref();
    }
  }

  flush(): void {
    if (this.#timer) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    this.#lastFlush = Date.now();
    let text = this.#text;
    this.#text = '';
    while (text.length > 0) {
      let cut = Math.min(text.length, STREAM_CHUNK);
      // Never split a surrogate pair between two messages.
      const code = text.charCodeAt(cut - 1);
      if (cut < text.length && code >= 0xd800 && code <= 0xdbff) cut--;
      this.post({ type: 'stream', cell: this.#cell, name: this.#name, text: text.slice(0, cut) });
      text = text.slice(cut);
    }
  }
}
