import { randomUUID } from 'node:crypto';
import { YCodeCell, YFile, YNotebook } from '@jupyter/ydoc';
import type * as Y from 'yjs';
import { badRequest } from '../errors.js';
import { isObject } from '../util/is-object.js';
import { replaceText } from './text-merge.js';
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

  /** The content to compare the file with: `content()` with every cell's shared id kept. */
  snapshot(): unknown {
    const nb = this.notebook;
    if (!nb) return (this.model as YFile).getSource();
    const { nbformat, nbformat_minor } = nb;
    return { nbformat, nbformat_minor, metadata: nb.getMetadata(), cells: nb.cells.map((cell) => cell.toJSON()) };
  }

  /** Loads `content` (what the contents API read from disk) into an empty document. */
  setContent(content: unknown, origin: unknown): void {
    this.ydoc.transact(() => {
      const nb = this.notebook;
      if (!nb) {
        replaceText((this.model as YFile).ysource, typeof content === 'string' ? content : '');
        return;
      }
      replaceSharedNotebook(nb, withACell(content));
    }, origin);
  }

  /**
   * Puts the file's hash (as last loaded or saved) in the document's `state` map, as
   * jupyter-collaboration does: JupyterLab compares it with the file's before a save, and asks
   * "File Changed" when they differ.
   */
  shareHash(hash: string | null, origin: unknown): void {
    const state = this.ydoc.getMap('state');
    if (hash !== null && state.get('hash') !== hash) this.ydoc.transact(() => state.set('hash', hash), origin);
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

/**
 * `content` as a notebook that shows a cell. Made here, once for every client (as jupyter_ydoc
 * does): pages opening an empty notebook together each added their own and it got two.
 */
export function withACell(content: unknown): NotebookContent {
  const value = structuredClone(content) as NotebookContent;
  if (!isObject(value) || !Array.isArray(value.cells)) throw badRequest('Not a notebook');
  if (value.cells.length === 0) {
    value.cells = [
      { cell_type: 'code', id: randomUUID(), source: '', metadata: {}, outputs: [], execution_count: null },
    ];
  }
  return value;
}
