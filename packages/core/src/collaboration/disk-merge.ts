import { randomUUID } from 'node:crypto';
import type { YFile } from '@jupyter/ydoc';
import { stableJson } from './cell-match.js';
import { type CellJson, mergeNotebook, type NotebookJson } from './notebook-merge.js';
import { type SharedDocument, withACell } from './shared-document.js';
import { mergeText } from './text-merge.js';

export interface DiskMerge {
  /** The base for the next merge: the file's content as merged (cells with their shared ids). */
  base: unknown;
  /** The document now equals the file (nothing of the room's own to save). */
  exact: boolean;
  /** Ids of cells whose text edited in the room the file replaced. */
  conflicts: string[];
}

/**
 * Applies a change of the file on disk to its shared document, as one transaction of `origin`:
 * the difference between `base` (the file as last loaded or saved; null when unknown, then the
 * document itself is the base and the file wins wherever they differ) and `disk` (the file now),
 * so that edits made in the room since `base` survive where the file did not change.
 */
export function mergeDisk(document: SharedDocument, base: unknown, disk: unknown, origin: unknown): DiskMerge {
  const nb = document.notebook;
  if (!nb) {
    const text = typeof disk === 'string' ? disk : '';
    const ysource = (document.model as YFile).ysource;
    const before = typeof base === 'string' ? base : ysource.toString();
    document.ydoc.transact(() => mergeText(ysource, before, text), origin);
    return { base: text, exact: ysource.toString() === text, conflicts: [] };
  }
  const next = withACell(disk) as unknown as NotebookJson;
  const before = (base === null ? document.snapshot() : withACell(base)) as NotebookJson;
  let merged = { ids: [] as (string | null)[], conflicts: [] as string[] };
  document.ydoc.transact(() => {
    merged = mergeNotebook(nb, before, next);
  }, origin);
  const cells = next.cells.map((cell, i): CellJson => ({ ...cell, id: merged.ids[i] ?? randomUUID() }));
  const exact = stableJson(document.content()) === stableJson(next);
  return { base: { ...next, cells }, exact, conflicts: merged.conflicts };
}
