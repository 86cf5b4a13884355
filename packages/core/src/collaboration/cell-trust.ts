import type { YNotebook } from '@jupyter/ydoc';
import * as Y from 'yjs';
import { outputNeedsTrust } from '../contents/notary.js';
import { isObject } from '../util/is-object.js';

/** Who made a change to a shared notebook. */
export type ChangeSource = 'client' | 'server' | 'disk';

/**
 * Which code cells of a shared notebook are trusted, by Jupyter's rule (nbformat's
 * `NotebookNotary`, https://github.com/jupyter/nbformat/blob/main/nbformat/sign.py): a cell is
 * trusted when its outputs came from a signed file or were produced by this server's kernel runs,
 * or when it shows nothing that needs trust. The shared document itself carries no trust a client
 * could set: every save marks the cells from here, and the contents manager signs the file when
 * all code cells are trusted (`allCellsTrusted`), as `check_and_sign` does in jupyter_server.
 *
 * Trust follows a cell's Y.Map: outputs a client writes (or a cell a client inserts, so also a cell
 * moved or pasted) are trusted only when they need no trust; the server runner's outputs are.
 */
export class CellTrust {
  readonly #cells: Y.Array<Y.Map<unknown>>;
  readonly #trusted = new WeakMap<Y.Map<unknown>, boolean>();

  constructor(notebook: YNotebook) {
    this.#cells = notebook.ydoc.getArray<Y.Map<unknown>>('cells');
  }

  /**
   * The document was just loaded from `content` (as the contents API reads it: every code cell
   * `metadata.trusted` when the file's signature is valid). `exact`: the document equals it; else
   * (edits replayed from the log) a cell keeps the file's trust only where its outputs are the file's.
   */
  fromFile(content: unknown, exact: boolean): void {
    const cells = isObject(content) && Array.isArray(content.cells) ? content.cells.filter(isObject) : [];
    const signed = cells.some((cell) => cell.cell_type === 'code' && isObject(cell.metadata) && cell.metadata.trusted);
    const fileOutputs = new Map<string, string>();
    if (signed && !exact) {
      for (const cell of cells)
        if (typeof cell.id === 'string') fileOutputs.set(cell.id, canonical(cell.outputs ?? []));
    }
    for (const map of this.#cells) {
      const trusted =
        needsNoTrust(map) ||
        (signed && (exact || fileOutputs.get(String(map.get('id'))) === canonical(outputsOf(map)?.toJSON() ?? [])));
      this.#trusted.set(map, trusted);
    }
  }

  /** "Trust notebook": every cell as it is now. True when some cell was not trusted before. */
  trustAll(): boolean {
    let changed = false;
    for (const map of this.#cells) {
      changed ||= this.#trusted.get(map) !== true;
      this.#trusted.set(map, true);
    }
    return changed;
  }

  /** Judges the cells a transaction touched: new cells, and cells whose outputs (or type) changed. */
  observe(transaction: Y.Transaction, source: ChangeSource): void {
    if (source === 'disk') return; // the loader calls fromFile
    const judge = (map: Y.Map<unknown>) => this.#trusted.set(map, source === 'server' || needsNoTrust(map));
    for (const type of transaction.changedParentTypes.keys()) {
      const cell = type._item?.parent === this.#cells ? type : undefined;
      if (!(cell instanceof Y.Map)) continue;
      const outputs = outputsOf(cell);
      const keys = transaction.changed.get(type);
      const replaced = keys?.has('outputs') === true || keys?.has('cell_type') === true;
      if (replaced || (outputs !== undefined && transaction.changedParentTypes.has(outputs))) judge(cell);
    }
    // Cells made in this transaction are not among the changed types: any cell not known yet is new.
    if (transaction.changed.has(this.#cells)) {
      for (const map of this.#cells) if (!this.#trusted.has(map)) judge(map);
    }
  }

  /** `content` (the document's JSON, cells in document order) with each code cell's `metadata.trusted`. */
  mark(content: unknown): unknown {
    if (!isObject(content) || !Array.isArray(content.cells)) return content;
    const maps = this.#cells.toArray();
    return {
      ...content,
      cells: content.cells.map((cell: unknown, index) => {
        if (!isObject(cell) || cell.cell_type !== 'code') return cell;
        const map = maps[index];
        // (a notebook before nbformat 4.5 saves no cell ids)
        const sameCell = map !== undefined && (cell.id === undefined || map.get('id') === cell.id);
        const trusted = sameCell && this.#trusted.get(map) === true;
        return { ...cell, metadata: { ...(isObject(cell.metadata) ? cell.metadata : {}), trusted } };
      }),
    };
  }
}

function outputsOf(map: Y.Map<unknown>): Y.Array<unknown> | undefined {
  const outputs = map.get('outputs');
  return outputs instanceof Y.Array ? outputs : undefined;
}

/** A cell that is no code cell or shows no rich output (as nbformat's `_check_cell`). */
function needsNoTrust(map: Y.Map<unknown>): boolean {
  if (map.get('cell_type') !== 'code') return true;
  const outputs = outputsOf(map);
  if (!outputs) return true;
  return outputs
    .toArray()
    .every((o) => !outputNeedsTrust(o instanceof Y.Map ? o.get('output_type') : isObject(o) ? o.output_type : null));
}

/** JSON with object keys sorted and multi-line strings joined, to compare outputs however they were built. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (Array.isArray(v) && v.length > 0 && v.every((s) => typeof s === 'string')) return v.join('');
    if (!isObject(v)) return v;
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, v[k]]),
    );
  });
}
