import { randomBytes } from 'node:crypto';
import { isObject } from '../../util/is-object.js';

/** v3 -> v4 conversion, ported from nbformat's `v4/convert.py` so upgraded notebooks match Jupyter's. */
type Json = Record<string, unknown>;

const MIME_ALIASES: Record<string, string> = {
  text: 'text/plain',
  html: 'text/html',
  svg: 'image/svg+xml',
  png: 'image/png',
  jpeg: 'image/jpeg',
  latex: 'text/latex',
  json: 'application/json',
  javascript: 'application/javascript',
};

export function randomCellId(): string {
  return randomBytes(4).toString('hex');
}

export function upgradeV3ToV4(nb: Json): Json {
  const metadata = isObject(nb.metadata) ? { ...nb.metadata } : {};
  metadata.orig_nbformat = typeof nb.orig_nbformat === 'number' ? nb.orig_nbformat : 3;
  metadata.orig_nbformat_minor = typeof nb.orig_nbformat_minor === 'number' ? nb.orig_nbformat_minor : 0;
  delete metadata.name;
  delete metadata.signature;
  const cells: Json[] = [];
  for (const ws of Array.isArray(nb.worksheets) ? nb.worksheets : []) {
    for (const cell of isObject(ws) && Array.isArray(ws.cells) ? ws.cells : []) {
      if (isObject(cell)) cells.push(upgradeCell({ ...cell }));
    }
  }
  return { metadata, nbformat: 4, nbformat_minor: 5, cells };
}

function upgradeCell(cell: Json): Json {
  const metadata = isObject(cell.metadata) ? { ...cell.metadata } : {};
  const id = randomCellId();
  if (cell.cell_type === 'code') {
    if ('collapsed' in cell) metadata.collapsed = cell.collapsed;
    const outputs = Array.isArray(cell.outputs)
      ? cell.outputs.filter(isObject).map((o) => upgradeOutput({ ...o }))
      : [];
    return {
      id,
      cell_type: 'code',
      metadata,
      source: cell.input ?? '',
      execution_count: cell.prompt_number ?? null,
      outputs,
    };
  }
  if (cell.cell_type === 'heading') {
    const level = typeof cell.level === 'number' ? cell.level : 1;
    const source =
      typeof cell.source === 'string' ? cell.source : Array.isArray(cell.source) ? cell.source.join('') : '';
    return { id, cell_type: 'markdown', metadata, source: `${'#'.repeat(level)} ${source.split(/\r?\n/).join(' ')}` };
  }
  const cellType = cell.cell_type === 'html' ? 'markdown' : cell.cell_type;
  const { level: _l, ...rest } = cell;
  return { ...rest, id, cell_type: cellType, metadata, source: cell.source ?? '' };
}

function upgradeOutput(output: Json): Json {
  const type = output.output_type;
  if (type === 'pyout' || type === 'display_data') {
    const result: Json = { output_type: type === 'pyout' ? 'execute_result' : 'display_data' };
    if (type === 'pyout') result.execution_count = output.prompt_number ?? null;
    const data: Json = {};
    for (const [key, value] of Object.entries(output)) {
      if (key === 'output_type' || key === 'prompt_number' || key === 'metadata') continue;
      data[MIME_ALIASES[key] ?? key] = value;
    }
    if (typeof data['application/json'] === 'string') {
      try {
        data['application/json'] = JSON.parse(data['application/json']);
      } catch {
        // leave unparsable legacy JSON as text; validation reports it
      }
    }
    const metadata: Json = {};
    for (const [key, value] of Object.entries(isObject(output.metadata) ? output.metadata : {})) {
      metadata[MIME_ALIASES[key] ?? key] = value;
    }
    result.data = data;
    result.metadata = metadata;
    return result;
  }
  if (type === 'pyerr') return { ...output, output_type: 'error' };
  if (type === 'stream') {
    const { stream, ...rest } = output;
    return { ...rest, name: stream ?? 'stdout' };
  }
  return output;
}
