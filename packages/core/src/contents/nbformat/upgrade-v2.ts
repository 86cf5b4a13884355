import { isObject } from '../../util/is-object.js';

/**
 * nbformat v2 -> v3, ported from nbformat's `v2/rwbase.py` (`rejoin_lines`, which every v2 read
 * goes through) and `v3/convert.py` (`upgrade`). `upgradeV3ToV4` takes it from there, as
 * `nbformat.convert` does one major version at a time.
 */
type Json = Record<string, unknown>;

/** Output fields v2 stores as lists of lines. */
const MULTILINE_OUTPUT_KEYS = ['text', 'html', 'svg', 'latex', 'javascript', 'json'];

export function upgradeV2ToV3(nb: Json): Json {
  const worksheets = Array.isArray(nb.worksheets)
    ? nb.worksheets.map((ws: unknown) =>
        isObject(ws) && Array.isArray(ws.cells)
          ? { ...ws, cells: ws.cells.map((cell: unknown) => (isObject(cell) ? upgradeCell(cell) : cell)) }
          : ws,
      )
    : nb.worksheets;
  // v3's `upgrade` records where the notebook came from; the v4 upgrade moves it into metadata.
  return { ...nb, nbformat: 3, nbformat_minor: 0, orig_nbformat: 2, worksheets };
}

function upgradeCell(cell: Json): Json {
  const out: Json = { ...cell, metadata: 'metadata' in cell ? cell.metadata : {} };
  if (cell.cell_type === 'code') {
    if ('input' in out) out.input = joinLines(out.input);
    if (Array.isArray(out.outputs)) {
      out.outputs = out.outputs.map((output: unknown) => {
        if (!isObject(output)) return output;
        const joined: Json = { ...output };
        for (const key of MULTILINE_OUTPUT_KEYS) if (key in joined) joined[key] = joinLines(joined[key]);
        return joined;
      });
    }
  } else {
    for (const key of ['source', 'rendered']) if (key in out) out[key] = joinLines(out[key]);
  }
  return out;
}

/** v2 wrote lines with `splitlines()`, without their line ends: they are joined with `\n`. */
function joinLines(value: unknown): unknown {
  return Array.isArray(value) && value.every((line) => typeof line === 'string') ? value.join('\n') : value;
}
