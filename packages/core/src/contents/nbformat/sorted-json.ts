import type { SpareBuffer } from '../../util/spare-buffer.js';
import { type EscapeScanner, escapeScanner } from './escape-scan.js';

/**
 * Python's `json.dumps(value, sort_keys=True, indent=1, ensure_ascii=False)` as nbformat writes
 * it, straight to UTF-8: the bytes of `JSON.stringify(sortKeys(value), null, 1) + suffix` (tested
 * against exactly that), without the sorted copy of the tree, the 20 MB string and its separate
 * encoding. Long strings that need no escaping (base64 images, mostly) are copied as they are
 * after a SIMD check instead of going through `JSON.stringify`, which is most of the time saved.
 *
 * For JSON data (what `JSON.parse` returns); like `JSON.stringify`, `undefined`, functions and
 * symbols are left out of objects and become `null` in arrays. Keys are ordered as a JavaScript
 * object created in sorted key order orders them: array-index keys ("0", "10") first in numeric
 * order, then the rest sorted by UTF-16 code units. Unlike a sorted copy, a `"__proto__"` key is
 * kept (assigning it to a copy would set the copy's prototype instead), as nbformat keeps it.
 *
 * With `buffers`, the output is written into its spare when that is big enough (the caller gives
 * it back once done with the bytes).
 */
export function sortedJsonBytes(value: unknown, suffix = '', buffers?: SpareBuffer, raw?: RawStrings): Buffer {
  const writer = new Writer(estimateBytes(value, 0, raw) + suffix.length, buffers, raw);
  writer.value(value, 0);
  writer.text(suffix);
  return writer.finish();
}

/** Strings at least this long are flushed and checked with the scanner; shorter ones go through JSON.stringify. */
const LONG_STRING = 256;
/** Characters per scratch round: at most 3 UTF-8 bytes each, so 192 KiB of the 256 KiB scratch. */
const CHUNK = 65536;
/** Pending small text is written out when it gets this long. */
const FLUSH_AT = 32768;

const NEWLINES: string[] = [];
const newline = (depth: number) => (NEWLINES[depth] ??= `\n${' '.repeat(depth)}`);

const ARRAY_INDEX = /^(?:0|[1-9]\d{0,9})$/;
const isArrayIndex = (key: string) => ARRAY_INDEX.test(key) && Number(key) < 4294967295;

/** The keys of `object` in the order a copy with its keys inserted sorted would have. */
function orderedKeys(object: object): string[] {
  const keys = Object.keys(object);
  // Object.keys lists array-index keys first, already in numeric order.
  if (keys.length === 0 || !isArrayIndex(keys[0] as string)) return keys.sort();
  let indices = 1;
  while (indices < keys.length && isArrayIndex(keys[indices] as string)) indices++;
  return [...keys.slice(0, indices), ...keys.slice(indices).sort()];
}

export const skipped = (value: unknown) =>
  value === undefined || typeof value === 'function' || typeof value === 'symbol';

/** For a marker of parseJsonBytes, the bytes it stands for; `undefined` for any other string. */
export type RawStrings = (value: string) => Uint8Array | undefined;

/** A string's length in the output, exact for ASCII that needs no escapes (and for a marker of `raw`). */
export function stringBytes(value: string, raw: RawStrings | undefined): number {
  return (raw !== undefined && value.charCodeAt(0) === 0 ? raw(value)?.byteLength : undefined) ?? value.length;
}

/** Roughly the output size, so the buffer is allocated once: exact for ASCII text that needs no escapes. */
function estimateBytes(value: unknown, depth: number, raw: RawStrings | undefined): number {
  if (typeof value === 'string') return stringBytes(value, raw) + 2;
  if (typeof value !== 'object' || value === null) return 8;
  let total = 2 + depth;
  if (Array.isArray(value)) {
    for (const item of value) total += depth + 3 + estimateBytes(item, depth + 1, raw);
    return total;
  }
  for (const key of Object.keys(value)) {
    total += depth + key.length + 6 + estimateBytes((value as Record<string, unknown>)[key], depth + 1, raw);
  }
  return total;
}

/** Builds UTF-8 JSON in one buffer: small text batched, long plain strings copied after a SIMD check. */
export class Writer {
  #buf: Buffer;
  #pos = 0;
  /** Small text not yet in the buffer: punctuation, indentation, numbers and short strings. */
  #pending = '';
  readonly #scanner: EscapeScanner | null = escapeScanner();
  /** The bytes a marker of parseJsonBytes stands for (see CutJson.raw). */
  readonly #raw: RawStrings | undefined;

  constructor(estimate: number, buffers: SpareBuffer | undefined, raw?: RawStrings) {
    const size = estimate + (estimate >>> 4) + 1024;
    this.#buf = buffers ? buffers.take(size) : Buffer.allocUnsafe(size);
    this.#raw = raw;
  }

  value(value: unknown, depth: number): void {
    switch (typeof value) {
      case 'string':
        this.string(value);
        return;
      case 'number':
        this.text(Number.isFinite(value) ? String(value) : 'null');
        return;
      case 'boolean':
        this.text(value ? 'true' : 'false');
        return;
      case 'object':
        if (value === null) this.text('null');
        else if (Array.isArray(value)) this.#array(value, depth);
        else this.#object(value as Record<string, unknown>, depth);
        return;
      case 'bigint':
        JSON.stringify(value); // throws the TypeError JSON.stringify throws
        return;
      default:
        this.text('null'); // undefined, functions and symbols in arrays
    }
  }

  #array(array: unknown[], depth: number): void {
    if (array.length === 0) {
      this.text('[]');
      return;
    }
    const inner = newline(depth + 1);
    for (let i = 0; i < array.length; i++) {
      this.text(i === 0 ? `[${inner}` : `,${inner}`);
      this.value(array[i], depth + 1);
    }
    this.text(`${newline(depth)}]`);
  }

  #object(object: Record<string, unknown>, depth: number): void {
    const inner = newline(depth + 1);
    let first = true;
    for (const key of orderedKeys(object)) {
      const item = object[key];
      if (skipped(item)) continue;
      this.text(`${first ? '{' : ','}${inner}${JSON.stringify(key)}: `);
      first = false;
      this.value(item, depth + 1);
    }
    this.text(first ? '{}' : `${newline(depth)}}`);
  }

  text(text: string): void {
    this.#pending += text;
    if (this.#pending.length >= FLUSH_AT) this.#flush();
  }

  string(value: string): void {
    const raw = this.#raw !== undefined && value.charCodeAt(0) === 0 ? this.#raw(value) : undefined;
    if (raw !== undefined) {
      this.text('"');
      this.#flush();
      this.#append(raw);
      this.text('"');
      return;
    }
    if (value.length < LONG_STRING || this.#scanner === null) {
      this.text(JSON.stringify(value));
      return;
    }
    this.#flush();
    // A lone surrogate is escaped by JSON.stringify but would be mangled by UTF-8 encoding.
    if ((value as { isWellFormed?: () => boolean }).isWellFormed?.() === true) {
      const start = this.#pos;
      this.#write('"', false);
      if (this.#write(value, true)) {
        this.#write('"', false);
        return;
      }
      this.#pos = start;
    }
    this.#write(JSON.stringify(value), false);
  }

  #flush(): void {
    if (this.#pending === '') return;
    this.#write(this.#pending, false);
    this.#pending = '';
  }

  /**
   * Appends well-formed text as UTF-8, a scratch-full at a time. With `plain`, stops and returns
   * false as soon as a part of it would need JSON escaping.
   */
  #write(text: string, plain: boolean): boolean {
    const scanner = this.#scanner;
    if (scanner === null) {
      this.#append(Buffer.from(text));
      return true;
    }
    const { scratch } = scanner;
    for (let from = 0; from < text.length; ) {
      let to = Math.min(text.length, from + CHUNK);
      // never split a surrogate pair between two rounds
      if (to < text.length && (text.charCodeAt(to - 1) & 0xfc00) === 0xd800) to--;
      const bytes = scratch.write(from === 0 && to === text.length ? text : text.slice(from, to), 0);
      if (plain && scanner.clean(0, bytes) !== 1) return false;
      this.#append(scratch.subarray(0, bytes));
      from = to;
    }
    return true;
  }

  #append(bytes: Uint8Array): void {
    if (this.#pos + bytes.byteLength > this.#buf.byteLength) {
      const grown = Buffer.allocUnsafe(Math.max(this.#buf.byteLength * 2, this.#pos + bytes.byteLength));
      this.#buf.copy(grown, 0, 0, this.#pos);
      this.#buf = grown;
    }
    this.#buf.set(bytes, this.#pos);
    this.#pos += bytes.byteLength;
  }

  finish(): Buffer {
    this.#flush();
    return this.#buf.subarray(0, this.#pos);
  }
}
