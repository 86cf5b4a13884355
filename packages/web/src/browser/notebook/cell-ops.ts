import type { Cell } from './cell.js';
import type { Notebook } from './document.js';
import { blankCell } from './model.js';

/**
 * Cell operations of Notebook 6.4 beyond the basic ones in document.ts: merge (Shift-M), split
 * (Ctrl-Shift-Minus), headings (1–6), and the per-cell view toggles (L, Shift-L, O, Shift-O).
 */

/** Merges the selected cells into the first (one selected cell merges with the one below). */
export function mergeCells(nb: Notebook): void {
  let [lo, hi] = nb.range();
  if (lo === hi) hi = lo + 1;
  const cells = nb.cells.slice(lo, hi + 1);
  const [first] = cells;
  if (!first || cells.length < 2) return;
  nb.setCellText(first, cells.map((c) => c.text).join('\n\n'));
  if (first.type === 'code') {
    first.outputArea?.clear();
    first.setExecutionCount(null);
  }
  for (let i = hi; i > lo; i--) nb.removeAt(i);
  nb.select(lo);
  nb.setDirty(true);
}

/** Splits the cell being edited at the cursor: the text before it goes to a new cell above. */
export function splitCell(nb: Notebook): void {
  const cell = nb.selectedCell;
  if (!cell) return;
  const at = cell.cursorOffset();
  const before = cell.text.slice(0, at).replace(/\n$/, '');
  const after = cell.text.slice(at).replace(/^\n/, '');
  const data = blankCell(cell.type);
  data.source = before;
  nb.setCellText(cell, after);
  const index = nb.selected;
  nb.insertCell(index, data);
  nb.select(index + 1);
  nb.enterEdit();
  cell.openEditor().dispatch({ selection: { anchor: 0 } });
}

/** 1–6: the selected cells become markdown headings of that level. */
export function toHeading(nb: Notebook, level: number): void {
  nb.changeType('markdown');
  for (const cell of nb.selectedCells()) {
    nb.setCellText(cell, `${'#'.repeat(level)} ${cell.text.replace(/^#+\s*/, '')}`);
    cell.renderMarkdown();
  }
  nb.setDirty(true);
}

/** L toggles the selected cells' line numbers; Shift-L all cells' (by the selected one's state). */
export function toggleLineNumbers(nb: Notebook, all: boolean): void {
  const on = !(nb.selectedCell?.hasLineNumbers ?? false);
  for (const cell of all ? nb.cells : nb.selectedCells()) cell.setLineNumbers(on);
}

/** O hides the selected cells' output, Shift-O makes it scroll; kept as nbformat's `collapsed`/`scrolled`. */
export function toggleOutput(nb: Notebook, what: 'collapsed' | 'scrolled'): void {
  const cells = nb.selectedCells().filter((c) => c.type === 'code');
  const on = !cells.every((c: Cell) => c.data.metadata[what] === true);
  for (const cell of cells) {
    cell.element.classList.toggle(`output-${what}`, on);
    nb.setCellFlag(cell, what, on || undefined);
  }
  if (cells.length > 0) nb.setDirty(true);
}

/** Space / Shift-Space: the notebook scrolls by most of a screen. */
export function scrollNotebook(nb: Notebook, direction: 1 | -1): void {
  const main = nb.element.closest('main') ?? document.scrollingElement;
  const page = main && main.clientHeight < window.innerHeight ? main : document.scrollingElement;
  page?.scrollBy({ top: direction * window.innerHeight * 0.8 });
}
