import { describe, expect, it } from 'vitest';
import { random } from '../../../testing/random.js';
import { escapeScanner } from '../src/contents/nbformat/escape-scan.js';
import { sortedJsonBytes } from '../src/contents/nbformat/sorted-json.js';

/** The serialization sortedJsonBytes replaces: a sorted copy, JSON.stringify with indent 1, UTF-8. */
function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) out[key] = sortKeys((value as Record<string, unknown>)[key]);
  return out;
}
const reference = (value: unknown, suffix = '') =>
  Buffer.from(new TextEncoder().encode(`${JSON.stringify(sortKeys(value), null, 1)}${suffix}`));

function expectSame(value: unknown, suffix = ''): void {
  const ours = sortedJsonBytes(value, suffix);
  const theirs = reference(value, suffix);
  // compare as text first for a readable diff, then byte for byte
  expect(ours.toString('utf8')).toBe(theirs.toString('utf8'));
  expect(Buffer.compare(ours, theirs)).toBe(0);
}

const LONG = 70_000; // over the scanner's 65,536-character rounds
const base64 = (n: number) =>
  Buffer.alloc(Math.ceil((n * 3) / 4), 0xa7)
    .toString('base64')
    .slice(0, n);

describe('sortedJsonBytes: byte for byte JSON.stringify(sortKeys(value), null, 1)', () => {
  it('scalars, empty containers and nesting', () => {
    expectSame({});
    expectSame([]);
    expectSame({ a: {}, b: [], c: [[]], d: [{}], e: { f: { g: { h: [1, [2, [3, {}]]] } } } });
    expectSame([null, true, false, 0, 1, -1, 'x', '']);
    expectSame({ cells: [], metadata: {}, nbformat: 4, nbformat_minor: 5 }, '\n');
    expectSame('just a string');
    expectSame(42);
    expectSame(null);
  });

  it('numbers as JavaScript prints them', () => {
    expectSame([
      -0,
      0.1,
      1e21,
      1e-7,
      123456789012345680000,
      5e-324,
      Number.MAX_SAFE_INTEGER,
      -1.5e300,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      Number.NEGATIVE_INFINITY,
      2 ** 53 + 2,
    ]);
  });

  it('keys: sorted by UTF-16 code units, array-index keys first in numeric order', () => {
    expectSame({ b: 1, a: 2, B: 3, _: 4, 'a b': 5, é: 6, '😀': 7, '\uffff': 8, '': 9 });
    expectSame({ 10: 'a', 9: 'b', 1: 'c', x: 'd', '01': 'e', '-1': 'f', '1.5': 'g', 4294967294: 'h', 4294967295: 'i' });
    expectSame({ 'quote"key': 1, 'back\\slash': 2, 'new\nline': 3, '\u0000': 4, '\ud800': 5 });
  });

  it('leaves out undefined, functions and symbols in objects and writes null for them in arrays', () => {
    expectSame({ a: undefined, b: () => 1, c: Symbol('s'), d: 1 });
    expectSame({ a: undefined });
    expectSame([undefined, () => 1, Symbol('s'), 1]);
    // biome-ignore lint/suspicious/noSparseArray: a hole is what is tested
    expectSame([1, , 3]);
  });

  it('short strings: escapes, unicode and lone surrogates', () => {
    expectSame({
      escapes: '"\\/\b\f\n\r\t\u0000\u0001\u001f\u007f\u2028\u2029',
      unicode: 'ünïcödé — 日本語 🎉 \u{10ffff}',
      lone: ['\ud800', '\udfff', 'a\ud800b', '\udc00\ud800', '🎉'.slice(0, 1)],
    });
  });

  it('long strings: plain, with an escape anywhere, non-ASCII, split surrogate pairs, lone surrogates', () => {
    const plain = base64(LONG);
    const cases: string[] = [plain, base64(256), base64(255), base64(65_536), base64(65_537), base64(200_000)];
    for (const at of [0, 1, 15, 16, 17, 255, 65_535, 65_536, 65_537, LONG - 1]) {
      for (const ch of ['"', '\\', '\n', '\u0000', '\u001f', '\t'])
        cases.push(plain.slice(0, at) + ch + plain.slice(at + 1));
    }
    // a surrogate pair across the 65,536-character round boundary, and lone ones in long strings
    cases.push(`${'a'.repeat(65_535)}🎉${'b'.repeat(1000)}`);
    cases.push(`${'🎉'.repeat(40_000)}`);
    cases.push(`${'a'.repeat(65_535)}\ud800${'b'.repeat(1000)}`);
    cases.push(`${'x'.repeat(300)}\udc00`);
    cases.push('é'.repeat(LONG)); // one-byte in V8, two bytes in UTF-8
    cases.push(`${'日本語'.repeat(30_000)}\n`);
    cases.push(`${'\u007f'.repeat(1000)}${'\u0080'.repeat(1000)}`);
    expectSame(cases);
    expectSame({ data: { 'image/png': plain, 'text/plain': ['<Figure>\n', 'x'] } }, '\n');
  });

  it('grows its buffer when the estimate is short (strings that escape to six times their length)', () => {
    expectSame({ controls: '\u0001'.repeat(100_000), again: ['\u0002'.repeat(5000), '\u0003'.repeat(300)] });
    expectSame(Array.from({ length: 2000 }, (_, i) => ({ ['\u0004'.repeat(i % 50)]: '\u0005'.repeat(i) })));
  });

  it('keeps a __proto__ key, as nbformat does (a sorted copy loses it)', () => {
    const value = JSON.parse('{"b": 1, "__proto__": {"x": [1]}, "a": 2}');
    expect(sortedJsonBytes(value).toString()).toBe(
      '{\n "__proto__": {\n  "x": [\n   1\n  ]\n },\n "a": 2,\n "b": 1\n}',
    );
  });

  it('matches on random JSON trees', () => {
    const next = random(20261122);
    const escapes = ['"', '\\', '\n', '\t', '\u0001', '\u001f'];
    const others = ['a', ' ', '/', '~', '\u007f', 'é', '—', '😀'];
    const surrogates = ['\ud800', '\udc00', '\udbff\udfff'];
    const randomString = (): string => {
      const long = next() < 0.15;
      const length = long ? 256 + Math.floor(next() * 5000) : Math.floor(next() * 20);
      // mostly plain text, like real notebooks; else some characters to escape, non-ASCII or lone surrogates
      const kind = next();
      const alphabet =
        kind < 0.4 ? [] : kind < 0.6 ? escapes : kind < 0.8 ? others : [...escapes, ...others, ...surrogates];
      let text = '';
      for (let i = 0; i < length; i++) {
        text +=
          alphabet.length > 0 && next() < 0.01 ? alphabet[Math.floor(next() * alphabet.length)] : 'abcXYZ+/='[i % 9];
      }
      return text;
    };
    const randomValue = (depth: number): unknown => {
      const r = next();
      if (depth > 5 || r < 0.3) return randomString();
      if (r < 0.4) return next() < 0.5 ? Math.floor(next() * 1000) : (next() - 0.5) * 1e6;
      if (r < 0.45) return [null, true, false][Math.floor(next() * 3)];
      if (r < 0.7) return Array.from({ length: Math.floor(next() * 5) }, () => randomValue(depth + 1));
      const object: Record<string, unknown> = {};
      for (let i = Math.floor(next() * 6); i > 0; i--) {
        object[next() < 0.1 ? String(Math.floor(next() * 20)) : randomString().slice(0, 12)] = randomValue(depth + 1);
      }
      return object;
    };
    for (let i = 0; i < 200; i++) expectSame(randomValue(0), i % 2 ? '\n' : '');
  });

  it('throws on a BigInt like JSON.stringify', () => {
    expect(() => sortedJsonBytes({ a: 1n })).toThrow(TypeError);
  });
});

describe('escapeScanner', () => {
  it('is available on this Node (WebAssembly SIMD)', () => {
    expect(escapeScanner()).not.toBeNull();
  });

  it('finds every byte that needs JSON escaping, at every position of a 16-byte block and in the tail', () => {
    const scanner = escapeScanner();
    if (scanner === null) throw new Error('no WebAssembly SIMD');
    const { scratch, clean } = scanner;
    for (const start of [0, 3]) {
      for (const length of [0, 1, 15, 16, 17, 31, 32, 33, 47]) {
        scratch.fill(0x41, 0, 128);
        expect(clean(start, start + length)).toBe(1);
        for (let at = 0; at < length; at++) {
          for (let byte = 0; byte < 256; byte++) {
            scratch[start + at] = byte;
            const needsEscape = byte < 0x20 || byte === 0x22 || byte === 0x5c;
            if (clean(start, start + length) !== (needsEscape ? 0 : 1)) {
              throw new Error(`byte 0x${byte.toString(16)} at ${at} of ${length} (from ${start}) misjudged`);
            }
          }
          scratch[start + at] = 0x41;
        }
        // bytes just outside the range do not count
        if (start > 0) scratch[start - 1] = 0x22;
        scratch[start + length] = 0x5c;
        expect(clean(start, start + length)).toBe(1);
      }
    }
  });
});
