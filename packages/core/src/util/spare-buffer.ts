export interface SpareBufferOptions {
  /** Requests below this size allocate and are not kept. Default 1 MiB. */
  minBytes?: number;
  /** No buffer bigger than this is kept. Default 64 MiB. */
  maxBytes?: number;
  /** The spare is dropped after this long unused. Default 60 s. */
  idleMs?: number;
  /**
   * Fresh big buffers are this fraction bigger than asked (pages never written cost no memory),
   * so a buffer given back fits the next, somewhat bigger request. Default 0.
   */
  headroom?: number;
}

/**
 * One big buffer kept between uses, for work that needs tens of megabytes at a time (reading a
 * 20 MB request body, serializing a 20 MB notebook). Fresh memory costs a page fault per 4 KiB
 * page on first touch: about 12 ms for 20 MB on a VM, as much as the work itself. A reused
 * buffer costs none.
 *
 * Never shared: `take` hands the spare out (or allocates when it is out or too small) and only
 * `give` makes a buffer available again, so a caller must give back only what nothing reads or
 * writes any more.
 */
export class SpareBuffer {
  #spare: Buffer | null = null;
  #timer: ReturnType<typeof setTimeout> | undefined;
  readonly #min: number;
  readonly #max: number;
  readonly #idleMs: number;
  readonly #headroom: number;

  constructor(options: SpareBufferOptions = {}) {
    // never below Node's 8 KiB pool slabs: a small Buffer may share its memory with others
    this.#min = Math.max(options.minBytes ?? 1024 * 1024, 64 * 1024);
    this.#max = options.maxBytes ?? 64 * 1024 * 1024;
    this.#idleMs = options.idleMs ?? 60_000;
    this.#headroom = options.headroom ?? 0;
  }

  /** At least `length` bytes (contents undefined), the spare when it is free and big enough. */
  take(length: number): Buffer {
    const spare = this.#spare;
    if (length >= this.#min && spare !== null && spare.byteLength >= length) {
      this.#spare = null;
      return spare;
    }
    if (length < this.#min) return Buffer.allocUnsafe(length);
    const size = Math.min(Math.max(this.#max, length), Math.ceil(length * (1 + this.#headroom)));
    return Buffer.allocUnsafeSlow(size);
  }

  /** Keeps the memory behind `buffer` (a buffer from `take`, or part of one) for the next `take`. */
  give(buffer: Uint8Array): void {
    const whole = Buffer.from(buffer.buffer, 0, buffer.buffer.byteLength);
    if (buffer.byteLength < this.#min || whole.byteLength > this.#max) return;
    if (this.#spare !== null && this.#spare.byteLength >= whole.byteLength) return;
    this.#spare = whole;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#spare = null;
    }, this.#idleMs);
    this.#timer.unref?.();
  }

  /** Bytes currently kept. */
  get keptBytes(): number {
    return this.#spare?.byteLength ?? 0;
  }
}

/**
 * The spares of one server, or of one contents manager used alone: a server builds one where it
 * composes its managers and hands it to its contents manager and its request-body reader, so two
 * servers in one process never lend each other's memory.
 */
export class LentBuffers {
  /**
   * For request bodies and saved notebooks: a 20 MB save reads its body into it, gives it back
   * once decoded, and serializes the notebook into the same memory, so a save keeps one 20 MB
   * buffer between saves, not two.
   */
  readonly shared = new SpareBuffer({ headroom: 0.25 });
  /**
   * For what needs another big buffer while the shared one is in use: a notebook's first open
   * writes its answer here while the file's bytes are in the shared one, and a save parsed from
   * its body's bytes serializes here while the body is in the shared one.
   */
  readonly second = new SpareBuffer({ headroom: 0.25 });
}
