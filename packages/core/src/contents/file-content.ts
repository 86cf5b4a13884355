/**
 * A file's bytes as the contents API carries them (UTF-8 text or base64) and their hash: the
 * part of jupyter_server's `fileio.py` that is about encodings, over a store that only moves bytes.
 */
import { createHash } from 'node:crypto';
import { setImmediate } from 'node:timers/promises';
import { badRequest } from '../errors.js';
import { isWellFormedText } from '../util/unicode.js';
import { decodeBase64Strict, encodeBase64Lines } from './base64.js';
import { type ContentFormat, type ContentsModel, HASH_ALGORITHM } from './model.js';

/** Bytes hashed between two turns of the event loop (about half a millisecond). */
const HASH_SLICE = 1024 * 1024;

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** A file's content for a GET: text when it is UTF-8 (or `format` asks for it), else base64. */
export function decodeFileContent(
  path: string,
  bytes: Uint8Array,
  format: 'text' | 'base64' | undefined,
): { content: string; format: ContentFormat } {
  if (format === 'base64') return { content: encodeBase64Lines(bytes), format: 'base64' };
  try {
    return { content: utf8.decode(bytes), format: 'text' };
  } catch {
    if (format === 'text') throw badRequest(`${path} is not UTF-8 encoded`, 'bad format');
    return { content: encodeBase64Lines(bytes), format: 'base64' };
  }
}

/** The bytes a PUT's `content` stands for, with Jupyter's messages for a wrong format or content. */
export function encodeFileContent(path: string, content: unknown, format: string | null | undefined): Uint8Array {
  if (format !== 'text' && format !== 'base64') {
    throw badRequest("Must specify format of file contents as 'text' or 'base64'", 'bad format');
  }
  if (typeof content !== 'string') {
    throw badRequest(`Encoding error saving ${path}: content must be a string for format '${format}'`, 'bad format');
  }
  if (format === 'text') {
    // A lone surrogate (`"\ud800"` in the JSON) would be written as U+FFFD: refuse, write nothing.
    if (!isWellFormedText(content)) {
      throw badRequest(
        `Encoding error saving ${path}: the text holds a lone surrogate, not valid Unicode`,
        'bad format',
      );
    }
    return new TextEncoder().encode(content);
  }
  const bytes = decodeBase64Strict(content);
  if (bytes === null) throw badRequest(`Encoding error saving ${path}: invalid base64`, 'bad format');
  return bytes;
}

export function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * `sha256` for a save: a big input is hashed a slice at a time with the event loop turning in
 * between, so the file write it runs alongside moves on from write(2) to fsync(2) to rename(2)
 * while the hash is computed (~12 ms for 20 MB), instead of after it.
 */
export async function sha256Async(bytes: Uint8Array): Promise<string> {
  if (bytes.byteLength < HASH_SLICE) return sha256(bytes);
  const hash = createHash('sha256');
  for (let at = 0; at < bytes.byteLength; at += HASH_SLICE) {
    await setImmediate(); // first of all, let the write get under way
    hash.update(bytes.subarray(at, at + HASH_SLICE));
  }
  return hash.digest('hex');
}

/** Fills the model's `hash` and `hash_algorithm` with the digest of the stored bytes. */
export function setHash(model: ContentsModel, bytes: Uint8Array): void {
  model.hash = sha256(bytes);
  model.hash_algorithm = HASH_ALGORITHM;
}
