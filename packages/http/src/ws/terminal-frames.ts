import * as v from 'valibot';

/** The largest terminal size accepted from a client (xterm.js on a very large screen stays far below). */
export const MAX_TERMINAL_ROWS = 1000;
export const MAX_TERMINAL_COLS = 2000;

const Dimension = (max: number) => v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(max));

/** terminado's client messages: `["stdin", text]` and `["set_size", rows, cols, …]` (JupyterLab adds pixel sizes). */
const ClientFrame = v.variant('0', [
  v.looseObject({ 0: v.literal('stdin'), 1: v.string() }),
  v.looseObject({ 0: v.literal('set_size'), 1: Dimension(MAX_TERMINAL_ROWS), 2: Dimension(MAX_TERMINAL_COLS) }),
]);

export type ClientMessage =
  | { kind: 'stdin'; data: string }
  | { kind: 'set_size'; rows: number; cols: number }
  | { kind: 'bad'; why: string };

/**
 * Parses one client frame. Anything else (binary frames, text that is not a JSON array, unknown
 * kinds, sizes out of range) is `bad`: dropped without reaching the terminal, as terminado ignores
 * kinds it does not know.
 */
export function parseClientFrame(data: Buffer | string, isBinary: boolean): ClientMessage {
  if (isBinary) return { kind: 'bad', why: 'a binary frame' };
  let parsed: unknown;
  try {
    parsed = JSON.parse(typeof data === 'string' ? data : data.toString('utf8'));
  } catch {
    return { kind: 'bad', why: 'not JSON' };
  }
  if (!Array.isArray(parsed)) return { kind: 'bad', why: 'not a JSON array' };
  const result = v.safeParse(ClientFrame, { ...parsed });
  if (!result.success) {
    const kind =
      typeof parsed[0] === 'string'
        ? `a ${JSON.stringify(parsed[0].slice(0, 40))} message`
        : 'a message without a kind';
    return { kind: 'bad', why: `${kind} that is not understood` };
  }
  const frame = result.output;
  if (frame[0] === 'stdin') return { kind: 'stdin', data: frame[1] };
  return { kind: 'set_size', rows: frame[1], cols: frame[2] };
}
