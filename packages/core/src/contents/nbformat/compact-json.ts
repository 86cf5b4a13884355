import type { SpareBuffer } from '../../util/spare-buffer.js';
import { type RawStrings, skipped, stringBytes, Writer } from './sorted-json.js';

/** A subtree holding a string at least this long is walked here; anything else goes to JSON.stringify whole. */
const LONG_STRING = 4096;

/**
 * Whether a string of LONG_STRING or more characters (or a marker of `raw`, which stands for one)
 * is anywhere in `value` (stops at the first).
 */
function hasLongString(value: unknown, raw: RawStrings | undefined): boolean {
  if (typeof value === 'string') return value.length >= LONG_STRING || (raw !== undefined && value.charCodeAt(0) === 0);
  if (typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) {
    for (const item of value) if (hasLongString(item, raw)) return true;
    return false;
  }
  for (const key of Object.keys(value)) if (hasLongString((value as Record<string, unknown>)[key], raw)) return true;
  return false;
}

/** Output size, exact for ASCII that needs no escapes; only the parts walked here are counted closely. */
function estimateBytes(value: unknown, raw: RawStrings | undefined): number {
  if (typeof value === 'string') return stringBytes(value, raw) + 2;
  if (typeof value !== 'object' || value === null) return 8;
  let total = 2;
  if (Array.isArray(value)) {
    for (const item of value) total += 1 + estimateBytes(item, raw);
    return total;
  }
  for (const key of Object.keys(value))
    total += key.length + 4 + estimateBytes((value as Record<string, unknown>)[key], raw);
  return total;
}

function emit(writer: Writer, value: unknown, raw: RawStrings | undefined): void {
  if (typeof value === 'string') {
    writer.string(value);
    return;
  }
  if (typeof value !== 'object' || value === null || !hasLongString(value, raw)) {
    writer.text(JSON.stringify(value) ?? 'null');
    return;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      writer.text(i === 0 ? '[' : ',');
      const item: unknown = value[i];
      emit(writer, skipped(item) ? null : item, raw);
    }
    writer.text(value.length === 0 ? '[]' : ']');
    return;
  }
  let first = true;
  for (const key of Object.keys(value)) {
    const item = (value as Record<string, unknown>)[key];
    if (skipped(item)) continue;
    writer.text(`${first ? '{' : ','}${JSON.stringify(key)}:`);
    first = false;
    emit(writer, item, raw);
  }
  writer.text(first ? '{}' : '}');
}

/**
 * `head + JSON.stringify(value) + tail` as UTF-8, byte for byte, in one buffer: for a notebook as
 * read from disk (what `JSON.parse` returns, no `toJSON`), whose bulk is long strings such as
 * base64 images. Those are copied after a SIMD check for characters to escape; every subtree
 * without one goes through `JSON.stringify` as it is. A 20 MB notebook then costs one 20 MB
 * buffer, not a 20 MB string, its UTF-8 copy and a third copy with the model around it.
 * With `raw`, a value from parseJsonBytes: its markers are written as the bytes they stand for.
 * With `buffers`, into its spare when that is big enough.
 */
export function compactJsonBytes(
  value: unknown,
  head = '',
  tail = '',
  raw?: RawStrings,
  buffers?: SpareBuffer,
): Buffer {
  const writer = new Writer(head.length + estimateBytes(value, raw) + tail.length, buffers, raw);
  writer.text(head);
  emit(writer, value, raw);
  writer.text(tail);
  return writer.finish();
}
