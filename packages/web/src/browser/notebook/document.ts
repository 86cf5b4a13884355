import { h } from '../lib/dom.js';
import { Cell } from './cell.js';
import type { EditorHooks } from './cell-codemirror.js';
import { cellEditorSupport } from './cell-editor.js';
import { CellRunner } from './cell-runner.js';
import type { SharedStructure } from './collab/structure.js';
import type { CommandId } from './commands.js';
import type { KernelConnection } from './kernel.js';
import { blankCell, type CellData, type CellType, type NotebookData, serialiseOutput } from './model.js';
import { DisplayRegistry } from './output-area.js';
import { Pager } from './pager.js';
import { ResumeTracker } from './resume.js';
import { WidgetHost } from './widgets/host.js';

export type Mode = 'command' | 'edit';

/** Cells are attached to the DOM in slices so the first screen paints before the rest exist. */
const FIRST_SLICE = 30;
const SLICE = 60;

/**
 * The notebook document in the page: its cells, the selection, command/edit mode and the
 * editing of its structure; running cells is the CellRunner's part.
 */
export class Notebook {
  readonly element = h('div', { className: 'notebook-cells', role: 'list' });
  cells: Cell[] = [];
  metadata: Record<string, unknown> = {};
  selected = 0;
  /** The other end of a multi-cell selection (Shift-J/K, Shift-click); `selected` when one cell. */
  anchor = 0;
  mode: Mode = 'command';
  dirty = false;
  trusted = false;
  private readonly displays = new DisplayRegistry();
  /** The page's Jupyter widgets: comm messages, widget outputs, their saved state. */
  readonly widgets = new WidgetHost();
  private clipboard: CellData[] = [];
  private loadGeneration = 0;
  private readonly deleted: { index: number; cells: CellData[] }[] = [];
  /** The documentation pager (Shift-Tab, `?`); the page places it in the body. */
  readonly pager = new Pager();
  readonly runner: CellRunner;
  private readonly editorSupport: Pick<EditorHooks, 'keys' | 'complete' | 'inspect'>;
  onDirty: (dirty: boolean) => void = () => {};
  onModeChange: (mode: Mode) => void = () => {};
  onExecutionChange: () => void = () => {};
  /** Set while the page is bound to a shared document (collab/): structure changes go through it. */
  shared: SharedStructure | undefined;
  /** Called whenever the selection changes (the cell-type selector follows it). */
  onSelect: () => void = () => {};

  constructor(
    readonly kernel: KernelConnection,
    /** Records the execute requests in flight, for a page that takes over after this one closes. */
    resume: ResumeTracker = new ResumeTracker(undefined),
    /** Runs a page command (the run keys work in the cell editor too). */
    runCommand: (id: CommandId) => void = () => {},
  ) {
    this.runner = new CellRunner(this, kernel, resume);
    this.widgets.attach(kernel);
    this.editorSupport = cellEditorSupport(this, runCommand);
    document.body.classList.add('command-mode');
    this.element.addEventListener('mousedown', (e) => this.onMouseDown(e));
  }

  get language(): string {
    const info = this.kernel.languageInfo.name ?? (this.metadata.language_info as { name?: string })?.name;
    return typeof info === 'string'
      ? info
      : ((this.metadata.kernelspec as { language?: string })?.language ?? 'python');
  }

  get selectedCell(): Cell | undefined {
    return this.cells[this.selected];
  }

  /** Settles when every cell of the last `load` exists (saving waits for it: no cell is left out). */
  loaded: Promise<void> = Promise.resolve();
  /** Every cell of the last `load` exists (what a synchronous save, on closing, must check). */
  fullyBuilt = true;

  /**
   * Replaces the document. Resolves once the first screen of cells is in the DOM; the rest are
   * built in later frames (`loaded` settles when they are all there).
   */
  load(nb: NotebookData, trusted: boolean): Promise<void> {
    let firstSlice!: () => void;
    const first = new Promise<void>((r) => {
      firstSlice = r;
    });
    this.fullyBuilt = false;
    const generation = this.loadGeneration + 1;
    this.loaded = this.build(nb, trusted, firstSlice).then(() => {
      if (generation === this.loadGeneration) this.fullyBuilt = true;
    });
    return first;
  }

  private async build(nb: NotebookData, trusted: boolean, firstSlice: () => void): Promise<void> {
    this.metadata = nb.metadata;
    this.widgets.useMetadata(nb.metadata);
    this.trusted = trusted;
    this.element.replaceChildren();
    this.cells = [];
    const data = nb.cells.length > 0 ? nb.cells : [blankCell('code')];
    // Cells (and their rendered outputs) are built slice by slice, so the first screen paints
    // after ~30 cells instead of after all of them; the rest follow in later frames.
    const generation = ++this.loadGeneration;
    const build = (from: number, to: number) => {
      const frag = document.createDocumentFragment();
      for (const c of data.slice(from, to)) {
        const cell = this.makeCell(c, this.isTrustedCell(c, trusted));
        this.cells.push(cell);
        frag.append(cell.element);
      }
      this.element.append(frag);
    };
    build(0, FIRST_SLICE);
    this.select(0, false);
    this.setDirty(false);
    firstSlice();
    for (let i = FIRST_SLICE; i < data.length; i += SLICE) {
      await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
      if (generation !== this.loadGeneration) return; // a newer load (revert, reload) took over
      build(i, i + SLICE);
    }
  }

  /** nbformat's trust is per output; a cell we cannot vouch for keeps its outputs sanitized. */
  /** A cell's outputs are trusted if the server marked the cell or the whole notebook is trusted. */
  private isTrustedCell(cell: CellData, notebookTrusted: boolean): boolean {
    return notebookTrusted || cell.metadata.trusted === true;
  }

  /** True when every output is trusted: the notebook was, or the user produced them here. */
  fullyTrusted(): boolean {
    return this.cells.every((c) => !c.outputArea || c.outputArea.outputs.length === 0 || c.outputArea.trusted);
  }

  toJSON(): Record<string, unknown> {
    return {
      nbformat: 4,
      nbformat_minor: 5,
      metadata: this.widgets.metadataForSave(this.metadata),
      cells: this.cells.map((c) => c.toJSON(serialiseOutput)),
    };
  }

  /** Sets a cell's text from a command; shared: into the document too (an open editor does that itself). */
  setCellText(cell: Cell, text: string): void {
    const editing = cell.hasEditor;
    cell.setText(text);
    if (!editing) this.shared?.setSource(cell, text);
  }

  /** Sets (or with undefined removes) a view flag in a cell's metadata; shared: in the document too. */
  setCellFlag(cell: Cell, key: 'collapsed' | 'scrolled', value: true | undefined): void {
    if (value) cell.data.metadata[key] = value;
    else delete cell.data.metadata[key];
    this.shared?.setMetadata(cell, key, value);
  }

  setDirty(dirty: boolean): void {
    if (this.dirty === dirty) return;
    this.dirty = dirty;
    this.onDirty(dirty);
  }

  // ---- selection and modes ----

  /** Selects one cell, or with `extend` moves the selection's head and keeps its anchor. */
  select(index: number, scroll = true, extend = false): void {
    if (this.cells.length === 0) return;
    const last = this.cells.length - 1;
    this.selected = Math.max(0, Math.min(last, index));
    this.anchor = extend ? Math.min(this.anchor, last) : this.selected;
    const [lo, hi] = this.range();
    for (const [i, c] of this.cells.entries()) {
      c.element.classList.toggle('selected', i === this.selected);
      c.element.classList.toggle('in-selection', hi > lo && i >= lo && i <= hi);
    }
    if (scroll) (this.selectedCell as Cell).element.scrollIntoView({ block: 'nearest' });
    this.onSelect();
  }

  /** The first and last index of the selection. */
  range(): [number, number] {
    return [Math.min(this.anchor, this.selected), Math.max(this.anchor, this.selected)];
  }

  selectedCells(): Cell[] {
    const [lo, hi] = this.range();
    return this.cells.slice(lo, hi + 1);
  }

  enterEdit(): void {
    const cell = this.selectedCell;
    if (!cell) return;
    this.setMode('edit');
    cell.edit();
  }

  enterCommand(): void {
    const cell = this.selectedCell;
    this.setMode('command');
    cell?.blur();
    this.element.focus({ preventScroll: true });
  }

  private setMode(mode: Mode): void {
    if (this.mode === mode) return;
    this.mode = mode;
    document.body.classList.toggle('edit-mode', mode === 'edit');
    document.body.classList.toggle('command-mode', mode === 'command');
    this.onModeChange(mode);
  }

  private onMouseDown(e: MouseEvent): void {
    const target = e.target as HTMLElement;
    const el = target.closest('.cell');
    const index = this.cells.findIndex((c) => c.element === el);
    if (index < 0) return;
    if (e.shiftKey && !target.closest('.cm-editor')) {
      e.preventDefault(); // extends the selection; no text selection, no edit mode
      this.select(index, false, true);
      this.setMode('command');
      return;
    }
    if (index !== this.selected || this.anchor !== this.selected) this.select(index, false);
    const cell = this.cells[index] as Cell;
    if (target.closest('.source-static')) {
      e.preventDefault();
      this.enterEdit();
    } else if (target.closest('.cm-editor')) {
      this.setMode('edit');
    } else if (
      !(cell.type === 'markdown' && target.closest('.markdown-rendered')) &&
      !target.closest('input,a,.output-area')
    ) {
      this.setMode('command');
    }
  }

  // ---- structure ----

  private makeCell(data: CellData, trusted: boolean): Cell {
    return new Cell(
      data,
      trusted,
      this.displays,
      this.widgets,
      () => this.language,
      (cell) => ({
        ...this.editorSupport,
        ...(this.shared ? { shared: this.shared.editorExtension(cell) } : {}),
        onChange: (text) => {
          cell.sourceChanged(text);
          this.setDirty(true);
        },
        onFocus: () => {
          const i = this.cells.indexOf(cell);
          if (i >= 0 && i !== this.selected) this.select(i, false);
          this.setMode('edit');
        },
      }),
    );
  }

  insertCell(index: number, data: CellData, trusted = true): Cell {
    if (this.shared) return this.shared.insert(index, data);
    return this.placeCell(index, data, trusted);
  }

  /** Puts a cell into the page only (the shared document's changes arrive this way). */
  placeCell(index: number, data: CellData, trusted: boolean): Cell {
    const cell = this.makeCell(data, trusted);
    const before = this.cells[index];
    this.cells.splice(index, 0, cell);
    if (before) this.element.insertBefore(cell.element, before.element);
    else this.element.append(cell.element);
    this.setDirty(true);
    return cell;
  }

  insertAbove(): void {
    this.insertCell(this.selected, blankCell('code'));
    this.select(this.selected);
  }

  insertBelow(): void {
    this.insertCell(this.selected + 1, blankCell('code'));
    this.select(this.selected + 1);
  }

  deleteSelected(): void {
    const [lo, hi] = this.range();
    if (this.cells.length === 0) return;
    this.deleted.push({ index: lo, cells: this.selectedData() });
    for (let i = hi; i >= lo; i--) this.removeAt(i);
    if (this.cells.length === 0) this.insertCell(0, blankCell('code'));
    this.select(Math.min(lo, this.cells.length - 1));
  }

  private selectedData(): CellData[] {
    return this.selectedCells().map((c) => c.toJSON(serialiseOutput) as unknown as CellData);
  }

  removeAt(index: number): void {
    if (this.shared) this.shared.remove(index);
    else this.dropCell(index);
  }

  /** Takes a cell out of the page only. */
  dropCell(index: number): void {
    const [cell] = this.cells.splice(index, 1);
    cell?.element.remove();
    if (cell?.outputArea) this.displays.forget(cell.outputArea);
    this.setDirty(true);
  }

  undoDelete(): void {
    const last = this.deleted.pop();
    if (!last) return;
    const index = Math.min(last.index, this.cells.length);
    for (const [i, data] of last.cells.entries())
      this.insertCell(index + i, this.fromJSON(data), data.metadata.trusted === true);
    this.select(index);
  }

  private fromJSON(data: CellData): CellData {
    const source = Array.isArray(data.source) ? (data.source as string[]).join('') : data.source;
    return { ...data, source, id: crypto.randomUUID().slice(0, 8) };
  }

  copySelected(): void {
    this.clipboard = this.selectedData();
  }

  cutSelected(): void {
    this.copySelected();
    this.deleteSelected();
    this.deleted.pop(); // a cut is pasteable, not undoable as a delete
  }

  paste(above: boolean): void {
    if (this.clipboard.length === 0) return;
    const at = above ? this.selected : this.selected + 1;
    // A pasted cell keeps its trust: pasting must not launder untrusted outputs.
    for (const [i, data] of this.clipboard.entries())
      this.insertCell(at + i, this.fromJSON(data), data.metadata.trusted === true);
    this.select(at);
    this.select(at + this.clipboard.length - 1, true, true); // the pasted cells, and only they
  }

  moveSelected(delta: -1 | 1): void {
    const [lo, hi] = this.range();
    if (lo + delta < 0 || hi + delta >= this.cells.length) return;
    if (this.shared) {
      this.shared.move(lo, delta < 0 ? lo - 1 : hi + 1, hi - lo + 1);
    } else {
      const block = this.cells.splice(lo, hi - lo + 1);
      this.cells.splice(lo + delta, 0, ...block);
      const ref = this.cells[lo + delta + block.length];
      for (const cell of block) this.element.insertBefore(cell.element, ref?.element ?? null);
    }
    this.anchor += delta;
    this.select(this.selected + delta, true, true);
    this.setDirty(true);
  }

  changeType(type: CellType): void {
    const [lo, hi] = this.range();
    const { anchor, selected } = this;
    for (let index = lo; index <= hi; index++) {
      const cell = this.cells[index];
      if (!cell || cell.type === type) continue;
      const data = blankCell(type);
      data.source = cell.text;
      data.metadata = cell.data.metadata;
      this.removeAt(index);
      this.insertCell(index, data);
    }
    this.anchor = anchor;
    this.select(selected, true, true);
  }

  // ---- execution ----

  /** Runs (or renders) the selected cell; `then` decides where the selection goes. */
  runSelected(then: 'stay' | 'next' | 'insert'): void {
    const cells = this.selectedCells();
    if (cells.length === 0) return;
    for (const cell of cells) this.runner.run(cell);
    if (then === 'stay') {
      this.enterCommand();
      return;
    }
    this.selected = this.range()[1];
    if (then === 'insert' || this.selected === this.cells.length - 1) {
      this.insertCell(this.selected + 1, blankCell('code'));
      this.select(this.selected + 1);
      this.enterEdit();
      return;
    }
    this.select(this.selected + 1);
    this.enterCommand();
  }

  runCells(cells: Cell[]): void {
    for (const cell of cells) this.runner.run(cell);
  }

  /** Waits for cells still being built after a load, so "run all" really runs all. */
  async runAll(): Promise<void> {
    await this.loaded;
    this.runCells(this.cells);
  }

  runAbove(): void {
    this.runCells(this.cells.slice(0, this.selected));
  }

  async runBelow(): Promise<void> {
    await this.loaded;
    this.runCells(this.cells.slice(this.selected));
  }

  clearAllOutputs(): void {
    if (this.shared) {
      this.shared.clearOutputs();
      return;
    }
    for (const cell of this.cells) {
      cell.outputArea?.clear();
      if (cell.type === 'code') cell.setExecutionCount(null);
    }
    this.setDirty(true);
  }
}
