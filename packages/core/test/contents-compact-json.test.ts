import { describe, expect, it } from 'vitest';
import { random } from '../../../testing/random.js';
import { compactJsonBytes } from '../src/contents/nbformat/compact-json.js';

function expectSame(value: unknown, head = '', tail = ''): void {
  const ours = compactJsonBytes(value, head, tail);
  const theirs = Buffer.from(`${head}${JSON.stringify(value)}${tail}`, 'utf8');
  expect(ours.toString('utf8')).toBe(theirs.toString('utf8'));
  expect(Buffer.compare(ours, theirs)).toBe(0);
}

const LONG = 70_000; // over the writer's 65,536-character rounds
const base64 = (n: number) =>
  Buffer.alloc(Math.ceil((n * 3) / 4), 0x5b)
    .toString('base64')
    .slice(0, n);

describe('compactJsonBytes: byte for byte head + JSON.stringify(value) + tail', () => {
  it('small values go through as JSON.stringify writes them', () => {
    expectSame({});
    expectSame([]);
    expectSame({ a: {}, b: [], c: [[]], d: [{}], e: { f: [1, [2, [3, {}]]] } });
    expectSame([null, true, false, 0, -0, 1.5, 1e21, 'x', '', 'é ✓ 😀']);
    expectSame({ 10: 'a', 2: 'b', z: 1, a: 2 }, '{"x":', '}');
  });

  it('long strings, plain, needing escapes, non-ASCII and with lone surrogates, in objects and arrays', () => {
    const notebook = {
      cells: [
        { cell_type: 'markdown', source: 'short', metadata: {} },
        {
          cell_type: 'code',
          metadata: { trusted: true },
          outputs: [
            { output_type: 'display_data', data: { 'image/png': base64(LONG), 'text/plain': '<Figure>' } },
            { output_type: 'stream', text: `${'line "quoted"\\\n'.repeat(5000)}` },
            { output_type: 'stream', text: `${'ü'.repeat(LONG)}😀` },
            { output_type: 'stream', text: `${'a'.repeat(LONG)}\ud800` },
            { output_type: 'stream', text: `${'b'.repeat(LONG)}\u0001` },
          ],
        },
      ],
      metadata: { undefinedDropped: undefined, fn: () => 1 },
      nbformat: 4,
      nbformat_minor: 5,
    };
    expectSame(notebook, '{"name":"ü.ipynb","content":', ',"format":"json"}');
    expectSame([base64(LONG), undefined, () => 1, Symbol('s'), base64(5000)]);
    expectSame(base64(LONG));
  });

  it('random notebooks-like trees', () => {
    const rng = random(7);
    const leaf = (): unknown => {
      const r = rng();
      if (r < 0.2) return base64(Math.floor(rng() * 9000));
      if (r < 0.4) return `${'x\n"'.repeat(Math.floor(rng() * 3000))}`;
      if (r < 0.6) return Math.floor(rng() * 1000) / 7;
      if (r < 0.7) return null;
      return 'short';
    };
    const tree = (depth: number): unknown => {
      if (depth === 0 || rng() < 0.3) return leaf();
      if (rng() < 0.5) return Array.from({ length: Math.floor(rng() * 5) }, () => tree(depth - 1));
      const out: Record<string, unknown> = {};
      for (let i = 0; i < Math.floor(rng() * 5); i++) out[`k${Math.floor(rng() * 20)}`] = tree(depth - 1);
      return out;
    };
    for (let i = 0; i < 30; i++) expectSame(tree(5), 'h', 't');
  });
});
