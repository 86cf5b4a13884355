import type { YCellType } from '@jupyter/ydoc';
import type { CellData, NotebookData, Output } from '../model.js';
import { normaliseNotebook } from '../model.js';

/** nbformat's cell as the shared document takes it (text as one string, see YCodeCell.createOutputs). */
export type SharedCellJson = {
  id?: string;
  cell_type: 'code' | 'markdown' | 'raw';
  source: string;
  metadata: Record<string, unknown>;
  execution_count?: number | null;
  outputs?: Record<string, unknown>[];
  attachments?: Record<string, unknown>;
};

/**
 * A page cell in the shared document's form. `metadata.trusted` stays out: trust is the server's
 * signature, worked out when it writes the file, not something one client tells the others.
 */
export function toSharedCell(data: CellData): SharedCellJson {
  const metadata = { ...data.metadata };
  delete metadata.trusted;
  const cell: SharedCellJson = { cell_type: data.cell_type, source: joinSource(data.source), metadata };
  if (data.id) cell.id = data.id;
  if (data.cell_type === 'code') {
    cell.execution_count = data.execution_count ?? null;
    cell.outputs = (data.outputs ?? []).map(sharedOutput);
  } else if (data.attachments) {
    cell.attachments = data.attachments;
  }
  return cell;
}

/** Pasted and undeleted cells come as saved JSON, where text may still be a list of lines. */
function joinSource(source: unknown): string {
  return Array.isArray(source) ? source.join('') : String(source ?? '');
}

function sharedOutput(o: Output): Record<string, unknown> {
  const out: Record<string, unknown> = { ...o };
  delete out.transient;
  if (o.output_type === 'stream') out.text = joinSource(o.text);
  return out;
}

/** The page's form of every cell of the shared document, in order. */
export function snapshot(cells: readonly YCellType[], metadata: Record<string, unknown>): NotebookData {
  return normaliseNotebook({ nbformat: 4, nbformat_minor: 5, metadata, cells: cells.map((c) => c.toJSON()) });
}

/** One shared cell in the page's form. */
export function pageCell(cell: YCellType): CellData {
  return snapshot([cell], {}).cells[0] as CellData;
}
