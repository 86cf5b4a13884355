/**
 * Where the values of a JSON object's top-level keys sit in its UTF-8 text, without building
 * anything: the kernel-message decoder uses it to forward a client's `header`, `parent_header`,
 * `metadata` and `content` to the kernel as the very bytes the client sent, instead of
 * serializing the parsed values again. Only for text JSON.parse has already accepted: the scanner
 * follows the grammar but does not check it.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

function isSpace(byte: number | undefined): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

function skipSpace(bytes: Uint8Array, at: number): number {
  while (isSpace(bytes[at])) at++;
  return at;
}

/** `at` is an opening quote; returns the index after the closing one, or -1. */
function endOfString(bytes: Buffer, at: number): number {
  let quote = at + 1;
  for (;;) {
    quote = bytes.indexOf(QUOTE, quote);
    if (quote < 0) return -1;
    let backslashes = 0;
    while (bytes[quote - 1 - backslashes] === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
    quote++;
  }
}

/** `at` is the first byte of a value; returns the index after it, or -1. */
function endOfValue(bytes: Buffer, at: number): number {
  const first = bytes[at];
  if (first === QUOTE) return endOfString(bytes, at);
  if (first === 0x7b || first === 0x5b) {
    let depth = 0;
    while (at < bytes.length) {
      const byte = bytes[at];
      if (byte === QUOTE) {
        at = endOfString(bytes, at);
        if (at < 0) return -1;
        continue;
      }
      if (byte === 0x7b || byte === 0x5b) depth++;
      else if (byte === 0x7d || byte === 0x5d) {
        depth--;
        if (depth === 0) return at + 1;
      }
      at++;
    }
    return -1;
  }
  // a number, true, false or null
  while (at < bytes.length && bytes[at] !== 0x2c && bytes[at] !== 0x7d && !isSpace(bytes[at])) at++;
  return at;
}

function keyIs(bytes: Buffer, start: number, end: number, key: Buffer): boolean {
  return end - start === key.length && bytes.compare(key, 0, key.length, start, end) === 0;
}

export type PartName = 'header' | 'parent_header' | 'metadata' | 'content';
const PART_KEYS: Array<[PartName, Buffer]> = (['header', 'parent_header', 'metadata', 'content'] as const).map(
  (name) => [name, Buffer.from(name)],
);

/**
 * The [start, end) byte ranges of the message parts' values in `bytes` (a JSON object), the last
 * of duplicate keys winning as in JSON.parse; undefined when the text is not an object or a key
 * is written with escapes (the caller then serializes the parsed values instead).
 */
export function messagePartSpans(bytes: Buffer): Partial<Record<PartName, [number, number]>> | undefined {
  const spans: Partial<Record<PartName, [number, number]>> = {};
  let at = skipSpace(bytes, 0);
  if (bytes[at] !== 0x7b) return undefined;
  at = skipSpace(bytes, at + 1);
  if (bytes[at] === 0x7d) return spans;
  for (;;) {
    if (bytes[at] !== QUOTE) return undefined;
    const keyEnd = endOfString(bytes, at);
    if (keyEnd < 0) return undefined;
    const keyStart = at + 1;
    for (let i = keyStart; i < keyEnd - 1; i++) if (bytes[i] === BACKSLASH) return undefined;
    at = skipSpace(bytes, keyEnd);
    if (bytes[at] !== 0x3a) return undefined;
    const valueStart = skipSpace(bytes, at + 1);
    const valueEnd = endOfValue(bytes, valueStart);
    if (valueEnd < 0) return undefined;
    for (const [name, key] of PART_KEYS) {
      if (keyIs(bytes, keyStart, keyEnd - 1, key)) spans[name] = [valueStart, valueEnd];
    }
    at = skipSpace(bytes, valueEnd);
    if (bytes[at] === 0x2c) {
      at = skipSpace(bytes, at + 1);
      continue;
    }
    return bytes[at] === 0x7d ? spans : undefined;
  }
}
