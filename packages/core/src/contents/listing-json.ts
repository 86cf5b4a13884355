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

/** Entries per chunk: big enough to amortize a Buffer, small enough that no listing is one huge string. */
const CHUNK_ENTRIES = 2048;

/**
 * The JSON array of a directory's child models, as text chunks whose concatenation is exactly
 * `JSON.stringify(models)` for the models `baseModel` builds (same fields, same order, `mimetype`
 * guessed for files). Written as text directly: building 100,000 model objects only to have
 * JSON.stringify walk them cost more than the stats. The chunks are encoded once, straight into
 * the response's bytes (see ServedBytes), never joined into one 28 MB string first.
 */
export function listingJsonChunks(dir: string, entries: readonly ListedEntry[]): string[] {
  if (entries.length === 0) return ['[]'];
  // `"dir/` once: JSON escapes each character on its own, so escaped parts concatenate.
  const pathPrefix = dir === '' ? '"' : `${JSON.stringify(dir).slice(0, -1)}/`;
  const chunks: string[] = [];
  for (let start = 0; start < entries.length; start += CHUNK_ENTRIES) {
    const end = Math.min(start + CHUNK_ENTRIES, entries.length);
    let text = start === 0 ? '[' : ',';
    for (let i = start; i < end; i++) {
      const { name, type, stat } = entries[i] as ListedEntry;
      const nameJson = JSON.stringify(name);
      const mimetype = type === 'file' ? guessMimeType(name) : null;
      if (i > start) text += ',';
      text +=
        `{"name":${nameJson},"path":${pathPrefix}${nameJson.slice(1)},"type":"${type}","writable":${stat.writable}` +
        `,"created":"${isoTimestamp(stat.createdMs)}","last_modified":"${isoTimestamp(stat.mtimeMs)}"` +
        `,"size":${type === 'directory' ? 'null' : JSON.stringify(stat.size)}` +
        `,"mimetype":${mimetype === null ? 'null' : JSON.stringify(mimetype)}` +
        ',"content":null,"format":null,"hash":null,"hash_algorithm":null}';
    }
    if (end === entries.length) text += ']';
    chunks.push(text);
  }
  return chunks;
}
