/**
 * nbformat stores multi-line text as arrays of lines on disk (friendly to line-based VCS) and
 * serves it as single strings: `splitLines` before writing, `rejoinLines` after reading.
 */
type Json = Record<string, unknown>;

const NON_TEXT_SPLIT_MIMES = new Set(['application/javascript', 'image/svg+xml']);
const isJsonMime = (mime: string) =>
  mime === 'application/json' || (mime.startsWith('application/') && mime.endsWith('+json'));

/** Python's `str.splitlines(True)`, restricted to \n, \r\n and \r as nbformat content uses. */
export function splitLinesKeepEnds(text: string): string[] {
  return text.match(/[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$/g) ?? [];
}

function cellsOf(nb: Json): Json[] {
  return Array.isArray(nb.cells) ? (nb.cells.filter((c) => typeof c === 'object' && c !== null) as Json[]) : [];
}

function outputsOf(cell: Json): Json[] {
  return Array.isArray(cell.outputs) ? (cell.outputs.filter((o) => typeof o === 'object' && o !== null) as Json[]) : [];
}

function eachBundle(cell: Json, fn: (bundle: Json) => void): void {
  if (typeof cell.attachments === 'object' && cell.attachments !== null) {
    for (const bundle of Object.values(cell.attachments as Json)) {
      if (typeof bundle === 'object' && bundle !== null) fn(bundle as Json);
    }
  }
}

export function rejoinLines(nb: Json): Json {
  const join = (value: unknown) =>
    Array.isArray(value) && value.every((line) => typeof line === 'string') ? value.join('') : value;
  const rejoinBundle = (bundle: Json) => {
    for (const [key, value] of Object.entries(bundle)) if (!isJsonMime(key)) bundle[key] = join(value);
  };
  for (const cell of cellsOf(nb)) {
    if ('source' in cell) cell.source = join(cell.source);
    eachBundle(cell, rejoinBundle);
    if (cell.cell_type !== 'code') continue;
    for (const output of outputsOf(cell)) {
      if (output.output_type === 'execute_result' || output.output_type === 'display_data') {
        if (typeof output.data === 'object' && output.data !== null) rejoinBundle(output.data as Json);
      } else if ('text' in output) {
        output.text = join(output.text);
      }
    }
  }
  return nb;
}

export function splitLines(nb: Json): Json {
  const splitBundle = (bundle: Json) => {
    for (const [key, value] of Object.entries(bundle)) {
      if (typeof value === 'string' && (key.startsWith('text/') || NON_TEXT_SPLIT_MIMES.has(key))) {
        bundle[key] = splitLinesKeepEnds(value);
      }
    }
  };
  for (const cell of cellsOf(nb)) {
    if (typeof cell.source === 'string') cell.source = splitLinesKeepEnds(cell.source);
    eachBundle(cell, splitBundle);
    if (cell.cell_type !== 'code') continue;
    for (const output of outputsOf(cell)) {
      if (output.output_type === 'execute_result' || output.output_type === 'display_data') {
        if (typeof output.data === 'object' && output.data !== null) splitBundle(output.data as Json);
      } else if (output.output_type === 'stream' && typeof output.text === 'string') {
        output.text = splitLinesKeepEnds(output.text);
      }
    }
  }
  return nb;
}

/** Values that must never be written to a file (nbformat's `strip_transient`). */
export function stripTransient(nb: Json): Json {
  if (typeof nb.metadata === 'object' && nb.metadata !== null) {
    const metadata = nb.metadata as Json;
    delete metadata.orig_nbformat;
    delete metadata.orig_nbformat_minor;
    delete metadata.signature;
  }
  for (const cell of cellsOf(nb)) {
    if (typeof cell.metadata === 'object' && cell.metadata !== null) delete (cell.metadata as Json).trusted;
  }
  return nb;
}
