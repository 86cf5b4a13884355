import { randomUUID } from 'node:crypto';
import { type ISharedNotebook, YCodeCell, YFile, YNotebook } from '@jupyter/ydoc';
import type * as Y from 'yjs';
import { badRequest } from '../errors.js';
import { isObject } from '../util/is-object.js';
import { replaceSharedNotebook } from './ycells.js';

/** The two kinds of shared documents, as the room ids of JupyterLab's clients name them. */
export type DocumentKind = 'json:notebook' | 'text:file';

export function documentKind(format: string, type: string): DocumentKind {
  const kind = `${format}:${type}`;
  if (kind === 'json:notebook' || kind === 'text:file') return kind;
  throw badRequest(`Unsupported shared document ${JSON.stringify(kind).slice(0, 80)}: json:notebook or text:file`);
}

type NotebookContent = Parameters<YNotebook['fromJSON']>[0];

/** One open file's shared model: `@jupyter/ydoc`'s YNotebook or YFile over one Y.Doc. */
export class SharedDocument {
  readonly kind: DocumentKind;
  readonly model: YNotebook | YFile;

  constructor(kind: DocumentKind) {
    this.kind = kind;
    // Undo is per client; the server's own model never undoes.
    this.model = kind === 'json:notebook' ? new YNotebook({ disableDocumentWideUndoRedo: true }) : new YFile();
  }

  get ydoc(): Y.Doc {
    return this.model.ydoc;
  }

  get notebook(): YNotebook | undefined {
    return this.model instanceof YNotebook ? this.model : undefined;
  }

  /** True while the document holds nothing (never loaded, no log). */
  get empty(): boolean {
    const nb = this.notebook;
    return nb ? nb.cells.length === 0 && nb.ymeta.size === 0 : (this.model as YFile).ysource.length === 0;
  }

  /** The content to save: an nbformat v4 notebook, or the file's text. */
  content(): unknown {
    const nb = this.notebook;
    if (nb) return nb.toJSON();
    return (this.model as YFile).getSource();
  }

  /**
   * Makes the document hold `content` (what the contents API read from disk), changing as little
   * as it can: with the same cells in the same order only the changed sources, outputs, counts and
   * metadata are rewritten, so cursors and concurrent typing elsewhere survive a reload.
   */
  setContent(content: unknown, origin: unknown): void {
    this.ydoc.transact(() => {
      const nb = this.notebook;
      if (!nb) {
        replaceText((this.model as YFile).ysource, typeof content === 'string' ? content : '');
        return;
      }
      const value = structuredClone(content) as NotebookContent;
      if (!isObject(value) || !Array.isArray(value.cells)) throw badRequest('Not a notebook');
      // A notebook always shows a cell. Made here, once for every client (as jupyter_ydoc does):
      // pages opening an empty notebook together each added their own and it got two.
      if (value.cells.length === 0) value.cells = [blankCodeCell()];
      // A fresh document has no metadata map yet (setMetadata would do nothing): load it whole.
      if (!sameCells(nb, value) || !nb.ymeta.has('metadata')) {
        replaceSharedNotebook(nb, value);
        return;
      }
      if (nb.nbformat !== value.nbformat) nb.nbformat = value.nbformat;
      if (nb.nbformat_minor !== value.nbformat_minor) nb.nbformat_minor = value.nbformat_minor;
      if (!sameJson(nb.getMetadata(), value.metadata)) nb.setMetadata(value.metadata);
      value.cells.forEach((cell, index) => {
        const ycell = nb.getCell(index);
        const source = Array.isArray(cell.source) ? cell.source.join('') : cell.source;
        replaceText(ycell.ymodel.get('source') as Y.Text, source);
        if (!sameJson(ycell.getMetadata(), cell.metadata ?? {})) ycell.setMetadata(cell.metadata ?? {});
        if (ycell instanceof YCodeCell) {
          const outputs = (cell.outputs ?? []) as Parameters<YCodeCell['setOutputs']>[0];
          if (!sameJson(ycell.getOutputs(), outputs)) ycell.setOutputs(outputs);
          const count = (cell.execution_count ?? null) as number | null;
          if (ycell.execution_count !== count) ycell.execution_count = count;
        }
      });
    }, origin);
  }

  /** Clears every code cell's run state: `In [*]` back to its count, a pending input prompt gone. */
  endStaleRuns(origin: unknown): void {
    const nb = this.notebook;
    if (!nb) return;
    this.ydoc.transact(() => {
      for (const cell of nb.cells) {
        if (!(cell instanceof YCodeCell)) continue;
        if (cell.executionState === 'running') cell.executionState = 'idle';
        if (cell.ymodel.has('input_request')) cell.ymodel.delete('input_request');
      }
    }, origin);
  }

  dispose(): void {
    this.model.dispose();
  }
}

function blankCodeCell(): NotebookContent['cells'][number] {
  return { cell_type: 'code', id: randomUUID(), source: '', metadata: {}, outputs: [], execution_count: null };
}

function sameCells(nb: ISharedNotebook, value: NotebookContent): boolean {
  if (nb.cells.length !== value.cells.length) return false;
  return value.cells.every((cell, i) => {
    const ycell = nb.cells[i];
    return ycell !== undefined && ycell.cell_type === cell.cell_type && (cell.id === undefined || ycell.id === cell.id);
  });
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Rewrites only the differing middle of a text (common prefix and suffix kept). */
export function replaceText(text: Y.Text, next: string): void {
  const current = text.toString();
  if (current === next) return;
  let start = 0;
  const max = Math.min(current.length, next.length);
  while (start < max && current[start] === next[start]) start++;
  let end = 0;
  while (end < max - start && current[current.length - 1 - end] === next[next.length - 1 - end]) end++;
  const removed = current.length - start - end;
  if (removed > 0) text.delete(start, removed);
  const inserted = next.slice(start, next.length - end);
  if (inserted.length > 0) text.insert(start, inserted);
}
