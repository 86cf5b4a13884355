/**
 * The recent output of a terminal, bounded: what a (re)connecting client is shown, and where a
 * client that fell behind catches up from. Positions are absolute offsets into everything the
 * terminal ever printed (in UTF-16 code units), so a client can say "I have seen up to here".
 */
export class Scrollback {
  readonly #maxLength: number;
  #chunks: string[] = [];
  #head = 0; // index of the first live chunk in #chunks (shifting arrays is O(n))
  #length = 0;
  #start = 0;
  #end = 0;

  /** `maxLength`: how much output is kept, in UTF-16 code units (about characters). */
  constructor(maxLength: number) {
    this.#maxLength = Math.max(1, Math.floor(maxLength));
  }

  /** Offset of the oldest output still kept. */
  get start(): number {
    return this.#start;
  }

  /** Offset just past the newest output. */
  get end(): number {
    return this.#end;
  }

  append(text: string): void {
    if (text === '') return;
    this.#chunks.push(text);
    this.#length += text.length;
    this.#end += text.length;
    // Whole chunks are dropped first (a read rarely ends inside an escape sequence); only a chunk
    // bigger than the whole buffer is cut, and then at a line start when there is one.
    while (this.#length > this.#maxLength && this.#chunks.length - this.#head > 1) {
      const dropped = this.#chunks[this.#head] as string;
      this.#head++;
      this.#length -= dropped.length;
      this.#start += dropped.length;
    }
    if (this.#length > this.#maxLength) {
      const only = this.#chunks[this.#head] as string;
      let cut = only.length - this.#maxLength;
      const line = only.indexOf('\n', cut);
      if (line !== -1 && line + 1 < only.length) cut = line + 1;
      this.#chunks[this.#head] = only.slice(cut);
      this.#length -= cut;
      this.#start += cut;
    }
    if (this.#head > 1024 && this.#head * 2 > this.#chunks.length) {
      this.#chunks = this.#chunks.slice(this.#head);
      this.#head = 0;
    }
  }

  /** Everything kept from `offset` on (from the start when `offset` is older than that). */
  since(offset: number): string {
    if (offset >= this.#end) return '';
    let position = this.#start;
    const parts: string[] = [];
    for (let i = this.#head; i < this.#chunks.length; i++) {
      const chunk = this.#chunks[i] as string;
      const next = position + chunk.length;
      if (next > offset) parts.push(offset > position ? chunk.slice(offset - position) : chunk);
      position = next;
    }
    return parts.join('');
  }

  /** Everything kept. */
  text(): string {
    return this.since(this.#start);
  }
}
