import { guessMimeType } from './mimetypes.js';
import type { ContentType } from './model.js';
import type { StoreStat } from './store.js';
import { isoTimestamp } from './timestamps.js';

/** One listed child of a directory, before it becomes a model. */
export interface ListedEntry {
  name: string;
  type: ContentType;
  stat: StoreStat;
}

/**
 * A directory's children as the JSON array of their models, in UTF-8: whole, or for a big
 * directory a function giving it in parts (each call stats the entries afresh as it goes, so
 * 100,000 entries never have their stats, models or JSON in memory at once).
 */
export type ListingJson = Uint8Array<ArrayBuffer> | (() => AsyncGenerator<Uint8Array<ArrayBuffer>>);

/** Room for one entry besides its name and mimetype: the fixed fields, two timestamps, a size. */
const ENTRY_BYTES = 320;
const NO_BYTES = Buffer.alloc(0);
const TAIL = ',"content":null,"format":null,"hash":null,"hash_algorithm":null}';

/**
 * The JSON array of a directory's child models written straight as UTF-8 bytes, exactly
 * `JSON.stringify(models)` for the models `baseModel` builds (same fields, same order, `mimetype`
 * guessed for files). No model objects, no strings per entry beyond its timestamps: building
 * 10,000 models or text chunks and then encoding them cost more than the stats themselves.
 *
 * `open`, then `entry` per child, then `close`; `take` hands over what was written so far (a
 * listing can be streamed in parts) and starts a new buffer.
 */
export class ListingWriter {
  #buf: Buffer;
  #at = 0;
  #count = 0;
  /** `"dir/` (or `"` at the root): JSON escapes each character on its own, so escaped parts concatenate. */
  readonly #pathPrefix: string;
  /** The epoch second `#secondText` (`YYYY-MM-DDTHH:MM:SS`) is of. */
  #second = Number.NaN;
  #secondText = '';

  /** Bytes a new buffer starts with. */
  readonly #capacity: number;

  constructor(dir: string, capacity = 64 * 1024) {
    this.#capacity = capacity;
    this.#buf = NO_BYTES;
    this.#pathPrefix = dir === '' ? '"' : `${JSON.stringify(dir).slice(0, -1)}/`;
  }

  open(): void {
    this.#ensure(1);
    this.#buf[this.#at++] = 0x5b; // [
  }

  close(): void {
    this.#ensure(1);
    this.#buf[this.#at++] = 0x5d; // ]
  }

  entry(name: string, type: ContentType, stat: StoreStat): void {
    const mimetype = type === 'file' ? guessMimeType(name) : null;
    // a name's UTF-16 unit takes at most 6 bytes (`\u0001`), in the name and again in the path
    this.#ensure(ENTRY_BYTES + 12 * name.length + 3 * this.#pathPrefix.length + (mimetype?.length ?? 0) * 6);
    this.#ascii(this.#count++ === 0 ? '{"name":' : ',{"name":');
    const plain = isPlain(name);
    if (plain) {
      this.#buf[this.#at++] = 0x22;
      this.#ascii(name);
      this.#buf[this.#at++] = 0x22;
    } else this.#at += this.#buf.write(JSON.stringify(name), this.#at);
    this.#ascii(',"path":');
    this.#text(this.#pathPrefix);
    if (plain) {
      this.#ascii(name);
      this.#buf[this.#at++] = 0x22;
    } else this.#at += this.#buf.write(JSON.stringify(name).slice(1), this.#at);
    this.#ascii(',"type":"');
    this.#ascii(type);
    this.#ascii(stat.writable ? '","writable":true,"created":"' : '","writable":false,"created":"');
    this.#timestamp(stat.createdMs);
    this.#ascii('","last_modified":"');
    this.#timestamp(stat.mtimeMs);
    this.#ascii('","size":');
    if (type === 'directory') this.#ascii('null');
    else if (Number.isSafeInteger(stat.size) && stat.size >= 0) this.#digits(stat.size);
    else this.#ascii(JSON.stringify(stat.size));
    this.#ascii(',"mimetype":');
    if (mimetype === null) this.#ascii('null');
    else this.#text(JSON.stringify(mimetype));
    this.#ascii(TAIL);
  }

  /** The bytes written since the last `take`; the writer goes on in a new buffer, made when needed. */
  take(): Uint8Array<ArrayBuffer> {
    const out = this.#buf.subarray(0, this.#at);
    this.#buf = NO_BYTES;
    this.#at = 0;
    return new Uint8Array(out.buffer as ArrayBuffer, out.byteOffset, out.byteLength);
  }

  #ensure(bytes: number): void {
    if (this.#at + bytes <= this.#buf.byteLength) return;
    const bigger = Buffer.allocUnsafe(Math.max(this.#capacity, 2 * this.#buf.byteLength, this.#at + bytes));
    this.#buf.copy(bigger, 0, 0, this.#at);
    this.#buf = bigger;
  }

  /**
   * `isoTimestamp(epochMs)` written as digits: the part up to the second is formatted once per
   * second (files made together share it), the microseconds without a string.
   */
  #timestamp(epochMs: number): void {
    const micros = Math.floor(epochMs * 1000);
    const second = Math.floor(micros / 1_000_000);
    if (!(epochMs >= 0 && Number.isSafeInteger(micros))) {
      this.#ascii(isoTimestamp(epochMs));
      return;
    }
    if (second !== this.#second) {
      this.#secondText = isoTimestamp(second * 1000).slice(0, 19);
      this.#second = second;
    }
    this.#ascii(this.#secondText);
    this.#buf[this.#at++] = 0x2e; // .
    this.#fixedDigits(micros - second * 1_000_000, 6);
    this.#buf[this.#at++] = 0x5a; // Z
  }

  /** A non-negative safe integer in decimal, as JSON.stringify writes it. */
  #digits(value: number): void {
    let width = 1;
    for (let rest = value; rest >= 10; rest = Math.floor(rest / 10)) width++;
    this.#fixedDigits(value, width);
  }

  /** `value` in decimal, zero-padded to `width` digits. */
  #fixedDigits(value: number, width: number): void {
    const buf = this.#buf;
    let rest = value;
    for (let i = this.#at + width - 1; i >= this.#at; i--) {
      buf[i] = 0x30 + (rest % 10);
      rest = Math.floor(rest / 10);
    }
    this.#at += width;
  }

  /** A string known to be ASCII: one byte per character, no encoder call. */
  #ascii(text: string): void {
    const buf = this.#buf;
    let at = this.#at;
    for (let i = 0; i < text.length; i++) buf[at++] = text.charCodeAt(i);
    this.#at = at;
  }

  /** Any JSON text (already escaped), as UTF-8. */
  #text(text: string): void {
    if (isAscii(text)) this.#ascii(text);
    else this.#at += this.#buf.write(text, this.#at);
  }
}

/** Printable ASCII without `"` and `\`: JSON.stringify only adds the quotes. */
function isPlain(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || c > 0x7e || c === 0x22 || c === 0x5c) return false;
  }
  return true;
}

function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return false;
  return true;
}
