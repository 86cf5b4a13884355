/**
 * Notebook builders for tests, after nbformat's `new_notebook` / `new_code_cell`
 * (https://nbformat.readthedocs.io/en/latest/format_description.html). Each call returns a fresh
 * object, so a test may change what it got.
 */

export type V4Notebook = {
  cells: Record<string, unknown>[];
  metadata: Record<string, unknown>;
  nbformat: 4;
  nbformat_minor: number;
};

/** An nbformat 4.5 notebook with these cells (`[]` for the one Jupyter creates as Untitled). */
export function v4Notebook(cells: Record<string, unknown>[] = [], metadata: Record<string, unknown> = {}): V4Notebook {
  return { cells, metadata, nbformat: 4, nbformat_minor: 5 };
}

/** A v4 code cell, not yet run unless `outputs` / `execution_count` say otherwise. */
export function v4CodeCell(
  source: string,
  { id = 'c1', outputs = [], execution_count = null, metadata = {} }: V4CellOptions = {},
): Record<string, unknown> {
  return { cell_type: 'code', id, metadata, source, outputs, execution_count };
}

/** A v4 markdown cell. */
export function v4MarkdownCell(source: string, { id = 'm1', metadata = {} }: V4CellOptions = {}) {
  return { cell_type: 'markdown', id, metadata, source };
}

interface V4CellOptions {
  id?: string;
  outputs?: unknown[];
  execution_count?: number | null;
  metadata?: Record<string, unknown>;
}

export type V3Cell = Record<string, unknown> & { cell_type: string; metadata: Record<string, unknown> };

export type V3Notebook = {
  metadata: { name: string } & Record<string, unknown>;
  nbformat: 3;
  nbformat_minor: 0;
  worksheets: { metadata: Record<string, unknown>; cells: V3Cell[] }[];
};

/** An nbformat 3.0 notebook (one worksheet), as IPython 1–3 and Notebook's `/notebooks` API wrote it. */
export function v3Notebook(name: string, cells: V3Cell[]): V3Notebook {
  return { metadata: { name }, nbformat: 3, nbformat_minor: 0, worksheets: [{ metadata: {}, cells }] };
}

/** A v3 code cell: `input` and `prompt_number` where v4 has `source` and `execution_count`. */
export function v3CodeCell(input: string, prompt_number: number, outputs: Record<string, unknown>[] = []): V3Cell {
  return { cell_type: 'code', collapsed: false, input, language: 'python', metadata: {}, prompt_number, outputs };
}

/** A v3 `pyout` output (v4's `execute_result`) showing `text`. */
export function v3Pyout(prompt_number: number, text: string, extra: Record<string, unknown> = {}) {
  return { output_type: 'pyout', prompt_number, text, ...extra, metadata: {} };
}

/** Notebook 6.4's `test_get_nb_invalid`: no `nbformat_minor`, a cell type nobody knows. Jupyter still reads it. */
export function invalidNotebook(): Record<string, unknown> {
  return { nbformat: 4, metadata: {}, cells: [{ cell_type: 'wrong', metadata: {} }] };
}
