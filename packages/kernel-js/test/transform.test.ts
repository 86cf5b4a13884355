import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { CellSyntaxError, transformCell } from '../src/engine/transform.js';

/** Runs transformed cells one after another in one fresh context, like the kernel does. */
async function runCells(...cells: string[]): Promise<unknown> {
  const context = vm.createContext({});
  let value: unknown;
  for (const cell of cells) {
    const t = transformCell(cell);
    const completion = new vm.Script(t.code).runInContext(context);
    value = t.isAsync ? ((await completion) as { value?: unknown } | undefined)?.value : completion;
    if (!t.hasResult) value = undefined;
  }
  return value;
}

describe('transformCell', () => {
  it('keeps every line where it was, so stack line numbers are the cell lines', () => {
    const cell =
      'const a = 1;\nlet {b, c: [d]} = {b: 2, c: [3]};\nclass K {}\nawait null;\nimport x from "node:os";\na';
    const t = transformCell(cell);
    expect(t.code.split('\n')).toHaveLength(cell.split('\n').length + 1); // + the wrapper's closing line
  });

  it('does not touch keywords inside strings, templates, comments or regular expressions', () => {
    const cell =
      'const s = "let x = 1; const y";\n// const z = 2\nconst t = `class A {}`;\nconst r = /let|const/;\n[s, t, r.source]';
    const t = transformCell(cell);
    expect(t.code).toContain('"let x = 1; const y"');
    expect(t.code).toContain('// const z = 2');
    expect(t.code).toContain('/let|const/');
  });

  it('lets a cell be re-run and later cells see its declarations', async () => {
    expect(
      await runCells(
        'const a = 1; let b = 2; class C { v() { return 3 } } function f() { return 4 }',
        'const a = 10; let b = 20; class C { v() { return 30 } }',
        '[a, b, new C().v(), f()]',
      ),
    ).toEqual([10, 20, 30, 4]);
  });

  it('hoists declarations out of cells with top-level await, destructuring included', async () => {
    expect(
      await runCells(
        'const { p, q: [r = 5, ...rest] } = await Promise.resolve({ p: 1, q: [undefined, 2, 3] });\nfunction g() { return p + r }\nclass D {}',
        '[p, r, rest, g(), typeof D]',
      ),
    ).toEqual([1, 5, [2, 3], 6, 'function']);
  });

  it('only treats await outside functions as top-level', () => {
    expect(transformCell('async function f() { await 1 }').isAsync).toBe(false);
    expect(transformCell('const f = async () => { for await (const x of y) {} }').isAsync).toBe(false);
    expect(transformCell('for await (const x of y) {}').isAsync).toBe(true);
    expect(transformCell('if (a) { await b }').isAsync).toBe(true);
  });

  it('rewrites every static import form to a dynamic import', () => {
    const t = transformCell(
      'import def, { a as b, "str" as c } from "m1";\nimport * as ns from "m2";\nimport "m3";\nimport data from "./d.json" with { type: "json" };',
    );
    expect(t.isAsync).toBe(true);
    expect(t.code).toContain('await import("m1")');
    expect(t.code).toContain(
      'def = __nbserve_import_0.default; b = __nbserve_import_0["a"]; c = __nbserve_import_0["str"];',
    );
    expect(t.code).toContain('ns = __nbserve_import_1;');
    expect(t.code).toContain('await import("m3");');
    expect(t.code).toContain('await import("./d.json", { with: { type: "json" } })');
    expect(t.code.startsWith('var def, b, c, ns, data;')).toBe(true);
  });

  it('keeps the value of the last expression and knows when there is none', async () => {
    expect(transformCell('1 + 1').hasResult).toBe(true);
    expect(transformCell('const x = 1').hasResult).toBe(false);
    expect(transformCell('"just a string"').hasResult).toBe(true);
    expect(await runCells('await null;\n({ k: 1 })')).toEqual({ k: 1 });
    expect(await runCells('let u; u')).toBe(undefined);
  });

  it('unwraps export declarations', async () => {
    expect(await runCells('export const e = 1; export function ef() { return 2 }', '[e, ef()]')).toEqual([1, 2]);
  });

  it('reports syntax errors with line and column, preferring the parse that got further', () => {
    expect(() => transformCell('const ok = 1;\nlet = = 2;')).toThrow(CellSyntaxError);
    try {
      transformCell('const ok = 1;\nlet = = 2;');
    } catch (error) {
      expect(error).toMatchObject({ name: 'SyntaxError', line: 2 });
    }
    // Sloppy-mode code is still a valid cell.
    expect(transformCell('with (Math) { max(1, 2) }').isAsync).toBe(false);
  });
});
