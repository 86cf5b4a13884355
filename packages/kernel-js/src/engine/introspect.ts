import { plainText } from './render.js';

/**
 * `complete_request` and `inspect_request` against the live global scope. Only plain property
 * reads are performed (no calls), so asking for completions never runs user functions.
 */

const KEYWORDS = [
  'async', 'await', 'break', 'case', 'catch', 'class', 'const', 'continue', 'debugger', 'default', 'delete',
  'do', 'else', 'export', 'extends', 'false', 'finally', 'for', 'function', 'if', 'import', 'in', 'instanceof',
  'let', 'new', 'null', 'of', 'return', 'static', 'super', 'switch', 'this', 'throw', 'true', 'try', 'typeof',
  'undefined', 'var', 'void', 'while', 'with', 'yield',
]; // biome-ignore format: a word list

const MAX_MATCHES = 1000;
const IDENT = String.raw`[\p{ID_Start}$_][\p{ID_Continue}$\u200c\u200d]*`;
const PARTIAL = /[\p{ID_Continue}$\u200c\u200d]*$/u;
/** An identifier chain `a.b?.c` ending the text, not itself preceded by a dot or name. */
const CHAIN_END = new RegExp(String.raw`(?<![\p{ID_Continue}$.\u200c\u200d])(${IDENT}(?:\s*\??\.\s*${IDENT})*)$`, 'u');
/** `a.b?.c` (possibly ending in a dot and a partial name) directly before the cursor. */
const CHAIN_BEFORE = new RegExp(
  String.raw`(?<!\p{ID_Continue}|[$.\u200c\u200d])((?:${IDENT}\s*\??\.\s*)*)(${IDENT})?$`,
  'u',
);
const IDENT_AFTER = /^[\p{ID_Continue}$\u200c\u200d]*/u;

/** Jupyter cursor positions count Unicode code points; JavaScript strings count UTF-16 units. */
function toUnitIndex(code: string, cursorPos: number): number {
  let units = 0;
  let points = 0;
  for (const ch of code) {
    if (points >= cursorPos) break;
    units += ch.length;
    points++;
  }
  return units;
}

function toPointIndex(code: string, unitIndex: number): number {
  return [...code.slice(0, unitIndex)].length;
}

function lookup(path: string[]): { found: boolean; value: unknown } {
  let value: unknown = globalThis;
  for (const name of path) {
    if (value === null || value === undefined) return { found: false, value: undefined };
    try {
      const holder = Object(value) as Record<string, unknown>;
      if (!(name in holder)) return { found: false, value: undefined };
      value = holder[name];
    } catch {
      return { found: false, value: undefined };
    }
  }
  return { found: true, value };
}

function propertyNames(value: unknown): string[] {
  const names = new Set<string>();
  let object: unknown = value === null || value === undefined ? null : Object(value);
  for (let depth = 0; object && depth < 20; depth++) {
    try {
      for (const name of Object.getOwnPropertyNames(object)) names.add(name);
      object = Object.getPrototypeOf(object);
    } catch {
      break;
    }
  }
  return [...names];
}

function kindOf(value: unknown, name: string): string {
  if (typeof value === 'function')
    return /^class\b/.test(safeSource(value)) || /^[A-Z]/.test(name) ? 'class' : 'function';
  if (value !== null && typeof value === 'object') return 'instance';
  return typeof value === 'undefined' ? 'statement' : 'instance';
}

function safeSource(fn: unknown): string {
  try {
    return Function.prototype.toString.call(fn);
  } catch {
    return '';
  }
}

/** Where completion applies: the partial name before the cursor and what it is a property of. */
function completionTarget(before: string): { partial: string; owner: { found: boolean; value: unknown } | null } {
  const partial = PARTIAL.exec(before)?.[0] ?? '';
  const head = before.slice(0, before.length - partial.length).trimEnd();
  if (!head.endsWith('.')) return { partial, owner: null };
  const receiver = head.slice(0, head.endsWith('?.') ? -2 : -1).trimEnd();
  const chain = CHAIN_END.exec(receiver);
  if (chain?.[1]) return { partial, owner: lookup(chain[1].split(/\??\./).map((p) => p.trim())) };
  // Literal receivers: `"text".`, `[1, 2].`, `42 .`, `/re/.`
  const last = receiver.at(-1) ?? '';
  if (`'"\``.includes(last)) return { partial, owner: { found: true, value: '' } };
  if (last === ']') return { partial, owner: { found: true, value: [] } };
  if (/[0-9]/.test(last)) return { partial, owner: { found: true, value: 0 } };
  return { partial, owner: { found: false, value: undefined } };
}

export function complete(code: string, cursorPos: number): Record<string, unknown> {
  const cursor = toUnitIndex(code, cursorPos);
  const { partial, owner: target } = completionTarget(code.slice(0, cursor));
  const isGlobal = target === null;
  const owner: unknown = isGlobal ? globalThis : target.value;
  const candidates = isGlobal
    ? [...propertyNames(globalThis), ...KEYWORDS]
    : target.found
      ? propertyNames(target.value)
      : [];
  const matches = [...new Set(candidates)]
    .filter((name) => name.startsWith(partial) && /^[\p{ID_Start}$_][\p{ID_Continue}$]*$/u.test(name))
    .sort((a, b) => Number(a.startsWith('_')) - Number(b.startsWith('_')) || a.localeCompare(b))
    .slice(0, MAX_MATCHES);
  const start = cursor - partial.length;
  const cursorStart = toPointIndex(code, start);
  const cursorEnd = toPointIndex(code, cursor);
  const types = matches.map((text) => {
    let type = 'instance';
    if (isGlobal && KEYWORDS.includes(text) && !(text in globalThis)) type = 'keyword';
    else {
      try {
        type = kindOf((Object(owner) as Record<string, unknown>)[text], text);
      } catch {
        type = 'instance';
      }
    }
    return { start: cursorStart, end: cursorEnd, text, type };
  });
  return {
    status: 'ok',
    matches,
    cursor_start: cursorStart,
    cursor_end: cursorEnd,
    metadata: { _jupyter_types_experimental: types },
  };
}

/** The first line of a function's source: its signature. */
function signature(fn: unknown): string {
  const source = safeSource(fn);
  const head = source.split('\n')[0] ?? '';
  return head.replace(/\s*\{\s*$/, '').replace(/\s*=>.*$/, (m) => (m.includes('{') ? ' =>' : m));
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'function') return /^class\b/.test(safeSource(value)) ? 'class' : 'function';
  if (typeof value !== 'object') return typeof value;
  try {
    const ctor = (value as { constructor?: { name?: unknown } }).constructor?.name;
    return typeof ctor === 'string' && ctor ? ctor : 'Object';
  } catch {
    return 'Object';
  }
}

export function inspectAt(code: string, cursorPos: number, detailLevel: number): Record<string, unknown> {
  const cursor = toUnitIndex(code, cursorPos);
  const rest = IDENT_AFTER.exec(code.slice(cursor))?.[0] ?? '';
  let end = cursor + rest.length;
  let match = CHAIN_BEFORE.exec(code.slice(0, end));
  // With the cursor just after `name(`, inspect `name`, the function being called.
  if (!match?.[2] && code[cursor - 1] === '(') {
    end = cursor - 1;
    match = CHAIN_BEFORE.exec(code.slice(0, end));
  }
  const expression = `${match?.[1] ?? ''}${match?.[2] ?? ''}`.replace(/\s+/g, '');
  const path = expression.split(/\??\./).filter(Boolean);
  const target = path.length > 0 ? lookup(path) : { found: false, value: undefined };
  if (!target.found) return { status: 'ok', found: false, data: {}, metadata: {} };
  const value = target.value;
  const lines = [`${expression}: ${typeName(value)}`];
  if (typeof value === 'function') {
    lines.push(signature(value));
    if (detailLevel > 0) lines.push('', safeSource(value));
  } else {
    const shown = plainText(value);
    lines.push(detailLevel > 0 || shown.length < 2000 ? shown : `${shown.slice(0, 2000)}…`);
  }
  return { status: 'ok', found: true, data: { 'text/plain': lines.join('\n') }, metadata: {} };
}
