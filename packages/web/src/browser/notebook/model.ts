/** nbformat v4 shapes as the page keeps them (multi-line strings already joined). */
export interface Output {
  output_type: 'stream' | 'display_data' | 'execute_result' | 'error' | 'update_display_data';
  name?: 'stdout' | 'stderr';
  text?: string;
  data?: Record<string, unknown>;
  metadata?: Record<string, unknown>;
  execution_count?: number | null;
  ename?: string;
  evalue?: string;
  traceback?: string[];
  transient?: { display_id?: string };
}

export type CellType = 'code' | 'markdown' | 'raw';

export interface CellData {
  id?: string;
  cell_type: CellType;
  source: string;
  metadata: Record<string, unknown>;
  execution_count?: number | null;
  outputs?: Output[];
  attachments?: Record<string, unknown>;
}

export interface NotebookData {
  nbformat: number;
  nbformat_minor: number;
  metadata: Record<string, unknown>;
  cells: CellData[];
}

import { joinText } from '../../shared/mime.js';

/** A new empty cell of `type`, with a fresh id. */
export function blankCell(type: CellType): CellData {
  const base: CellData = { id: crypto.randomUUID().slice(0, 8), cell_type: type, source: '', metadata: {} };
  if (type === 'code') {
    base.execution_count = null;
    base.outputs = [];
  }
  return base;
}

/** Normalises a notebook read from the server: joins line arrays, fills missing fields. */
export function normaliseNotebook(raw: unknown): NotebookData {
  const nb = (raw ?? {}) as Partial<NotebookData> & { cells?: unknown };
  const cells = Array.isArray(nb.cells) ? nb.cells : [];
  return {
    nbformat: 4,
    nbformat_minor: typeof nb.nbformat_minor === 'number' && nb.nbformat === 4 ? Math.max(nb.nbformat_minor, 5) : 5,
    metadata: (nb.metadata as Record<string, unknown>) ?? {},
    cells: cells.map((c: Partial<CellData> & { source?: unknown; outputs?: unknown }) => {
      const cellType: CellType = c.cell_type === 'markdown' || c.cell_type === 'raw' ? c.cell_type : 'code';
      const cell: CellData = {
        id: typeof c.id === 'string' ? c.id : crypto.randomUUID().slice(0, 8),
        cell_type: cellType,
        source: joinText(c.source),
        metadata: (c.metadata as Record<string, unknown>) ?? {},
      };
      if (cellType === 'code') {
        cell.execution_count = typeof c.execution_count === 'number' ? c.execution_count : null;
        cell.outputs = Array.isArray(c.outputs) ? (c.outputs as Output[]).map(normaliseOutput) : [];
      }
      if (c.attachments) cell.attachments = c.attachments;
      return cell;
    }),
  };
}

export function normaliseOutput(o: Output): Output {
  const out: Output = { ...o };
  if (o.text !== undefined) out.text = joinText(o.text);
  if (o.data) {
    out.data = {};
    for (const [mime, value] of Object.entries(o.data)) {
      out.data[mime] = mime === 'application/json' || mime.endsWith('+json') ? value : joinText(value);
    }
  }
  return out;
}

/**
 * Whether the server vouched for the notebook: it marks each code cell `metadata.trusted` from the
 * signature. A notebook without code cells that show rich output has nothing that could run.
 */
export function notebookTrusted(nb: NotebookData): boolean {
  return nb.cells.every(
    (c) =>
      c.cell_type !== 'code' ||
      c.metadata.trusted === true ||
      !(c.outputs ?? []).some((o) => o.output_type === 'display_data' || o.output_type === 'execute_result'),
  );
}

/** Splits text into nbformat's list-of-lines form (each line keeps its "\n"). */
export function splitLines(text: string): string[] {
  if (text === '') return [];
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

/** The on-disk JSON form of an output (no transient fields, text as line lists). */
export function serialiseOutput(o: Output): Record<string, unknown> {
  const out: Record<string, unknown> = { output_type: o.output_type };
  if (o.output_type === 'stream') {
    out.name = o.name;
    out.text = splitLines(o.text ?? '');
  } else if (o.output_type === 'error') {
    out.ename = o.ename;
    out.evalue = o.evalue;
    out.traceback = o.traceback ?? [];
  } else {
    const data: Record<string, unknown> = {};
    for (const [mime, value] of Object.entries(o.data ?? {})) {
      data[mime] = typeof value === 'string' && !mime.startsWith('image/') ? splitLines(value) : value;
    }
    out.data = data;
    out.metadata = o.metadata ?? {};
    if (o.output_type === 'execute_result') out.execution_count = o.execution_count ?? null;
  }
  return out;
}
