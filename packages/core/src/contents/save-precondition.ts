import { badRequest, conflict } from '../errors.js';
import { sha256 } from './file-content.js';
import type { ContentsStore, StoreStat } from './store.js';
import { parseTimestampMicros } from './timestamps.js';

/**
 * Save-conflict protection beyond Jupyter: the save only happens when the stored file still is
 * what the client last saw. Either field may be given; a mismatch is a 409 and nothing is written.
 */
export interface SavePrecondition {
  /** sha256 hex of the stored bytes (HTTP `If-Match`). */
  hash?: string;
  /** ISO (microseconds honoured) or RFC 1123 time (HTTP `If-Unmodified-Since`). */
  lastModified?: string;
}

/**
 * Throws a conflict unless the file at `path` (stat `existing`) meets `expected`; returns the same
 * check of the file as it will be then, for the store to run again just before it replaces the
 * file (WriteOptions.beforeReplace): nothing to check when `expected` is empty.
 */
export async function checkPrecondition(
  store: ContentsStore,
  path: string,
  existing: StoreStat | null,
  expected: SavePrecondition,
): Promise<(() => Promise<void>) | undefined> {
  if (expected.hash === undefined && expected.lastModified === undefined) return undefined;
  await check(path, existing, expected, () => store.read(path));
  return async () => {
    const now = await store.stat(path);
    // Where stats follow every change, an unchanged stat is the file just checked: no second read.
    if (store.capabilities?.statTracksChanges && sameFile(now, existing)) return;
    await check(path, now, expected, () => store.read(path));
  };
}

function sameFile(a: StoreStat | null, b: StoreStat | null): boolean {
  return a !== null && b !== null && a.size === b.size && a.mtimeMs === b.mtimeMs && a.createdMs === b.createdMs;
}

async function check(
  path: string,
  existing: StoreStat | null,
  expected: SavePrecondition,
  read: () => Promise<Uint8Array>,
): Promise<void> {
  if (expected.hash === undefined && expected.lastModified === undefined) return;
  const changed = () => conflict(`File changed on disk since it was loaded: ${path}`, 'changed on disk');
  if (existing?.kind !== 'file') throw changed();
  if (expected.lastModified !== undefined) {
    const expectedMicros = parseTimestampMicros(expected.lastModified);
    if (expectedMicros === null) throw badRequest(`Invalid timestamp: ${expected.lastModified}`);
    // Compare at the precision the client sent: seconds for RFC 1123, microseconds for ISO.
    const precise = /\.\d/.test(expected.lastModified);
    const actual = precise ? Math.floor(existing.mtimeMs * 1000) : Math.floor(existing.mtimeMs / 1000) * 1_000_000;
    if (actual > expectedMicros) throw changed();
  }
  if (expected.hash !== undefined) {
    const want = expected.hash.trim().replace(/^W\//, '').replace(/^"|"$/g, '').toLowerCase();
    if (want !== '*' && sha256(await read()) !== want) throw changed();
  }
}
