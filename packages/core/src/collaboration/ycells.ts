import type { ISharedNotebook, SharedCell, YNotebook } from '@jupyter/ydoc';
import { uuidv4 } from 'lib0/random';
import * as Y from 'yjs';

type CellJson = SharedCell.Cell & { outputs?: unknown[]; execution_count?: number | null; attachments?: unknown };
type NotebookJson = Parameters<YNotebook['fromJSON']>[0];

/**
 * Cells put into a shared notebook the way `YNotebook.insertCells` lays them out (the same maps,
 * texts and arrays), but each cell's map enters the document first and is filled after:
 * `@jupyter/ydoc` fills a cell before it is in a document, and yjs (13.6.20 and later) then warns
 * "Invalid access: Add Yjs type to a document before reading data." and, for the per-cell undo
 * manager, "[yjs#509] Not same Y.Doc" (https://github.com/yjs/yjs/issues/509). The notebook's own
 * observer wraps the new maps in cell models, as it does for a collaborator's cells.
 */
export function insertSharedCells(nb: YNotebook, index: number, cells: readonly CellJson[]): void {
  nb.transact(() => {
    const maps = cells.map(() => new Y.Map<unknown>());
    nb.ydoc.getArray<Y.Map<unknown>>('cells').insert(index, maps);
    for (const [i, map] of maps.entries()) fillCell(map, cells[i] as CellJson);
  });
}

/** `YNotebook.moveCells` (its clone-delete-insert), with `insertSharedCells`. */
export function moveSharedCells(nb: YNotebook, from: number, to: number, n = 1): void {
  const clones = Array.from({ length: n }, (_, i) => nb.getCell(from + i).toJSON() as CellJson);
  nb.transact(() => {
    nb.deleteCellRange(from, from + n);
    insertSharedCells(nb, from > to ? to : to - n + 1, clones);
  });
}

/** `YNotebook.fromJSON` (replaces the whole notebook), with `insertSharedCells`. */
export function replaceSharedNotebook(nb: YNotebook, value: NotebookJson): void {
  const useId = value.nbformat === 4 && value.nbformat_minor >= 5;
  const cells = value.cells.map((cell) => {
    const copy = { ...cell } as CellJson;
    if (!useId) delete copy.id;
    return copy;
  });
  nb.transact(() => {
    nb.fromJSON({ ...value, cells: [] }); // format and metadata; the old cells go
    insertSharedCells(nb, 0, cells);
  });
}

/** A cell as `@jupyter/ydoc`'s `createCell` builds it, into `map` (already in the document). */
function fillCell(map: Y.Map<unknown>, cell: CellJson): void {
  map.set('cell_type', cell.cell_type);
  map.set('id', typeof cell.id === 'string' ? cell.id : uuidv4());
  const source = map.set('source', new Y.Text());
  const text = Array.isArray(cell.source) ? cell.source.join('') : String(cell.source ?? '');
  if (text) source.insert(0, text);
  const metadata = map.set('metadata', new Y.Map<unknown>());
  for (const [key, value] of Object.entries(normaliseMetadata(cell.metadata ?? {}))) metadata.set(key, value);
  if (cell.cell_type === 'code') {
    const outputs = map.set('outputs', new Y.Array<Y.Map<unknown>>());
    map.set('execution_count', cell.execution_count ?? null);
    fillOutputs(outputs, cell.outputs ?? []);
  } else if (cell.attachments != null) {
    map.set('attachments', cell.attachments);
  }
}

/** Replaces a code cell's outputs (its array already in the document), streams as Y.Text. */
export function fillOutputs(outputs: Y.Array<Y.Map<unknown>>, list: readonly unknown[]): void {
  if (outputs.length > 0) outputs.delete(0, outputs.length);
  for (const output of list as Record<string, unknown>[]) {
    const copy = structuredClone(output);
    const { text: streamText, ...rest } = copy;
    const entry = new Y.Map<unknown>(Object.entries(output.output_type === 'stream' ? rest : copy));
    outputs.push([entry]);
    if (output.output_type !== 'stream') continue;
    // A stream's text is a Y.Text, which a running cell appends to.
    const ytext = entry.set('text', new Y.Text());
    const joined = Array.isArray(streamText) ? streamText.join('') : String(streamText ?? '');
    if (joined) ytext.insert(0, joined);
  }
}

/** `collapsed` and `jupyter.outputs_hidden` kept in step, as `YBaseCell.setMetadata` does. */
function normaliseMetadata(metadata: Partial<ISharedNotebook['metadata']>): Record<string, unknown> {
  const clone = structuredClone(metadata) as Record<string, unknown> & { jupyter?: Record<string, unknown> };
  if (clone.collapsed != null) clone.jupyter = { ...(clone.jupyter ?? {}), outputs_hidden: clone.collapsed };
  else if (clone.jupyter?.outputs_hidden != null) clone.collapsed = clone.jupyter.outputs_hidden;
  return clone;
}
