// needs: kernel
import { describe, expect, it } from 'vitest';
import { random } from '../../../testing/random.js';
import {
  JsonTooDeepError,
  MAX_JSON_DEPTH,
  parseJson,
  parseUntrustedJson,
} from '../src/contents/nbformat/parse-json.js';

/** Same outcome as JSON.parse: the same value (key order included) or a SyntaxError from both. */
function expectSameParse(text: string): void {
  let expected: { value: unknown } | { error: unknown };
  try {
    expected = { value: JSON.parse(text) };
  } catch (error) {
    expected = { error };
  }
  if ('error' in expected) {
    expect(() => parseJson(text)).toThrow(expected.error as SyntaxError); // the same message
    return;
  }
  const ours = parseJson(text);
  expect(ours).toStrictEqual(expected.value);
  expect(JSON.stringify(ours)).toBe(JSON.stringify(expected.value));
}

const base64 = (n: number, fill = 0xa7) =>
  Buffer.alloc(Math.ceil((n * 3) / 4), fill)
    .toString('base64')
    .slice(0, n);

function imageNotebook(cells: number, imageChars: number): Record<string, unknown> {
  return {
    cells: Array.from({ length: cells }, (_, i) => ({
      cell_type: 'code',
      id: `c${i}`,
      metadata: { trusted: false, tags: ['a'] },
      source: `plot(data[${i}])\n# "quoted" \\ back`,
      execution_count: i,
      outputs: [
        {
          output_type: 'display_data',
          metadata: {},
          data: { 'image/png': base64(imageChars, i), 'text/plain': '<Figure size 640x480 with 1 Axes>' },
        },
      ],
    })),
    metadata: { kernelspec: { name: 'python3', display_name: 'Python 3' } },
    nbformat: 4,
    nbformat_minor: 5,
  };
}

describe('parseJson: JSON.parse, faster for long plain strings', () => {
  it('parses a notebook with image outputs exactly as JSON.parse does (compact and indented)', () => {
    const nb = imageNotebook(6, 40_000);
    expectSameParse(JSON.stringify({ type: 'notebook', format: 'json', content: nb }));
    expectSameParse(JSON.stringify(nb, null, 1));
    expectSameParse(`  \n${JSON.stringify([nb, nb])}\n\t `);
  });

  it('long literals that are keys, have escapes or unicode, or stand alone', () => {
    const long = base64(70_000);
    expectSameParse(JSON.stringify({ [long]: 1, b: long }));
    expectSameParse(`{"${long}"  \n\t :  "${long}", "x": ["${long}"]}`);
    expectSameParse(JSON.stringify([`${long}\n`, `"${long}"`, `\\${long}`, `${long}\u0001`, `${long}é日😀`]));
    expectSameParse(JSON.stringify(`${long}${long}`));
    expectSameParse(`["${long}\\u0041${long}", "${long}\\"", "${long}\\\\", "${long}"]`);
    expectSameParse(`["${long}\\\\\\"${long}", "${long}\\\\\\\\"]`); // odd and even runs of backslashes
    expectSameParse(`["\ud800${long}\udc00", "${'é'.repeat(70_000)}"]`);
  });

  it('a "__proto__" key keeps its long value as an own property', () => {
    const long = base64(70_000);
    const text = `{"__proto__": "${long}", "a": {"__proto__": ["${long}"]}, "z": "${long}"}`;
    expectSameParse(text);
    const value = parseJson(text) as Record<string, unknown>;
    expect(Object.getOwnPropertyDescriptor(value, '__proto__')?.value).toBe(long);
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
  });

  it('rejects what JSON.parse rejects: raw control characters, unterminated strings, broken structure', () => {
    const long = base64(70_000);
    for (const text of [
      `["${long}\n${long}"]`,
      `["${long}\u0000"]`,
      `["${long}`,
      `["${long}", "${long}`,
      `["${long}" "${long}"]`,
      `{"a": "${long}",}`,
      `{"${long}" "b"}`,
      `["${long}"]]`,
      `"${long}" 1`,
      `["${long}\\"]`,
      `["${long}\\x"]`,
    ]) {
      expectSameParse(text);
    }
  });

  it('agrees with JSON.parse on randomly damaged notebooks', () => {
    const next = random(7);
    const text = JSON.stringify({ content: imageNotebook(4, 20_000) });
    const damage = ['"', '\\', '\n', '\u0001', '{', '}', '[', ']', ',', ':', ' ', 'x', '1', '\\"', '""'];
    for (let i = 0; i < 300; i++) {
      let damaged = text;
      for (let n = 1 + Math.floor(next() * 3); n > 0; n--) {
        const at = Math.floor(next() * damaged.length);
        const r = next();
        if (r < 0.1) damaged = damaged.slice(0, at);
        else if (r < 0.4) damaged = damaged.slice(0, at) + damaged.slice(at + 1 + Math.floor(next() * 3));
        else damaged = damaged.slice(0, at) + damage[Math.floor(next() * damage.length)] + damaged.slice(at);
      }
      expectSameParse(damaged);
    }
  });

  it('text that is not mostly long literals goes to JSON.parse unchanged', () => {
    const lines = Array.from({ length: 20_000 }, (_, i) => `line ${i} "quoted" \\ tab\t\n`);
    expectSameParse(JSON.stringify({ cells: [{ source: lines }], big: base64(70_000) }));
    expectSameParse(JSON.stringify({ big: base64(70_000), cells: [{ source: lines }] }));
  });

  it('handles nesting deeper than the call stack', () => {
    const depth = 200_000;
    const text = `${'['.repeat(depth)}"${base64(70_000)}"${']'.repeat(depth)}`;
    let value = parseJson(text);
    for (let i = 0; i < depth; i++) value = (value as unknown[])[0];
    expect(value).toBe(base64(70_000));
  });
});

describe('parseUntrustedJson', () => {
  it('refuses nesting deeper than MAX_JSON_DEPTH (what comes next would run out of stack), accepts it at the limit', () => {
    const nested = (depth: number, open: string, close: string) => `${open.repeat(depth)}1${close.repeat(depth)}`;
    for (const [open, close] of [
      ['[', ']'],
      ['{"a":', '}'],
    ] as const) {
      expect(() => parseUntrustedJson(nested(MAX_JSON_DEPTH + 1, open, close))).toThrow(JsonTooDeepError);
      expect(() => parseUntrustedJson(nested(100_000, open, close))).toThrow(/nested more than 1000 levels/);
      expect(parseUntrustedJson(nested(MAX_JSON_DEPTH, open, close))).toEqual(
        JSON.parse(nested(MAX_JSON_DEPTH, open, close)),
      );
    }
    // Depth counts along one path, not the whole document: wide and shallow is fine.
    const wide = JSON.stringify(Array.from({ length: 5000 }, () => [[{ a: [1] }]]));
    expect(parseUntrustedJson(wide)).toEqual(JSON.parse(wide));
    // Deep beside a long literal (the fast path) is caught too.
    const mixed = `{"image":"${'A'.repeat(70_000)}","deep":${nested(5000, '[', ']')}}`;
    expect(() => parseUntrustedJson(mixed)).toThrow(JsonTooDeepError);
  });
});
