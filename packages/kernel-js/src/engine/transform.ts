import { parse } from 'acorn';

/**
 * Rewrites one notebook cell into a script for a persistent global scope.
 *
 * Top-level `let`/`const`/`class` become global `var`s so a re-run cell may declare them again and
 * later cells see them; static `import`s become dynamic imports. A cell with top-level `await`
 * (or an import) runs inside an async wrapper whose declarations are hoisted to global `var`s.
 * Every edit stays on the line it replaces, so V8's line numbers are the cell's own.
 */
export interface TransformedCell {
  code: string;
  /** The script evaluates to a Promise of `{ value }` instead of the completion value. */
  isAsync: boolean;
  /** The last statement is an expression whose value becomes the execute_result. */
  hasResult: boolean;
  /** Characters inserted before the user's code on line 1 (to correct column numbers). */
  firstLineShift: number;
}

export class CellSyntaxError extends Error {
  constructor(
    message: string,
    readonly line: number,
    readonly column: number,
  ) {
    super(message);
    this.name = 'SyntaxError';
  }
}

interface Node {
  type: string;
  start: number;
  end: number;
  [key: string]: unknown;
}

interface Edit {
  at: number;
  end: number;
  text: string;
}

const FUNCTION_TYPES = new Set(['FunctionDeclaration', 'FunctionExpression', 'ArrowFunctionExpression']);

function parseCell(source: string): Node {
  const base = { ecmaVersion: 'latest', allowAwaitOutsideFunction: true, allowHashBang: true } as const;
  try {
    return parse(source, { ...base, sourceType: 'module' }) as unknown as Node;
  } catch (moduleError) {
    // Sloppy-mode code (e.g. `with`, octal literals) is valid in a cell: retry as a script and
    // report whichever parse got further.
    try {
      return parse(source, { ...base, sourceType: 'script' }) as unknown as Node;
    } catch (scriptError) {
      const a = moduleError as { pos?: number; loc?: { line: number; column: number }; message: string };
      const b = scriptError as typeof a;
      const best = (b.pos ?? 0) > (a.pos ?? 0) ? b : a;
      const message = best.message.replace(/ \(\d+:\d+\)$/, '');
      throw new CellSyntaxError(message, best.loc?.line ?? 1, best.loc?.column ?? 0);
    }
  }
}

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && typeof (value as Node).type === 'string';
}

function children(node: Node): Node[] {
  const out: Node[] = [];
  for (const key of Object.keys(node)) {
    if (key === 'loc') continue;
    const value = node[key];
    if (Array.isArray(value)) {
      for (const item of value) if (isNode(item)) out.push(item);
    } else if (isNode(value)) out.push(value);
  }
  return out;
}

/** True when `await` (or `for await`) occurs outside every function of the cell. */
function hasTopLevelAwait(node: Node): boolean {
  if (node.type === 'AwaitExpression') return true;
  if (node.type === 'ForOfStatement' && node.await === true) return true;
  if (FUNCTION_TYPES.has(node.type)) return false;
  return children(node).some(hasTopLevelAwait);
}

/** Binding names of a declaration pattern (`{a, b: [c, ...d]}` -> a, c, d). */
function patternNames(pattern: Node, out: string[]): void {
  switch (pattern.type) {
    case 'Identifier':
      out.push(pattern.name as string);
      break;
    case 'ObjectPattern':
      for (const prop of pattern.properties as Node[]) {
        patternNames(prop.type === 'RestElement' ? (prop.argument as Node) : (prop.value as Node), out);
      }
      break;
    case 'ArrayPattern':
      for (const element of pattern.elements as (Node | null)[]) if (element) patternNames(element, out);
      break;
    case 'RestElement':
      patternNames(pattern.argument as Node, out);
      break;
    case 'AssignmentPattern':
      patternNames(pattern.left as Node, out);
      break;
  }
}

function applyEdits(source: string, edits: Edit[]): string {
  const sorted = [...edits].sort((a, b) => a.at - b.at || a.end - b.end);
  let out = '';
  let cursor = 0;
  for (const edit of sorted) {
    out += source.slice(cursor, edit.at) + edit.text;
    cursor = edit.end;
  }
  return out + source.slice(cursor);
}

/** Unwraps `export <declaration>`; other export forms are dropped (a cell has no importers). */
function unexport(statement: Node, edits: Edit[]): Node | null {
  if (statement.type === 'ExportNamedDeclaration' || statement.type === 'ExportDefaultDeclaration') {
    const declaration = statement.declaration as Node | null;
    if (declaration && /Declaration$/.test(declaration.type) && (declaration.id || declaration.declarations)) {
      edits.push({ at: statement.start, end: declaration.start, text: '' });
      return declaration;
    }
    if (declaration) {
      // `export default <expression>` evaluates the expression.
      edits.push({ at: statement.start, end: declaration.start, text: '' });
      return null;
    }
    edits.push({ at: statement.start, end: statement.end, text: ';' });
    return null;
  }
  if (statement.type === 'ExportAllDeclaration') {
    edits.push({ at: statement.start, end: statement.end, text: ';' });
    return null;
  }
  return statement;
}

function importReplacement(source: string, node: Node, index: number): { text: string; names: string[] } {
  const spec = source.slice((node.source as Node).start, (node.source as Node).end);
  const attributes = (node.attributes as Node[] | undefined) ?? [];
  const options =
    attributes.length > 0
      ? `, { with: { ${attributes.map((a) => `${source.slice((a.key as Node).start, (a.key as Node).end)}: ${source.slice((a.value as Node).start, (a.value as Node).end)}`).join(', ')} } }`
      : '';
  const specifiers = node.specifiers as Node[];
  const newlines = source.slice(node.start, node.end).split('\n').length - 1;
  if (specifiers.length === 0) return { text: `await import(${spec}${options});${'\n'.repeat(newlines)}`, names: [] };
  const ns = `__nbserve_import_${index}`;
  const names: string[] = [];
  const assignments: string[] = [];
  for (const s of specifiers) {
    const local = (s.local as Node).name as string;
    names.push(local);
    if (s.type === 'ImportDefaultSpecifier') assignments.push(`${local} = ${ns}.default;`);
    else if (s.type === 'ImportNamespaceSpecifier') assignments.push(`${local} = ${ns};`);
    else {
      const imported = s.imported as Node;
      const key = imported.type === 'Literal' ? JSON.stringify(imported.value) : JSON.stringify(imported.name);
      assignments.push(`${local} = ${ns}[${key}];`);
    }
  }
  return {
    text: `const ${ns} = await import(${spec}${options}); ${assignments.join(' ')}${'\n'.repeat(newlines)}`,
    names,
  };
}

export function transformCell(source: string): TransformedCell {
  const program = parseCell(source);
  const body = program.body as Node[];
  const needsAsync = body.some((s) => s.type === 'ImportDeclaration') || hasTopLevelAwait(program);
  const edits: Edit[] = [];
  const hoisted = new Set<string>();
  const functionNames: string[] = [];
  let importIndex = 0;
  let last: Node | undefined;

  for (const original of body) {
    last = original;
    if (original.type === 'ImportDeclaration') {
      const { text, names } = importReplacement(source, original, importIndex++);
      for (const name of names) hoisted.add(name);
      edits.push({ at: original.start, end: original.end, text });
      continue;
    }
    const statement = unexport(original, edits);
    if (!statement) continue;
    if (statement.type === 'VariableDeclaration') {
      const kind = statement.kind as string;
      const declarations = statement.declarations as Node[];
      if (!needsAsync) {
        // `const` -> `var  ` keeps every column in place.
        if (kind !== 'var')
          edits.push({ at: statement.start, end: statement.start + kind.length, text: 'var'.padEnd(kind.length) });
        // A re-run `let x;` starts from undefined again, as the declaration would.
        if (kind === 'let')
          for (const d of declarations) if (!d.init) edits.push({ at: d.end, end: d.end, text: ' = undefined' });
        continue;
      }
      edits.push({ at: statement.start, end: (declarations[0] as Node).start, text: 'void (' });
      for (const d of declarations) {
        const names: string[] = [];
        patternNames(d.id as Node, names);
        for (const n of names) hoisted.add(n);
        if (!d.init) edits.push({ at: d.end, end: d.end, text: ' = undefined' });
      }
      const lastDeclarator = declarations[declarations.length - 1] as Node;
      edits.push({ at: lastDeclarator.end, end: lastDeclarator.end, text: ')' });
      if (source[statement.end - 1] !== ';') edits.push({ at: statement.end, end: statement.end, text: ';' });
    } else if (statement.type === 'ClassDeclaration') {
      const name = (statement.id as Node).name as string;
      edits.push({ at: statement.start, end: statement.start, text: `${needsAsync ? '' : 'var '}${name} = ` });
      edits.push({ at: statement.end, end: statement.end, text: ';' });
      hoisted.add(name);
    } else if (statement.type === 'FunctionDeclaration' && needsAsync) {
      const name = (statement.id as Node).name as string;
      functionNames.push(name);
      hoisted.add(name);
    }
  }

  const hasResult = last?.type === 'ExpressionStatement';
  if (!needsAsync) return { code: applyEdits(source, edits), isAsync: false, hasResult, firstLineShift: 0 };

  if (hasResult && last) {
    // The statement's range, not the expression's: acorn leaves parentheses out of the latter.
    const end = source[last.end - 1] === ';' ? last.end - 1 : last.end;
    edits.push({ at: last.start, end: last.start, text: 'return { value: (' });
    edits.push({ at: end, end, text: ') }' });
  }
  const declare = hoisted.size > 0 ? `var ${[...hoisted].join(', ')}; ` : '';
  // Function declarations are hoisted inside the wrapper; publish them before any code runs.
  const publish = functionNames.map((n) => `globalThis[${JSON.stringify(n)}] = ${n};`).join(' ');
  const prefix = `${declare}(async () => {${publish} `;
  return {
    code: `${prefix}${applyEdits(source, edits)}\n})()`,
    isAsync: true,
    hasResult,
    firstLineShift: prefix.length,
  };
}
