import { keymap } from '@codemirror/view';
import type { CellChange, NotebookChange, SharedCell, YCellType, YCodeCell } from '@jupyter/ydoc';
import { insertSharedCells, moveSharedCells } from '@nbserve/core/ycells';
import { yCollab, yUndoManagerKeymap } from 'y-codemirror.next';
import * as Y from 'yjs';
import type { Cell } from '../cell.js';
import type { Notebook } from '../document.js';
import { type CellData, normaliseOutput, type Output } from '../model.js';
import type { OutputArea } from '../output-area.js';
import { pageCell, snapshot, toSharedCell } from './cells.js';
import { showDiskNotice } from './disk-notice.js';
import { showInputRequest } from './input.js';
import type { SharedNotebook } from './session.js';
import type { SharedStructure } from './structure.js';

type Delta = NonNullable<NotebookChange['cellsChange']>;

/**
 * Binds the page's Notebook to a shared YNotebook (@jupyter/ydoc). The document is the truth:
 * a local change of structure is made in the document (through `SharedStructure`), and every
 * change of the document — local, remote or an undo — comes back into the page through
 * `onChanged`. Sources follow through y-codemirror.next once a cell has an editor, and through
 * `onCellChanged` while it shows static text; outputs, counts and the running state are drawn
 * from the document whenever they change there (the server writes them as a cell runs).
 */
export class NotebookBinding implements SharedStructure {
  private readonly ycells = new Map<Cell, YCellType>();
  /** Depth of changes this page is making (their selection is the caller's business). */
  private local = 0;
  private loading = false;
  private stale = false;
  private readonly redraws = new Map<Cell, YCodeCell>();
  /** Cells this page asked to run, shown `In [*]` until the document says they ran. */
  readonly queued = new Set<Cell>();
  /** Fires after the document changed the page's cells (presence badges are redrawn then). */
  onStructure: () => void = () => {};

  constructor(
    private readonly nb: Notebook,
    readonly shared: SharedNotebook,
  ) {}

  get ynotebook() {
    return this.shared.ynotebook;
  }

  /** The shared cell shown by a page cell. */
  ycell(cell: Cell): YCellType | undefined {
    return this.ycells.get(cell);
  }

  /**
   * Builds the page from the document. `trustedIds`: code cells the server vouched for when it
   * read the file (the document carries no trust; see cells.ts).
   */
  async open(trustedIds: ReadonlySet<string>): Promise<void> {
    const nb = this.ynotebook;
    if (nb.cells.length === 0) insertSharedCells(nb, 0, [{ cell_type: 'code', source: '', metadata: {} }]);
    nb.changed.connect(this.onChanged, this);
    this.nb.shared = this;
    for (let attempt = 0; ; attempt++) {
      this.loading = true;
      this.stale = false;
      const data = snapshot(nb.cells, nb.getMetadata() as Record<string, unknown>);
      for (const c of data.cells) if (c.id && trustedIds.has(c.id)) c.metadata.trusted = true;
      await this.nb.load(data, this.nb.trusted);
      await this.nb.loaded;
      this.loading = false;
      // The document changed while the cells were built in slices: build them again.
      if (!this.stale || attempt >= 5) break;
    }
    this.ycells.clear();
    this.nb.cells.forEach((cell, i) => {
      const ycell = nb.cells[i];
      if (ycell) this.bind(cell, ycell);
    });
  }

  // ---- SharedStructure: the page's own changes go into the document ----

  insert(index: number, data: CellData): Cell {
    this.locally(() => insertSharedCells(this.ynotebook, index, [toSharedCell(data) as SharedCell.Cell]));
    return this.nb.cells[index] as Cell;
  }

  remove(index: number): void {
    this.locally(() => this.ynotebook.deleteCell(index));
  }

  move(from: number, to: number, n: number): void {
    this.locally(() => moveSharedCells(this.ynotebook, from, to, n));
  }

  clearOutputs(): void {
    this.locally(() =>
      this.ynotebook.transact(() => {
        for (const ycell of this.ynotebook.cells) {
          if (ycell.cell_type !== 'code') continue;
          ycell.clearOutputs();
          ycell.execution_count = null;
        }
      }, false),
    );
  }

  setSource(cell: Cell, text: string): void {
    const ycell = this.ycells.get(cell);
    if (ycell && ycell.getSource() !== text) ycell.setSource(text);
  }

  setMetadata(cell: Cell, key: string, value: boolean | undefined): void {
    const ycell = this.ycells.get(cell);
    if (value === undefined) ycell?.deleteMetadata(key);
    else ycell?.setMetadata(key, value);
  }

  editorExtension(cell: Cell) {
    const ycell = this.ycells.get(cell);
    if (!ycell) return undefined;
    // One history per cell editor and per client: only this page's typing (y-codemirror.next's
    // origin) is undone, never a collaborator's.
    const undoManager = new Y.UndoManager(ycell.ysource);
    return [yCollab(ycell.ysource, this.ynotebook.awareness, { undoManager }), keymap.of(yUndoManagerKeymap)];
  }

  private locally(change: () => void): void {
    this.local++;
    try {
      change();
    } finally {
      this.local--;
    }
  }

  // ---- the document's changes come into the page ----

  private onChanged(_sender: unknown, change: NotebookChange): void {
    if (this.loading) {
      this.stale = true;
      return;
    }
    if (change.cellsChange) this.applyCells(change.cellsChange);
    if (change.metadataChange) this.nb.metadata = this.ynotebook.getMetadata() as Record<string, unknown>;
  }

  private applyCells(delta: Delta): void {
    const nb = this.nb;
    const selected = nb.selectedCell;
    let index = 0;
    for (const d of delta) {
      if (d.retain) index += d.retain;
      for (let k = 0; k < (d.delete ?? 0); k++) {
        const cell = nb.cells[index];
        if (!cell) break;
        this.ycells.delete(cell);
        this.queued.delete(cell);
        nb.dropCell(index);
      }
      for (const shared of d.insert ?? []) {
        const ycell = shared as YCellType;
        const data = pageCell(ycell);
        const cell = nb.placeCell(index, data, true);
        this.bind(cell, ycell);
        index++;
      }
    }
    if (nb.cells.length > 0) {
      // A collaborator's change keeps this page's selection on its cell; for the page's own
      // change the caller moves the selection (as without a shared document).
      const kept = this.local === 0 && selected ? nb.cells.indexOf(selected) : -1;
      // (A local change keeps the selection's range: the caller moves it.)
      nb.select(kept >= 0 ? kept : Math.min(nb.selected, nb.cells.length - 1), false, this.local > 0);
    } else if (this.local === 0) {
      // Someone deleted every cell: a notebook always shows one.
      queueMicrotask(() => {
        if (this.ynotebook.cells.length === 0) this.insert(0, { cell_type: 'code', source: '', metadata: {} });
      });
    }
    this.nb.onExecutionChange();
    this.onStructure();
  }

  private bind(cell: Cell, ycell: YCellType): void {
    this.ycells.set(cell, ycell);
    ycell.changed.connect((_sender: unknown, change: CellChange) => this.onCellChanged(cell, ycell, change));
    showDiskNotice(cell, ycell);
    ycell.ymodel.observe((event) => {
      if (this.ycells.get(cell) !== ycell) return;
      if (event.keysChanged.has('changed_on_disk')) showDiskNotice(cell, ycell);
      if (event.keysChanged.has('input_request') && ycell.cell_type === 'code') showInputRequest(cell, ycell);
    });
    if (ycell.cell_type === 'code' && ycell.executionState === 'running') cell.setRunning(true);
  }

  private onCellChanged(cell: Cell, ycell: YCellType, change: CellChange): void {
    if (this.ycells.get(cell) !== ycell) return;
    if (change.sourceChange && !cell.hasEditor) {
      const text = ycell.getSource();
      if (text !== cell.text) cell.setText(text);
    }
    if (change.metadataChange) Object.assign(cell.data.metadata, ycell.getMetadata());
    if (
      ycell.cell_type === 'code' &&
      (change.outputsChange || change.streamOutputChange || change.executionCountChange || change.executionStateChange)
    ) {
      if (change.executionStateChange?.newValue === 'running') this.queued.delete(cell);
      this.scheduleRedraw(cell, ycell);
    }
  }

  /** Many small changes (a stream of lines) arrive in one task: draw the cell once for them. */
  private scheduleRedraw(cell: Cell, ycell: YCodeCell): void {
    if (this.redraws.size === 0) queueMicrotask(() => this.redraw());
    this.redraws.set(cell, ycell);
  }

  private redraw(): void {
    const cells = [...this.redraws];
    this.redraws.clear();
    for (const [cell, ycell] of cells) {
      if (this.ycells.get(cell) !== ycell) continue;
      this.drawOutputs(cell, ycell);
    }
    this.nb.onExecutionChange();
  }

  /**
   * Draws every output again with the trust the server now gives each cell (after "Trust
   * notebook": the notebook's signature, or the cells the server marked).
   */
  retrust(trusted: (index: number) => boolean): void {
    this.nb.cells.forEach((cell, i) => {
      const area = cell.outputArea;
      const ycell = this.ycells.get(cell);
      if (!area || ycell?.cell_type !== 'code') return;
      area.clear();
      area.trusted = trusted(i);
      for (const o of (ycell.getOutputs() as unknown as Output[]).map(normaliseOutput)) area.append(o);
    });
  }

  /** Redraws a code cell's outputs, prompt and running state from the document. */
  drawOutputs(cell: Cell, ycell: YCodeCell): void {
    const area = cell.outputArea;
    if (!area) return;
    const next = (ycell.getOutputs() as unknown as Output[]).map(normaliseOutput);
    // Outputs made after the page opened come from code run by this notebook's users.
    area.trusted = true;
    updateOutputs(area, next);
    cell.setExecutionCount(ycell.execution_count ?? null);
    cell.setRunning(ycell.executionState === 'running' || this.queued.has(cell));
    showInputRequest(cell, ycell);
  }
}

/**
 * Brings an output area to `next` touching as little as it can: outputs already shown stay (an
 * HTML output's frame is not rebuilt, its scripts do not run again), new ones are appended, and
 * a stream that grew gets just its new text.
 */
function updateOutputs(area: OutputArea, next: Output[]): void {
  const shown = area.outputs;
  let same = 0;
  while (same < shown.length && same < next.length && sameOutput(shown[same] as Output, next[same] as Output)) same++;
  const last = shown[same];
  const grown = next[same];
  if (
    same === shown.length - 1 &&
    last?.output_type === 'stream' &&
    grown?.output_type === 'stream' &&
    last.name === grown.name &&
    (grown.text ?? '').startsWith(last.text ?? '') &&
    !(grown.text ?? '').slice((last.text ?? '').length).includes('\r')
  ) {
    area.append({ ...grown, text: (grown.text ?? '').slice((last.text ?? '').length) });
    same++;
  } else if (same < shown.length) {
    area.clear();
    same = 0;
  }
  for (const output of next.slice(same)) area.append(output);
}

function sameOutput(a: Output, b: Output): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
