// needs: kernel
import * as fs from 'node:fs/promises';
import * as nodePath from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir } from '../../../testing/temp.js';
import { compactJsonBytes } from '../src/contents/nbformat/compact-json.js';
import { readNotebook, readNotebookBytes } from '../src/contents/nbformat/notebook.js';
import { parseJsonBytes } from '../src/contents/nbformat/parse-bytes.js';
import { sortedJsonBytes } from '../src/contents/nbformat/sorted-json.js';
import { ContentsManager, FileSystemStore } from '../src/index.js';

const base64 = (n: number, fill = 0xa7) =>
  Buffer.alloc(Math.ceil((n * 3) / 4), fill)
    .toString('base64')
    .slice(0, n);

/** A v4.5 notebook mostly of long strings, in the places a notebook has them. */
function notebook(options: { long?: string; cells?: number } = {}): Record<string, unknown> {
  const long = options.long ?? base64(40_000);
  return {
    cells: Array.from({ length: options.cells ?? 6 }, (_, i) => ({
      cell_type: i % 3 === 0 ? 'markdown' : 'code',
      id: `c${i}`,
      metadata: { tags: ['a'] },
      source: i % 3 === 0 ? long : [`plot(${i})\n`, '# "quoted" \\ back'],
      ...(i % 3 === 0
        ? { attachments: { 'a.png': { 'image/png': long } } }
        : {
            execution_count: i,
            outputs: [
              { output_type: 'display_data', data: { 'image/png': long, 'text/plain': ['<Figure>'] }, metadata: {} },
              { output_type: 'stream', name: 'stdout', text: [long, 'tail\n'] },
            ],
          }),
    })),
    metadata: { kernelspec: { name: 'python3', display_name: 'Python 3' }, note: long },
    nbformat: 4,
    nbformat_minor: 5,
  };
}

/** A notebook's answer, always whole (only big listings are streamed). */
function whole(served: { json: Uint8Array | ReadableStream<Uint8Array> }): Buffer {
  if (!(served.json instanceof Uint8Array)) throw new Error('a streamed answer');
  return Buffer.from(served.json);
}

const nbformatText = (nb: unknown) => `${JSON.stringify(nb, null, 1)}\n`;

/** The served content both ways: parsed from the bytes with markers, and decoded as text. */
function bothWays(bytes: Uint8Array): { cut: Buffer | null; text: Buffer } {
  const cut = readNotebookBytes(bytes);
  const text = readNotebook(bytes, 'nb.ipynb');
  return {
    cut: cut && compactJsonBytes(cut.notebook, '{"x":', '}', cut.raw),
    text: compactJsonBytes(text.notebook, '{"x":', '}'),
  };
}

describe('parseJsonBytes / readNotebookBytes', () => {
  it('serves exactly what the text path serves, long strings never decoded', () => {
    for (const text of [nbformatText(notebook()), JSON.stringify(notebook()), `\ufeff${nbformatText(notebook())}`]) {
      const bytes = Buffer.from(text);
      const { cut, text: expected } = bothWays(bytes);
      expect(cut).not.toBeNull();
      expect(cut?.equals(expected)).toBe(true);
      expect(JSON.parse(expected.toString()).x).toEqual(JSON.parse(JSON.stringify(readNotebook(bytes, 'a').notebook)));
    }
    const parsed = parseJsonBytes(Buffer.from(nbformatText(notebook())));
    const source = (parsed?.value as { cells: { source: unknown }[] } | undefined)?.cells[0]?.source;
    expect(typeof source).toBe('string');
    expect(String(source).length).toBeLessThan(100); // a marker, not the 40,000 characters
  });

  it('copies non-ASCII UTF-8 long strings byte for byte and decodes the rest', () => {
    const long = `${'é漢字🙂'.repeat(5000)}plain`;
    const bytes = Buffer.from(nbformatText({ ...notebook({ long }), metadata: { title: 'Ünïcode ✓', note: long } }));
    const { cut, text } = bothWays(bytes);
    expect(cut?.equals(text)).toBe(true);
  });

  it('writes the same sorted nbformat bytes from markers', () => {
    const bytes = Buffer.from(nbformatText(notebook()));
    const cut = readNotebookBytes(bytes);
    const text = readNotebook(bytes, 'nb.ipynb');
    expect(cut).not.toBeNull();
    const fromCut = sortedJsonBytes(cut?.notebook, '\n', undefined, cut?.raw);
    expect(fromCut.equals(sortedJsonBytes(text.notebook, '\n'))).toBe(true);
  });

  it('leaves everything else to the text path', () => {
    const valid = notebook();
    const cases: [string, Uint8Array][] = [
      ['small', Buffer.from(JSON.stringify(notebook({ long: 'x', cells: 2 })))],
      ['no long strings', Buffer.from(nbformatText(notebook({ long: 'short', cells: 3000 })))],
      ['not UTF-8', Buffer.concat([Buffer.from(nbformatText(valid)), Buffer.from([0xff, 0xfe])])],
      ['invalid JSON', Buffer.from(`${nbformatText(valid)},`)],
      ['a control character in a long string', Buffer.from(nbformatText(valid).replace('p6en', 'p\u0001n'))],
      ['v3', Buffer.from(JSON.stringify({ nbformat: 3, nbformat_minor: 0, metadata: {}, worksheets: [] }))],
      ['schema violation', Buffer.from(nbformatText({ ...valid, metadata: { kernelspec: { name: base64(20_000) } } }))],
      ['long escaped strings', Buffer.from(nbformatText(notebook({ long: `${base64(20_000)}\n"q"` })))],
    ];
    for (const [what, bytes] of cases) expect(readNotebookBytes(bytes), what).toBeNull();
    // the text path then gives what it always gave
    expect(() => readNotebook(cases[3]?.[1] as Uint8Array, 'nb.ipynb')).toThrow(/Unreadable Notebook/);
    expect(() => readNotebook(cases[4]?.[1] as Uint8Array, 'nb.ipynb')).toThrow(/Unreadable Notebook/);
    expect(readNotebook(cases[6]?.[1] as Uint8Array, 'nb.ipynb').validationMessage).toMatch(/validation failed/);
  });

  it('cuts no key and no array item', () => {
    const key = base64(20_000);
    const bytes = Buffer.from(
      nbformatText({ ...notebook(), metadata: { [key]: 1, list: [base64(20_000), base64(20_000)], note: 'x' } }),
    );
    const parsed = parseJsonBytes(bytes);
    expect(parsed).not.toBeNull();
    const metadata = (parsed?.value as { metadata: Record<string, unknown> } | undefined)?.metadata ?? {};
    expect(Object.keys(metadata)[0]).toBe(key);
    expect((metadata.list as string[]).every((item) => item.length === 20_000)).toBe(true);
  });
});

describe('a big notebook opened cold through the manager', () => {
  let root: string;
  beforeAll(async () => {
    root = await makeTempDir('nbserve-cold-');
  });
  afterAll(async () => {
    await fs.rm(root, { recursive: true, force: true });
  });

  it('answers exactly JSON.stringify(get()) on every open, from lent memory first, trusted or not', async () => {
    const contents = new ContentsManager({ store: new FileSystemStore(root) });
    const nb = notebook({ long: base64(300_000), cells: 9 });
    await fs.writeFile(nodePath.join(root, 'big.ipynb'), nbformatText(nb));
    const first = await contents.getSerialized('big.ipynb');
    const expected = JSON.stringify(await contents.get('big.ipynb'));
    expect(whole(first).toString()).toBe(expected);
    expect(first.release).toBeTypeOf('function');
    first.release?.();
    const second = await contents.getSerialized('big.ipynb'); // kept from now on
    expect(second.release).toBeUndefined();
    expect(whole(second).toString()).toBe(expected);
    expect(whole(await contents.getSerialized('big.ipynb')).toString()).toBe(expected);
    expect(JSON.parse(expected).content.cells[1].metadata.trusted).toBe(false);

    // saved with every cell trusted: signed, so its next (cold) open marks the cells trusted
    const content = JSON.parse(expected).content;
    for (const cell of content.cells) if (cell.cell_type === 'code') cell.metadata.trusted = true;
    await contents.save('big.ipynb', { type: 'notebook', content });
    const reopened = await contents.getSerialized('big.ipynb');
    const served = whole(reopened).toString();
    reopened.release?.();
    expect(served).toBe(JSON.stringify(await contents.get('big.ipynb')));
    expect(JSON.parse(served).content.cells[1].metadata.trusted).toBe(true);
  }, 60_000);

  it('a big notebook without cell ids gets new ones on every open', async () => {
    const contents = new ContentsManager({ store: new FileSystemStore(root) });
    const nb = notebook({ long: base64(400_000), cells: 6 }) as { cells: Record<string, unknown>[] };
    for (const cell of nb.cells) delete cell.id;
    await fs.writeFile(nodePath.join(root, 'noids.ipynb'), nbformatText(nb));
    const ids = async () => {
      const got = await contents.getSerialized('noids.ipynb');
      const id = JSON.parse(whole(got).toString()).content.cells[0].id;
      got.release?.();
      return id;
    };
    const a = await ids();
    expect(a).toMatch(/^[\w-]+$/);
    expect(await ids()).not.toBe(a);
    expect(await ids()).not.toBe(a);
  }, 60_000);
});
