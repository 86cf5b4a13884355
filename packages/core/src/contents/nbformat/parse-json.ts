import { randomBytes } from 'node:crypto';
import { type EscapeScanner, escapeScanner } from './escape-scan.js';

/** String literals at least this long (base64 images, mostly) are cut out before parsing. */
const LONG_LITERAL = 16384;
/** Below this, JSON.parse alone. */
const MIN_TEXT = 4 * LONG_LITERAL;
/** Literals looked at before giving up on a text that is not mostly long literals. */
const PROBE_LITERALS = 4096;
/** Characters per scratch round of the escape scanner (at most 3 UTF-8 bytes each). */
const CHUNK = 65536;

/**
 * Deepest nesting accepted. JSON.parse itself takes any depth, but what handles the value next
 * (JSON.stringify, schema checks, deep merges, sorted serialization) recurses and would run out
 * of stack on a body nested a million levels deep. Python's json module stops near 1000 levels
 * too, so no Jupyter client or notebook goes deeper.
 */
export const MAX_JSON_DEPTH = 1000;

/** Thrown by parseUntrustedJson for JSON nested deeper than MAX_JSON_DEPTH (a SyntaxError, like invalid JSON). */
export class JsonTooDeepError extends SyntaxError {
  constructor() {
    super(`JSON nested more than ${MAX_JSON_DEPTH} levels deep`);
    this.name = 'JsonTooDeepError';
  }
}

/** Throws JsonTooDeepError when `value` nests deeper than MAX_JSON_DEPTH. Iterative. */
export function checkJsonDepth(value: unknown): void {
  if (typeof value !== 'object' || value === null) return;
  const pending: Array<[object, number]> = [[value, 1]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [container, depth] = next;
    if (depth > MAX_JSON_DEPTH) throw new JsonTooDeepError();
    const items = Array.isArray(container) ? container : Object.values(container);
    for (const item of items) if (typeof item === 'object' && item !== null) pending.push([item, depth + 1]);
  }
}

/** parseJson for what a client sent or a file holds: nesting deeper than MAX_JSON_DEPTH is refused. */
export function parseUntrustedJson(text: string): unknown {
  const value = parseJson(text);
  checkJsonDepth(value);
  return value;
}

/**
 * `JSON.parse(text)`, faster for JSON that is mostly long plain strings, like a notebook with
 * image outputs: JSON.parse copies every string character by character (~20 ms for 20 MB).
 * Here every string literal of LONG_LITERAL characters or more without a backslash or control
 * character (checked with the SIMD escape scanner) is replaced by a short marker, the rest is
 * parsed with JSON.parse, and the markers are replaced by slices of `text`, which are exactly
 * those strings' values. Same result as JSON.parse, same throwing on invalid JSON (a cut literal
 * is valid string content, so cutting never turns invalid JSON into valid JSON).
 *
 * Texts that are not mostly long literals are noticed after a few thousand literals and go to
 * JSON.parse as they are.
 */
export function parseJson(text: string): unknown {
  const scanner = text.length < MIN_TEXT ? null : escapeScanner();
  if (scanner === null) return JSON.parse(text);
  const cuts: number[] = []; // [start, end) of each cut literal's content
  let cutChars = 0;
  let literals = 0;
  let backslash = text.indexOf('\\');
  for (let pos = 0; ; ) {
    const open = text.indexOf('"', pos);
    if (open === -1) break;
    let close = text.indexOf('"', open + 1);
    if (close === -1) break; // unterminated: JSON.parse says so below
    if (backslash !== -1 && backslash < open) backslash = text.indexOf('\\', open);
    if (backslash !== -1 && backslash < close) {
      // escapes inside: the literal ends at the first quote after an even run of backslashes
      while (close !== -1 && backslashesBefore(text, close) % 2 === 1) close = text.indexOf('"', close + 1);
      if (close === -1) break;
    } else if (close - open - 1 >= LONG_LITERAL && !isKey(text, close + 1) && isPlain(scanner, text, open + 1, close)) {
      cuts.push(open + 1, close);
      cutChars += close - open - 1;
    }
    pos = close + 1;
    if (++literals === PROBE_LITERALS && cutChars < pos / 2) return JSON.parse(text);
  }
  if (cuts.length === 0) return JSON.parse(text);

  // Markers carry a random token: a client cannot send one, escaped or not.
  const prefix = `\u0000nbserve-${randomBytes(12).toString('hex')}-`;
  const parts: string[] = [];
  let from = 0;
  for (let i = 0; i < cuts.length; i += 2) {
    parts.push(text.slice(from, cuts[i]), JSON.stringify(`${prefix}${i}`).slice(1, -1));
    from = cuts[i + 1] as number;
  }
  parts.push(text.slice(from));
  let value: unknown;
  try {
    value = JSON.parse(parts.join(''));
  } catch {
    return JSON.parse(text); // throws JSON.parse's own error, positions in `text`
  }
  const restore = (marker: string): string | undefined => {
    if (marker.charCodeAt(0) !== 0 || !marker.startsWith(prefix)) return undefined;
    const i = Number(marker.slice(prefix.length));
    return text.slice(cuts[i], cuts[i + 1]);
  };
  if (typeof value === 'string') return restore(value) ?? value;
  if (typeof value === 'object' && value !== null) replaceMarkers(value, restore);
  return value;
}

function backslashesBefore(text: string, at: number): number {
  let count = 0;
  while (text.charCodeAt(at - 1 - count) === 0x5c) count++;
  return count;
}

/** Whether the literal ending before `at` is an object key (the next non-blank character is `:`). */
function isKey(text: string, at: number): boolean {
  for (let i = at; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return c === 0x3a;
  }
  return false;
}

/** No character in [from, to) below U+0020 (nor `"` or `\`, already known absent). */
function isPlain(scanner: EscapeScanner, text: string, from: number, to: number): boolean {
  for (let at = from; at < to; at += CHUNK) {
    const bytes = scanner.scratch.write(text.slice(at, Math.min(to, at + CHUNK)), 0);
    if (scanner.clean(0, bytes) !== 1) return false;
  }
  return true;
}

/**
 * Puts the cut strings back wherever a marker is, in objects and arrays, keeping key order.
 * Iterative: JSON.parse accepts nesting deeper than the call stack would.
 */
function replaceMarkers(root: object, restore: (marker: string) => string | undefined): void {
  const pending: object[] = [root];
  for (let container = pending.pop(); container !== undefined; container = pending.pop()) {
    if (Array.isArray(container)) {
      for (let i = 0; i < container.length; i++) {
        const item: unknown = container[i];
        if (typeof item === 'string') {
          const restored = restore(item);
          if (restored !== undefined) container[i] = restored;
        } else if (typeof item === 'object' && item !== null) pending.push(item);
      }
      continue;
    }
    const object = container as Record<string, unknown>;
    for (const key of Object.keys(object)) {
      const item = object[key];
      if (typeof item === 'string') {
        const restored = restore(item);
        // (a "__proto__" key is an own data property here, so this assigns it, not the prototype)
        if (restored !== undefined) object[key] = restored;
      } else if (typeof item === 'object' && item !== null) pending.push(item);
    }
  }
}
