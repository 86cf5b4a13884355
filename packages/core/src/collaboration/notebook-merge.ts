import { randomUUID } from 'node:crypto';
import { type YCellType, YCodeCell, type YNotebook } from '@jupyter/ydoc';
import { diffArrays } from 'diff';
import type * as Y from 'yjs';
import { isObject } from '../util/is-object.js';
import { matchCells, sameCell, sourceOf, stableJson } from './cell-match.js';
import { replaceText } from './text-merge.js';
import { fillOutputs, insertSharedCells } from './ycells.js';

export type CellJson = Record<string, unknown> & { cell_type: string; id?: unknown; source?: unknown };
export interface NotebookJson {
  cells: CellJson[];
  metadata: Record<string, unknown>;
  nbformat: number;
  nbformat_minor: number;
}

/**
 * The key a shared cell carries when a change on disk replaced text edited in the room since the
 * last save: `{replaced}`, the text it had. Not part of nbformat (`toJSON` leaves it out, so it is
 * never saved); nbserve's page shows it as a "changed on disk" notice and deletes it.
 */
export const CHANGED_ON_DISK = 'changed_on_disk';

export interface NotebookMerge {
  /** The shared cell id each cell of the file has now (null: a cell a client deleted and the file left as it was). */
  ids: (string | null)[];
  /** Ids of cells whose edits in the room the file's text replaced. */
  conflicts: string[];
}

type Entry = { y: YCellType; json?: undefined } | { y?: undefined; json: CellJson };

/**
 * A three-way merge of the file's new content `disk` into the shared notebook, `base` being the
 * file as last loaded or saved (cells carrying the shared cell ids they had then). Only what
 * changed from `base` to `disk` is applied: cells matched by id (else by content, see matchCells)
 * keep their Yjs objects; a changed source is edited by a character diff; metadata, outputs and
 * counts change only where the file's changed; cells the file added, removed or moved follow.
 * Edits made in the room since `base` elsewhere are kept (cells a client added stay after the cell
 * they followed); where both changed a cell's source, the file wins and the cell gets CHANGED_ON_DISK.
 * Call inside a transaction.
 */
export function mergeNotebook(nb: YNotebook, base: NotebookJson, disk: NotebookJson): NotebookMerge {
  const pairs = matchCells(base.cells, disk.cells);
  const yById = new Map(nb.cells.map((cell) => [cell.id, cell]));
  const inBase = new Set<YCellType>();
  const yOfBase = base.cells.map((cell) => {
    // (a base without ids: the file as read after a restart with unsaved edits; matched by content)
    const y =
      typeof cell.id === 'string'
        ? yById.get(cell.id)
        : nb.cells.find((c) => !inBase.has(c) && c.cell_type === cell.cell_type && c.getSource() === sourceOf(cell));
    if (y) inBase.add(y);
    return y;
  });
  const conflicts: string[] = [];
  const ids: (string | null)[] = [];
  const target: Entry[] = [];
  disk.cells.forEach((cell, i) => {
    const b = pairs[i] ?? -1;
    const before = b >= 0 ? base.cells[b] : undefined;
    const y = b >= 0 ? yOfBase[b] : undefined;
    if (before && !y && sameCell(before, cell)) {
      ids.push(null); // deleted in the room, unchanged in the file: the deletion stands
      return;
    }
    // (a type changed in the room only stays; one changed in the file makes a new cell)
    if (before && y && (y.cell_type === cell.cell_type || before.cell_type === cell.cell_type)) {
      if (mergeCell(y, before, cell)) conflicts.push(y.id);
      target.push({ y });
      ids.push(y.id);
      return;
    }
    // New in the file, or its type changed there: a new shared cell.
    const id =
      typeof cell.id === 'string' && (!yById.has(cell.id) || yById.get(cell.id) === y) ? cell.id : randomUUID();
    target.push({ json: { ...cell, id } });
    ids.push(id);
  });
  // Cells added in the room since the last save stay after the cell they followed.
  let previous = -1;
  for (const y of nb.cells) {
    const at = target.findIndex((entry) => entry.y === y);
    if (at >= 0) previous = at;
    else if (!inBase.has(y)) target.splice(++previous, 0, { y });
  }
  reorder(nb, target);
  mergeNotebookMetadata(nb, base, disk);
  return { ids, conflicts };
}

/** Brings one shared cell from `before` to `after` (the file's cell then and now). True on a conflict. */
function mergeCell(y: YCellType, before: CellJson, after: CellJson): boolean {
  let conflict = false;
  const [was, now, shared] = [sourceOf(before), sourceOf(after), y.getSource()];
  if (was !== now && shared !== now) {
    if (shared !== was) {
      conflict = true;
      y.ymodel.set(CHANGED_ON_DISK, { replaced: shared });
    }
    replaceText(y.ymodel.get('source') as Y.Text, now);
  }
  mergeKeys(withoutTrust(before.metadata), withoutTrust(after.metadata), (key, value) =>
    value === undefined ? y.deleteMetadata(key) : y.setMetadata(key, value as never),
  );
  if (y instanceof YCodeCell) {
    if (!same(before.outputs ?? [], after.outputs ?? [])) {
      fillOutputs(y.ymodel.get('outputs') as Y.Array<Y.Map<unknown>>, (after.outputs ?? []) as unknown[]);
    }
    const count = (after.execution_count ?? null) as number | null;
    if (!same(before.execution_count ?? null, count) && y.execution_count !== count) y.execution_count = count;
  } else if (!same(before.attachments, after.attachments)) {
    if (after.attachments == null) y.ymodel.delete('attachments');
    else y.ymodel.set('attachments', after.attachments);
  }
  return conflict;
}

/**
 * Puts the shared cells in `target`'s order: the longest run already in order stays in place
 * (their Yjs objects kept), the rest are moved as JupyterLab moves cells (deleted and inserted
 * again), cells no longer in `target` are deleted and new ones inserted.
 */
function reorder(nb: YNotebook, target: Entry[]): void {
  const kept = target.filter((entry) => entry.y !== undefined).map((entry) => entry.y as YCellType);
  const current = nb.cells.filter((cell) => kept.includes(cell));
  const staying = new Set<YCellType>();
  for (const change of diffArrays(current, kept)) {
    if (!change.added && !change.removed) for (const cell of change.value) staying.add(cell);
  }
  const entries = target.map((entry): Entry => {
    if (entry.y === undefined || staying.has(entry.y)) return entry;
    const json = entry.y.toJSON() as CellJson;
    const conflict = entry.y.ymodel.get(CHANGED_ON_DISK);
    return { json: conflict === undefined ? json : { ...json, [CHANGED_ON_DISK]: conflict } };
  });
  for (let i = nb.cells.length - 1; i >= 0; i--) {
    if (!staying.has(nb.cells[i] as YCellType)) nb.deleteCellRange(i, i + 1);
  }
  let index = 0;
  let pending: CellJson[] = [];
  const flush = () => {
    if (pending.length > 0) insertSharedCells(nb, index, pending as never);
    index += pending.length;
    pending = [];
  };
  for (const entry of entries) {
    if (entry.json) {
      pending.push(entry.json);
      continue;
    }
    flush();
    index++;
  }
  flush();
  for (const entry of entries) {
    const mark = entry.json?.[CHANGED_ON_DISK];
    if (mark !== undefined) nb.cells.find((cell) => cell.id === entry.json?.id)?.ymodel.set(CHANGED_ON_DISK, mark);
  }
}

function mergeNotebookMetadata(nb: YNotebook, base: NotebookJson, disk: NotebookJson): void {
  if (base.nbformat !== disk.nbformat) nb.nbformat = disk.nbformat;
  if (base.nbformat_minor !== disk.nbformat_minor) nb.nbformat_minor = disk.nbformat_minor;
  mergeKeys(base.metadata, disk.metadata, (key, value) =>
    value === undefined ? nb.deleteMetadata(key) : nb.setMetadata(key, value as never),
  );
}

/** Calls `set` for each key whose value differs between `before` and `after` (undefined: deleted). */
function mergeKeys(before: unknown, after: unknown, set: (key: string, value: unknown) => void): void {
  const a = isObject(before) ? before : {};
  const b = isObject(after) ? after : {};
  for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
    if (!same(a[key], b[key])) set(key, b[key]);
  }
}

/** Cell metadata without `trusted`, which the contents API sets on reading and the room on saving. */
function withoutTrust(metadata: unknown): Record<string, unknown> {
  if (!isObject(metadata)) return {};
  const { trusted: _, ...rest } = metadata;
  return rest;
}

function same(a: unknown, b: unknown): boolean {
  return stableJson(a) === stableJson(b);
}
