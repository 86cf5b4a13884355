import type { Extension } from '@codemirror/state';
import type { Cell } from '../cell.js';
import type { CellData } from '../model.js';

/**
 * What the page's Notebook hands to a shared document while it is bound to one (binding.ts):
 * every change of structure goes to the document, and comes back into the page from there.
 */
export interface SharedStructure {
  /** Inserts a cell into the document; returns the page's cell for it (already placed). */
  insert(index: number, data: CellData): Cell;
  remove(index: number): void;
  /** Moves `n` cells from `from` (YNotebook.moveCells' meaning of `to`). */
  move(from: number, to: number, n: number): void;
  clearOutputs(): void;
  /** A cell's text or metadata set by a command (merge, split, replace, O): into the document. */
  setSource(cell: Cell, text: string): void;
  /** `value` undefined: the key is removed. */
  setMetadata(cell: Cell, key: string, value: boolean | undefined): void;
  /** The CodeMirror binding of a cell's editor to its shared source (remote carets, undo). */
  editorExtension(cell: Cell): Extension | undefined;
}
