import { isObject } from '../util/is-object.js';

/**
 * nbformat v4 -> v3, ported from nbformat's `v4/convert.py` `downgrade`, for the older routes:
 * old frontends only understand v3 (one worksheet, `input`/`prompt_number`, `pyout`/`pyerr`,
 * short mime keys) and render an empty notebook otherwise. The way back is the contents
 * engine's `upgradeV3ToV4`.
 */
type Json = Record<string, unknown>;

const SHORT_KEYS: Record<string, string> = {
  'text/plain': 'text',
  'text/html': 'html',
  'image/svg+xml': 'svg',
  'image/png': 'png',
  'image/jpeg': 'jpeg',
  'text/latex': 'latex',
  'application/json': 'json',
  'application/javascript': 'javascript',
};

/** `name` is the notebook's stem, which 0.13/1.x clients read from `metadata.name`. */
export function downgradeV4ToV3(nb: Json, name: string): Json {
  const metadata: Json = isObject(nb.metadata) ? { ...nb.metadata } : {};
  delete metadata.orig_nbformat;
  delete metadata.orig_nbformat_minor;
  metadata.name = name;
  const language = languageOf(metadata);
  const cells = (Array.isArray(nb.cells) ? nb.cells : []).filter(isObject).map((cell) => downgradeCell(cell, language));
  return { metadata, nbformat: 3, nbformat_minor: 0, worksheets: [{ cells, metadata: {} }] };
}

function languageOf(metadata: Json): string {
  const info = isObject(metadata.language_info) ? metadata.language_info : {};
  const spec = isObject(metadata.kernelspec) ? metadata.kernelspec : {};
  const name = info.name ?? spec.language;
  return typeof name === 'string' && name !== '' ? name : 'python';
}

function text(value: unknown): string {
  if (typeof value === 'string') return value;
  return Array.isArray(value) ? value.filter((s) => typeof s === 'string').join('') : '';
}

function downgradeCell(cell: Json, language: string): Json {
  const metadata: Json = isObject(cell.metadata) ? { ...cell.metadata } : {};
  if (cell.cell_type === 'code') {
    const collapsed = metadata.collapsed === true;
    delete metadata.collapsed;
    const out: Json = {
      cell_type: 'code',
      collapsed,
      input: text(cell.source),
      language,
      metadata,
      outputs: (Array.isArray(cell.outputs) ? cell.outputs : []).filter(isObject).map(downgradeOutput),
    };
    if (typeof cell.execution_count === 'number') out.prompt_number = cell.execution_count;
    return out;
  }
  const source = text(cell.source);
  if (cell.cell_type === 'markdown' && !source.includes('\n') && source.startsWith('#')) {
    const match = /^(#+)\s*(.*)$/.exec(source);
    if (match?.[1] && match[1].length <= 6) {
      return { cell_type: 'heading', level: match[1].length, metadata, source: match[2] ?? '' };
    }
  }
  return { cell_type: cell.cell_type === 'raw' ? 'raw' : 'markdown', metadata, source };
}

function downgradeOutput(output: Json): Json {
  const type = output.output_type;
  if (type === 'execute_result' || type === 'display_data') {
    const out: Json = { output_type: type === 'execute_result' ? 'pyout' : 'display_data' };
    if (type === 'execute_result' && typeof output.execution_count === 'number')
      out.prompt_number = output.execution_count;
    const data = isObject(output.data) ? output.data : {};
    for (const [mime, value] of Object.entries(data)) {
      const key = SHORT_KEYS[mime] ?? mime;
      out[key] =
        mime === 'application/json' && typeof value !== 'string' ? JSON.stringify(value) : text(value) || value;
    }
    const metadata: Json = {};
    for (const [mime, value] of Object.entries(isObject(output.metadata) ? output.metadata : {})) {
      metadata[SHORT_KEYS[mime] ?? mime] = value;
    }
    out.metadata = metadata;
    return out;
  }
  if (type === 'error') {
    return {
      output_type: 'pyerr',
      ename: output.ename ?? '',
      evalue: output.evalue ?? '',
      traceback: output.traceback ?? [],
    };
  }
  if (type === 'stream') return { output_type: 'stream', stream: output.name ?? 'stdout', text: text(output.text) };
  return { ...output };
}
