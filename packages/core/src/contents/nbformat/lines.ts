import { isObject } from '../../util/is-object.js';

/**
 * nbformat stores multi-line text as arrays of lines on disk (friendly to line-based VCS) and
 * serves it as single strings: `splitLines` before writing, `rejoinLines` after reading.
 * All three transforms are pure: they copy only the objects they change (cells, outputs,
 * bundles, metadata) and share everything else, so a 20 MB notebook is never deep-cloned.
 */
type Json = Record<string, unknown>;

const NON_TEXT_SPLIT_MIMES = new Set(['application/javascript', 'image/svg+xml']);
const isJsonMime = (mime: string) =>
  mime === 'application/json' || (mime.startsWith('application/') && mime.endsWith('+json'));

/** Python's `str.splitlines(True)`, restricted to \n, \r\n and \r as nbformat content uses. */
export function splitLinesKeepEnds(text: string): string[] {
  return text.match(/[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$/g) ?? [];
}

const joinLines = (value: unknown) =>
  Array.isArray(value) && value.every((line) => typeof line === 'string') ? value.join('') : value;

function mapCells(nb: Json, fn: (cell: Json) => Json): Json {
  if (!Array.isArray(nb.cells)) return nb;
  return { ...nb, cells: nb.cells.map((cell) => (isObject(cell) ? fn(cell) : cell)) };
}

function mapBundle(bundle: unknown, fn: (key: string, value: unknown) => unknown): unknown {
  if (!isObject(bundle)) return bundle;
  const out: Json = {};
  for (const [key, value] of Object.entries(bundle)) out[key] = fn(key, value);
  return out;
}

/** Applies `bundleFn` to attachments and rich outputs and `textFn` to the other outputs' text. */
function mapCellText(
  cell: Json,
  sourceFn: (v: unknown) => unknown,
  bundleFn: (k: string, v: unknown) => unknown,
  textFn: (o: Json) => unknown,
): Json {
  const out: Json = { ...cell };
  if ('source' in out) out.source = sourceFn(out.source);
  if (isObject(out.attachments)) {
    const attachments: Json = {};
    for (const [name, bundle] of Object.entries(out.attachments)) attachments[name] = mapBundle(bundle, bundleFn);
    out.attachments = attachments;
  }
  if (out.cell_type === 'code' && Array.isArray(out.outputs)) {
    out.outputs = out.outputs.map((output) => {
      if (!isObject(output)) return output;
      if (output.output_type === 'execute_result' || output.output_type === 'display_data') {
        return 'data' in output ? { ...output, data: mapBundle(output.data, bundleFn) } : output;
      }
      return 'text' in output ? { ...output, text: textFn(output) } : output;
    });
  }
  return out;
}

export function rejoinLines(nb: Json): Json {
  return mapCells(nb, (cell) =>
    mapCellText(
      cell,
      joinLines,
      (key, value) => (isJsonMime(key) ? value : joinLines(value)),
      (output) => joinLines(output.text),
    ),
  );
}

export function splitLines(nb: Json): Json {
  const split = (value: unknown) => (typeof value === 'string' ? splitLinesKeepEnds(value) : value);
  return mapCells(nb, (cell) =>
    mapCellText(
      cell,
      split,
      (key, value) => (key.startsWith('text/') || NON_TEXT_SPLIT_MIMES.has(key) ? split(value) : value),
      (output) => (output.output_type === 'stream' ? split(output.text) : output.text),
    ),
  );
}

/** Values that must never be written to a file (nbformat's `strip_transient`). */
export function stripTransient(nb: Json): Json {
  let out = nb;
  if (isObject(nb.metadata)) {
    const { orig_nbformat: _a, orig_nbformat_minor: _b, signature: _c, ...metadata } = nb.metadata;
    out = { ...nb, metadata };
  }
  return mapCells(out, (cell) => {
    if (!isObject(cell.metadata) || !('trusted' in cell.metadata)) return cell;
    const { trusted: _t, ...metadata } = cell.metadata;
    return { ...cell, metadata };
  });
}
