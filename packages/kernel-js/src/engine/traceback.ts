import type { SourceMap } from 'node:module';
import { types } from 'node:util';
import type { ErrorContent } from './messages.js';
import { plainText } from './render.js';

const RED = '\x1b[0;31m';
const GREEN = '\x1b[0;32m';
const BOLD_RED = '\x1b[1;31m';
const RESET = '\x1b[0m';

/** What the traceback formatter needs to map a script position back to the cell. */
export interface CellSource {
  executionCount: number;
  /** The cell exactly as the user typed it. */
  source: string;
  /** Columns inserted before the user's code on line 1 of the script. */
  firstLineShift: number;
  /** For TypeScript cells: maps the transpiled JavaScript back to the TypeScript source. */
  sourceMap?: SourceMap | undefined;
}

/** The script names of all cells run so far, so frames from earlier cells map too. */
export class CellRegistry {
  readonly #cells = new Map<string, CellSource>();

  add(filename: string, cell: CellSource): void {
    this.#cells.set(filename, cell);
  }

  get(filename: string): CellSource | undefined {
    return this.#cells.get(filename);
  }

  /** 1-based line/column in the user's cell for a 1-based position in its script. */
  locate(cell: CellSource, line: number, column: number): { line: number; column: number } {
    const col = line === 1 ? Math.max(1, column - cell.firstLineShift) : column;
    if (!cell.sourceMap) return { line, column: col };
    const entry = cell.sourceMap.findEntry(line - 1, col - 1) as { originalLine?: number; originalColumn?: number };
    if (entry.originalLine === undefined) return { line, column: col };
    return { line: entry.originalLine + 1, column: (entry.originalColumn ?? 0) + 1 };
  }

  /** Rewrites one V8 stack frame line; returns null for the kernel's own frames. */
  frame(text: string, internal: (file: string) => boolean): string | null {
    const match = /^(\s*at (?:(.*?) \()?)(.+?):(\d+):(\d+)(\)?)$/.exec(text);
    if (!match) return text;
    const [, , fn, file, line, column] = match as unknown as [
      string,
      string,
      string | undefined,
      string,
      string,
      string,
    ];
    const cell = this.#cells.get(file);
    if (cell) {
      const at = this.locate(cell, Number(line), Number(column));
      const where = `${GREEN}Cell In[${cell.executionCount}], line ${at.line}${RESET}`;
      return fn ? `    at ${fn} (${where})` : `    at ${where}`;
    }
    if (internal(file)) return null;
    return text;
  }
}

function safe<T>(read: () => T, fallback: T): T {
  try {
    return read();
  } catch {
    return fallback;
  }
}

/** The source line the error points at, with a marker, as IPython shows it. */
function excerpt(cell: CellSource, line: number): string[] {
  const lines = cell.source.split('\n');
  const text = lines[line - 1];
  if (text === undefined) return [];
  const out: string[] = [`${GREEN}Cell In[${cell.executionCount}], line ${line}${RESET}`];
  for (let n = Math.max(1, line - 2); n <= Math.min(lines.length, line + 1); n++) {
    const arrow = n === line ? `${GREEN}--->${RESET} ` : '     ';
    out.push(`${arrow}${String(n).padStart(3)} ${lines[n - 1]}`);
  }
  return out;
}

/** Turns any thrown value into Jupyter's `error` content with frames in cell coordinates. */
export function formatError(error: unknown, registry: CellRegistry, internal: (file: string) => boolean): ErrorContent {
  if (!types.isNativeError(error) && !(error instanceof Error)) {
    // Non-Error throws (strings, Symbols, BigInts, plain objects) still get a readable report.
    const evalue = plainText(error);
    return { ename: 'Uncaught', evalue, traceback: [`${BOLD_RED}Uncaught${RESET} ${evalue}`] };
  }
  const ename = safe(() => String(error.name || error.constructor?.name || 'Error'), 'Error');
  const evalue = safe(() => String(error.message ?? ''), '');
  const stack = safe(() => String(error.stack ?? ''), '');
  const frames: string[] = [];
  let first: { cell: CellSource; line: number } | undefined;
  for (const text of stack.split('\n')) {
    if (!/^\s*at /.test(text)) continue;
    const rewritten = registry.frame(text, internal);
    if (rewritten === null) continue;
    frames.push(rewritten);
    if (!first) {
      const match = /\((.+?):(\d+):(\d+)\)$|at (.+?):(\d+):(\d+)$/.exec(text);
      const file = match?.[1] ?? match?.[4];
      const cell = file ? registry.get(file) : undefined;
      if (cell && match) {
        const line = Number(match[2] ?? match[5]);
        const column = Number(match[3] ?? match[6]);
        first = { cell, line: registry.locate(cell, line, column).line };
      }
    }
  }
  const context = first ? excerpt(first.cell, first.line) : [];
  return {
    ename,
    evalue,
    traceback: [`${RED}${ename}${RESET}: ${evalue}`, ...frames, ...(context.length ? ['', ...context] : [])],
  };
}

/** A syntax error at a known cell position, before anything ran. */
export function formatSyntaxError(cell: CellSource, message: string, line: number, column: number): ErrorContent {
  const text = cell.source.split('\n')[line - 1] ?? '';
  return {
    ename: 'SyntaxError',
    evalue: message,
    traceback: [
      `${GREEN}Cell In[${cell.executionCount}], line ${line}${RESET}`,
      `    ${text}`,
      `    ${' '.repeat(Math.max(0, column))}${BOLD_RED}^${RESET}`,
      `${BOLD_RED}SyntaxError${RESET}: ${message}`,
    ],
  };
}
