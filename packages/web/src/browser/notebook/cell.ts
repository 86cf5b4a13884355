import type { EditorView } from '@codemirror/view';
import { h } from '../lib/dom.js';
import { createEditor, type EditorHooks, highlightInto, showLineNumbers } from './cell-codemirror.js';
import type { CellData, CellType, Output } from './model.js';
import { type DisplayRegistry, OutputArea } from './output-area.js';
import { markdownElement, type WidgetViews } from './render-mime.js';

/**
 * One cell: its data, its DOM, and (only once it is edited) a CodeMirror editor. Until then
 * the source is a highlighted <pre>, which keeps a 500-cell notebook quick to open.
 */
export class Cell {
  readonly element: HTMLElement;
  readonly outputArea: OutputArea | undefined;
  private readonly prompt = h('div', { className: 'prompt input-prompt' });
  private readonly inputBox = h('div', { className: 'input-area' });
  private readonly rendered = h('div', { className: 'markdown-rendered' });
  private editor: EditorView | undefined;
  private source: string;
  /** Rendered markdown is shown instead of the source (markdown cells, command mode). */
  private renderedMode = true;
  running = false;
  /** Line numbers in the editor (L); shown from the moment the editor exists. */
  private lineNumbers = false;

  constructor(
    readonly data: CellData,
    trusted: boolean,
    displays: DisplayRegistry,
    widgets: WidgetViews,
    private language: () => string,
    private readonly hooks: (cell: Cell) => EditorHooks,
  ) {
    this.source = data.source;
    this.element = h('div', {
      className: `cell ${data.cell_type}-cell`,
      'data-cell-type': data.cell_type,
      tabindex: '-1',
    });
    const inputRow = h('div', { className: 'input' }, this.prompt, this.inputBox);
    this.element.append(inputRow);
    if (data.cell_type === 'code') {
      this.outputArea = new OutputArea(data.outputs ?? [], trusted, displays, widgets);
      this.element.append(h('div', { className: 'output-wrapper' }, this.outputArea.element));
    }
    // nbformat's per-cell view state, as Notebook 6.4 keeps it (O, Shift-O)
    this.element.classList.toggle('output-collapsed', data.metadata.collapsed === true);
    this.element.classList.toggle('output-scrolled', data.metadata.scrolled === true);
    this.updatePrompt();
    this.showSource();
  }

  get type(): CellType {
    return this.data.cell_type;
  }

  get text(): string {
    return this.source;
  }

  /** Whether a CodeMirror editor shows the source (it follows a shared document by itself). */
  get hasEditor(): boolean {
    return this.editor !== undefined;
  }

  get isEditing(): boolean {
    return this.editor?.hasFocus ?? false;
  }

  setText(text: string): void {
    this.source = text;
    if (this.editor) this.editor.dispatch({ changes: { from: 0, to: this.editor.state.doc.length, insert: text } });
    else this.showSource();
  }

  /** Enters edit mode: creates the editor on first use and focuses it. */
  edit(): void {
    this.openEditor().focus();
  }

  /** The cell's editor, created (markdown shown as source) if it has none yet; not focused. */
  openEditor(): EditorView {
    if (this.type === 'markdown' && this.renderedMode) {
      this.renderedMode = false;
      this.element.classList.remove('rendered');
      this.showSource();
    }
    if (!this.editor) {
      const host = h('div', { className: 'cm-host' });
      this.inputBox.replaceChildren(host);
      const lang = this.type === 'code' ? this.language() : this.type === 'markdown' ? 'markdown' : 'text';
      this.editor = createEditor(host, this.source, lang, this.hooks(this), this.lineNumbers);
    }
    return this.editor;
  }

  /** Shows or hides line numbers (L); a cell without an editor gets one to show them. */
  setLineNumbers(on: boolean): void {
    this.lineNumbers = on;
    this.element.classList.toggle('line-numbers', on);
    if (this.editor) showLineNumbers(this.editor, on);
    else if (on && !(this.type === 'markdown' && this.renderedMode)) this.openEditor();
  }

  get hasLineNumbers(): boolean {
    return this.lineNumbers;
  }

  /** The cursor's offset in the source (the end when there is no editor). */
  cursorOffset(): number {
    return this.editor ? this.editor.state.selection.main.head : this.source.length;
  }

  blur(): void {
    this.editor?.contentDOM.blur();
  }

  cursorAtStart(): boolean {
    return this.editor ? this.editor.state.selection.main.head === 0 : true;
  }

  cursorAtEnd(): boolean {
    return this.editor ? this.editor.state.selection.main.head === this.editor.state.doc.length : true;
  }

  /** Called by the editor on every change. */
  sourceChanged(text: string): void {
    this.source = text;
  }

  /** Markdown cells show their rendered form outside edit mode. */
  renderMarkdown(): void {
    if (this.type !== 'markdown') return;
    this.renderedMode = true;
    this.editor?.destroy();
    this.editor = undefined;
    this.showSource();
  }

  setExecutionCount(count: number | null): void {
    this.data.execution_count = count;
    this.updatePrompt();
  }

  setRunning(running: boolean): void {
    this.running = running;
    this.element.classList.toggle('running', running);
    this.updatePrompt();
  }

  /** Changes the language mode after a kernel change (only matters for existing editors). */
  resetEditor(): void {
    if (!this.editor) return;
    this.editor.destroy();
    this.editor = undefined;
    this.showSource();
  }

  /** The cell as nbformat JSON for saving. */
  toJSON(serialiseOutput: (o: Output) => Record<string, unknown>): Record<string, unknown> {
    const base: Record<string, unknown> = {
      id: this.data.id,
      cell_type: this.type,
      metadata: this.data.metadata,
      source: this.source,
    };
    // Tell the server which code cells the user vouches for; it signs the notebook only if all are.
    if (this.type === 'code') base.metadata = { ...this.data.metadata, trusted: this.outputArea?.trusted ?? false };
    if (this.type === 'code') {
      base.execution_count = this.data.execution_count ?? null;
      base.outputs = (this.outputArea?.outputs ?? []).map(serialiseOutput);
    }
    if (this.data.attachments && this.type !== 'code') base.attachments = this.data.attachments;
    return base;
  }

  private updatePrompt(): void {
    if (this.type !== 'code') {
      this.prompt.textContent = '';
      return;
    }
    const count = this.running ? '*' : (this.data.execution_count ?? ' ');
    this.prompt.textContent = `In [${count}]:`;
  }

  private showSource(): void {
    if (this.editor) return;
    if (this.type === 'markdown' && this.renderedMode && this.source.trim() !== '') {
      this.element.classList.add('rendered');
      this.rendered.replaceChildren(markdownElement(this.source, this.data.attachments));
      this.rendered.ondblclick = () => this.edit();
      this.inputBox.replaceChildren(this.rendered);
      return;
    }
    this.element.classList.remove('rendered');
    const pre = h('pre', { className: 'source-static' });
    const lang = this.type === 'code' ? this.language() : this.type === 'markdown' ? 'markdown' : 'text';
    highlightInto(pre, this.source || ' ', lang);
    pre.addEventListener('dblclick', () => this.edit());
    this.inputBox.replaceChildren(pre);
  }
}
