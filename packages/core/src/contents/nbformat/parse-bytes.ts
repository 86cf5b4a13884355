import { isAscii, isUtf8 } from 'node:buffer';
import { randomBytes } from 'node:crypto';
import { escapeScanner } from './escape-scan.js';
import { checkJsonDepth } from './parse-json.js';

/** String values at least this many bytes long (base64 images, mostly) are left in the bytes. */
const LONG_LITERAL = 16384;
/** Below this, not worth it: the caller decodes and parses the text. */
const MIN_BYTES = 4 * LONG_LITERAL;
/** Literals looked at before giving up on JSON that is not mostly long literals. */
const PROBE_LITERALS = 4096;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const BOM = [0xef, 0xbb, 0xbf];

/** JSON parsed from UTF-8 bytes with its long string values left in those bytes (see parseJsonBytes). */
export interface CutJson {
  /** What `JSON.parse` returns, except that each long string value is a marker standing for it. */
  value: unknown;
  /**
   * For a marker, the bytes of the string it stands for as they are in the JSON, which are also
   * exactly its `JSON.stringify` without the quotes (they hold no `"`, `\` or control character);
   * `undefined` for any other string.
   */
  raw: (value: string) => Uint8Array | undefined;
}

/**
 * `JSON.parse` of UTF-8 bytes without decoding them into a string, for JSON that is mostly long
 * plain string values, like a notebook whose bulk is base64 images: each string value (never a
 * key, never an array item) of LONG_LITERAL bytes or more that holds no backslash or control
 * character is cut out and replaced by a short marker, and only what is left is decoded and
 * parsed. The long strings are never built: whoever writes the value out again copies their bytes
 * (see `raw`), so a 20 MB notebook costs its bytes and a small object tree instead of a 20 MB
 * string on top of them.
 *
 * `null` when that does not apply, and then the caller decodes and parses the text as before
 * (which also gives the right error): bytes that are not UTF-8, JSON that is not mostly long
 * literals, JSON that is invalid or nested too deep. A cut literal is valid string content, so
 * cutting never turns invalid JSON into valid JSON.
 *
 * The markers are string values in the result, so a caller may only use it where such a value is
 * merely checked to be a string (schema checks) or copied (the writers given `raw`).
 */
export function parseJsonBytes(input: Uint8Array): CutJson | null {
  const bom = input.byteLength >= 3 && BOM.every((byte, i) => input[i] === byte) ? 3 : 0;
  const bytes = Buffer.from(input.buffer, input.byteOffset + bom, input.byteLength - bom);
  const scanner = escapeScanner();
  if (bytes.byteLength < MIN_BYTES || scanner === null) return null;
  const ascii = isAscii(bytes);
  if (!ascii && !isUtf8(bytes)) return null;
  const cuts: number[] = []; // [start, end) of each cut literal's content
  let cutBytes = 0;
  let literals = 0;
  let backslash = bytes.indexOf(BACKSLASH);
  for (let pos = 0; ; ) {
    const open = bytes.indexOf(QUOTE, pos);
    if (open === -1) break;
    let close = bytes.indexOf(QUOTE, open + 1);
    if (close === -1) return null; // unterminated
    if (backslash !== -1 && backslash < open) backslash = bytes.indexOf(BACKSLASH, open);
    if (backslash !== -1 && backslash < close) {
      // escapes inside: the literal ends at the first quote after an even run of backslashes
      while (close !== -1 && backslashesBefore(bytes, close) % 2 === 1) close = bytes.indexOf(QUOTE, close + 1);
      if (close === -1) return null;
    } else if (close - open - 1 >= LONG_LITERAL && isValue(bytes, open) && noControl(bytes, open + 1, close)) {
      cuts.push(open + 1, close);
      cutBytes += close - open - 1;
    }
    pos = close + 1;
    if (++literals === PROBE_LITERALS && cutBytes < pos / 2) return null;
  }
  if (cuts.length === 0) return null;

  // Markers carry a random token: no JSON text can hold one already.
  const prefix = `\u0000nbserve-${randomBytes(12).toString('hex')}-`;
  const encoding = ascii ? 'latin1' : 'utf8';
  const parts: string[] = [];
  let from = 0;
  for (let i = 0; i < cuts.length; i += 2) {
    // (cuts are next to quotes, which never fall inside a multi-byte UTF-8 sequence)
    parts.push(bytes.toString(encoding, from, cuts[i]), `\\u0000${prefix.slice(1)}${i}`);
    from = cuts[i + 1] as number;
  }
  parts.push(bytes.toString(encoding, from));
  let value: unknown;
  try {
    value = JSON.parse(parts.join(''));
    checkJsonDepth(value);
  } catch {
    return null;
  }
  const raw = (marker: string): Uint8Array | undefined => {
    if (marker.charCodeAt(0) !== 0 || !marker.startsWith(prefix)) return undefined;
    const i = Number(marker.slice(prefix.length));
    const start = cuts[i];
    return start === undefined ? undefined : bytes.subarray(start, cuts[i + 1]);
  };
  return { value, raw };
}

function backslashesBefore(bytes: Buffer, at: number): number {
  let count = 0;
  while (bytes[at - 1 - count] === BACKSLASH) count++;
  return count;
}

const isBlank = (c: number | undefined) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/** Whether the literal opening at `open` is an object's value (the previous non-blank byte is `:`). */
function isValue(bytes: Buffer, open: number): boolean {
  let at = open - 1;
  while (at >= 0 && isBlank(bytes[at])) at--;
  return bytes[at] === 0x3a;
}

/** Scratch bytes per round of the escape scanner. */
const CHUNK = 128 * 1024;

/** No byte in [from, to) below 0x20 (`"` and `\` are already known absent). */
function noControl(bytes: Buffer, from: number, to: number): boolean {
  const scanner = escapeScanner() as NonNullable<ReturnType<typeof escapeScanner>>;
  for (let at = from; at < to; at += CHUNK) {
    const length = bytes.copy(scanner.scratch, 0, at, Math.min(to, at + CHUNK));
    if (scanner.clean(0, length) !== 1) return false;
  }
  return true;
}

/**
 * `value` with every marker of `raw` replaced by the string it stands for (a copy where anything
 * changes), for where a value from parseJsonBytes is used as more than a string to check or copy.
 */
export function materialize(value: unknown, raw: (value: string) => Uint8Array | undefined): unknown {
  if (typeof value === 'string') {
    const bytes = value.charCodeAt(0) === 0 ? raw(value) : undefined;
    return bytes === undefined ? value : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  }
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map((item) => materialize(item, raw));
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    // (a "__proto__" key is defined as an own property, as JSON.parse defines it)
    Object.defineProperty(out, key, {
      value: materialize((value as Record<string, unknown>)[key], raw),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}
