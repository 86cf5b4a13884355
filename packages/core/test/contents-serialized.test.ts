// needs: kernel
import * as fs from 'node:fs/promises';
import * as nodePath from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { advanceClock, LISTING_REUSE_PAST_MS, useRealClock, useTestClock } from '../../../testing/clock.js';
import { CountingStore } from '../../../testing/counting-store.js';
import { makeTempDir } from '../../../testing/temp.js';
import { ContentsManager, type GetOptions } from '../src/index.js';

const png = Buffer.alloc(3000, 7).toString('base64');
/** A notebook as nbformat writes it: split lines, sorted keys, an image output. */
const onDisk = (text: string) =>
  `${JSON.stringify(
    {
      cells: [
        {
          cell_type: 'code',
          execution_count: 1,
          id: 'c1',
          metadata: {},
          outputs: [
            { data: { 'image/png': png, 'text/plain': ['<Figure>'] }, metadata: {}, output_type: 'display_data' },
            { name: 'stdout', output_type: 'stream', text: ['a\n', 'b\n'] },
          ],
          source: ['print("a")\n', text],
        },
        { cell_type: 'markdown', id: 'm1', metadata: {}, source: ['# Title ü ✓\n', '"quoted" \\ text'] },
      ],
      metadata: { kernelspec: { display_name: 'Python 3', language: 'python', name: 'python3' } },
      nbformat: 4,
      nbformat_minor: 5,
    },
    null,
    1,
  )}\n`;

/** A whole (not streamed) answer as text. */
const text = (serialized: { json: Uint8Array | ReadableStream<Uint8Array> }) => {
  if (!(serialized.json instanceof Uint8Array)) throw new Error('a streamed answer');
  return Buffer.from(serialized.json).toString('utf8');
};
/** A whole or streamed answer as text. */
async function readAll(serialized: { json: Uint8Array | ReadableStream<Uint8Array> }): Promise<string> {
  if (serialized.json instanceof Uint8Array) return text(serialized);
  return Buffer.from(await new Response(serialized.json).arrayBuffer()).toString('utf8');
}

let root: string;
let store: CountingStore;
let contents: ContentsManager;

beforeAll(async () => {
  root = await makeTempDir('nbserve-serialized-');
  await fs.mkdir(nodePath.join(root, 'sub'));
  await fs.writeFile(nodePath.join(root, 'nb.ipynb'), onDisk('x = 1'));
  await fs.writeFile(nodePath.join(root, 'sub', 'a.txt'), 'hello');
  // v3, missing ids (4.5), and schema violations take other paths through readNotebook
  await fs.writeFile(
    nodePath.join(root, 'v3.ipynb'),
    JSON.stringify({
      nbformat: 3,
      nbformat_minor: 0,
      metadata: { name: 'old' },
      worksheets: [{ cells: [{ cell_type: 'code', input: 'x', outputs: [], language: 'python' }] }],
    }),
  );
  await fs.writeFile(
    nodePath.join(root, 'noids.ipynb'),
    JSON.stringify({
      nbformat: 4,
      nbformat_minor: 5,
      metadata: {},
      cells: [{ cell_type: 'markdown', metadata: {}, source: 'x' }],
    }),
  );
  await fs.writeFile(
    nodePath.join(root, 'invalid.ipynb'),
    JSON.stringify({
      nbformat: 4,
      nbformat_minor: 4,
      metadata: {},
      cells: [{ cell_type: 'markdown', metadata: {}, source: 7 }],
    }),
  );
  // names JSON must escape, sort case-insensitively, hide, or give no mimetype
  const mixed = nodePath.join(root, 'mixed');
  await fs.mkdir(nodePath.join(mixed, 'Zeta dir'), { recursive: true });
  await fs.mkdir(nodePath.join(mixed, 'alpha'));
  for (const name of [
    'say "hi".ipynb',
    'back\\slash.txt',
    'Ünï ✓.md',
    'b.IPYNB',
    'A.ipynb',
    'data.unknownext',
    'x.pyc',
    '.dot',
    'tab\tname.py',
  ]) {
    await fs.writeFile(nodePath.join(mixed, name), name);
  }
  await fs.symlink('/etc', nodePath.join(mixed, 'outside'));
  // more entries than one chunk of the listing writer, in a folder whose own name JSON escapes
  const many = nodePath.join(root, 'we"ird ü', 'many');
  await fs.mkdir(nodePath.join(many, 'sub 😀'), { recursive: true });
  for (let i = 0; i < 4200; i++) {
    const ext = ['.ipynb', '.txt', '.tar.gz', '', '.PNG'][i % 5];
    await fs.writeFile(nodePath.join(many, `f\u0001 "${i}" 😀${ext}`), String(i));
  }
  store = new CountingStore(root);
  contents = new ContentsManager({ store });
});

afterAll(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

describe('ContentsManager.getSerialized', () => {
  const cases: [string, GetOptions][] = [
    ['nb.ipynb', {}],
    ['nb.ipynb', { content: false }],
    ['nb.ipynb', { hash: true }],
    ['nb.ipynb', { type: 'file' }],
    ['nb.ipynb', { type: 'file', format: 'base64' }],
    ['invalid.ipynb', {}],
    ['sub', {}],
    ['mixed', {}],
    ['mixed', { type: 'directory' }],
    ['mixed', { content: false }],
    ['sub', { page: { offset: 0, limit: 1 } }],
    ['', {}],
    ['sub/a.txt', {}],
    ['we"ird ü/many', {}],
    ['we"ird ü', {}],
  ];
  it.each(cases)('%s %j is exactly JSON.stringify(get())', async (path, options) => {
    const expected = JSON.stringify(await contents.get(path, options));
    // twice: the second notebook answer comes from the cache
    expect(await readAll(await contents.getSerialized(path, options))).toBe(expected);
    expect(await readAll(await contents.getSerialized(path, options))).toBe(expected);
  });

  it.each([
    ['mixed', 0, 4],
    ['mixed', 3, 500],
    ['we"ird ü/many', 0, 500],
    ['we"ird ü/many', 4000, 500],
  ])('a page of %s from %i (%i entries) is that part of the whole listing', async (path, offset, limit) => {
    const whole = (await contents.get(path)).content as unknown[];
    const page = await contents.get(path, { page: { offset, limit } });
    expect(page.content).toEqual(whole.slice(offset, offset + limit));
    expect(page.total).toBe(whole.length);
  });

  it('a directory listing written straight to JSON keeps Jupyter order and hiding', async () => {
    const listed = JSON.parse(text(await contents.getSerialized('mixed')));
    expect(listed.content.map((m: { name: string }) => m.name)).toEqual([
      'alpha',
      'Zeta dir',
      'A.ipynb',
      'say "hi".ipynb',
      'b.IPYNB',
      'back\\slash.txt',
      'data.unknownext',
      'tab\tname.py',
      'Ünï ✓.md',
    ]);
    expect(listed.content.find((m: { name: string }) => m.name === 'data.unknownext').mimetype).toBeNull();
  });

  it('reopening an unchanged notebook reads nothing; its model carries content only as text', async () => {
    const first = await contents.getSerialized('nb.ipynb');
    const before = store.fileReads;
    const again = await contents.getSerialized('nb.ipynb');
    expect(store.fileReads).toBe(before);
    expect(text(again)).toBe(text(first));
    expect(again.model.content).toBeNull();
    expect(again.model.format).toBe('json');
    expect(JSON.parse(text(again)).content.cells[0].outputs[0].data['image/png']).toBe(png);
  });

  it('serves an edit made on disk at once, even with the same size', async () => {
    const file = nodePath.join(root, 'edited.ipynb');
    await fs.writeFile(file, onDisk('x = 1'));
    const before = JSON.parse(text(await contents.getSerialized('edited.ipynb')));
    expect(before.content.cells[0].source).toBe('print("a")\nx = 1');
    await fs.writeFile(file, onDisk('y = 2'));
    const after = JSON.parse(text(await contents.getSerialized('edited.ipynb')));
    expect(after.content.cells[0].source).toBe('print("a")\ny = 2');
    expect(after.size).toBe(before.size);
  });

  it('notebooks given made-up cell ids are parsed on every read, as in Jupyter', async () => {
    const withoutIds = (json: string) => json.replace(/"id":"[\w-]+"/g, '"id":"?"');
    const v3 = JSON.stringify(await contents.get('v3.ipynb'));
    expect(withoutIds(text(await contents.getSerialized('v3.ipynb')))).toBe(withoutIds(v3));
    const before = store.fileReads;
    expect(text(await contents.getSerialized('v3.ipynb'))).not.toBe(text(await contents.getSerialized('v3.ipynb')));
    expect(store.fileReads).toBe(before + 2);
    const a = JSON.parse(text(await contents.getSerialized('noids.ipynb')));
    const b = JSON.parse(text(await contents.getSerialized('noids.ipynb')));
    expect(store.fileReads).toBe(before + 4);
    expect(a.content.cells[0].id).toMatch(/^[\w-]+$/);
    expect(b.content.cells[0].id).not.toBe(a.content.cells[0].id);
  });

  it('trusting a notebook changes what a cached read serves', async () => {
    const untrusted = JSON.parse(text(await contents.getSerialized('nb.ipynb')));
    expect(untrusted.content.cells[0].metadata.trusted).toBe(false);
    await contents.trust('nb.ipynb');
    const trusted = JSON.parse(text(await contents.getSerialized('nb.ipynb')));
    expect(trusted.content.cells[0].metadata.trusted).toBe(true);
    expect(JSON.stringify(trusted)).toBe(JSON.stringify(await contents.get('nb.ipynb')));
  });

  it('a save through the manager is served at once, and saving trusted cells trusts identical files', async () => {
    await fs.writeFile(nodePath.join(root, 'twin.ipynb'), onDisk('z = 3'));
    expect(JSON.parse(text(await contents.getSerialized('twin.ipynb'))).content.cells[0].metadata.trusted).toBe(false);
    const content = JSON.parse(text(await contents.getSerialized('twin.ipynb'))).content;
    content.cells[0].metadata.trusted = true;
    await contents.save('twin-copy.ipynb', { type: 'notebook', content });
    // the saved bytes equal twin.ipynb's (nbformat layout), so its signature now covers both
    expect(await fs.readFile(nodePath.join(root, 'twin-copy.ipynb'), 'utf8')).toBe(onDisk('z = 3'));
    expect(JSON.parse(text(await contents.getSerialized('twin.ipynb'))).content.cells[0].metadata.trusted).toBe(true);
    content.cells[0].source = 'changed';
    await contents.save('twin.ipynb', { type: 'notebook', content });
    expect(JSON.parse(text(await contents.getSerialized('twin.ipynb'))).content.cells[0].source).toBe('changed');
  });

  it('a small cache still answers correctly (entries too big are never kept)', async () => {
    const tiny = new ContentsManager({ store, notebookCacheBytes: 100 });
    const before = store.fileReads;
    const expected = JSON.stringify(await tiny.get('nb.ipynb'));
    expect(text(await tiny.getSerialized('nb.ipynb'))).toBe(expected);
    expect(text(await tiny.getSerialized('nb.ipynb'))).toBe(expected);
    expect(store.fileReads).toBe(before + 3);
  });

  it('a listing shows added, removed and saved entries at once, in-place edits within 100 ms', async () => {
    useTestClock();
    onTestFinished(useRealClock);
    await fs.mkdir(nodePath.join(root, 'polled'));
    await fs.writeFile(nodePath.join(root, 'polled', 'a.txt'), 'a');
    const names = async () =>
      JSON.parse(text(await contents.getSerialized('polled'))).content.map((m: { name: string }) => m.name);
    expect(await names()).toEqual(['a.txt']);
    await fs.writeFile(nodePath.join(root, 'polled', 'b.txt'), 'b'); // changes the directory's mtime
    expect(await names()).toEqual(['a.txt', 'b.txt']);
    await fs.rm(nodePath.join(root, 'polled', 'a.txt'));
    expect(await names()).toEqual(['b.txt']);
    await contents.save('polled/b.txt', { type: 'file', format: 'text', content: 'longer' });
    const sizeOfB = async () => JSON.parse(text(await contents.getSerialized('polled'))).content[0].size;
    expect(await sizeOfB()).toBe(6);
    await fs.writeFile(nodePath.join(root, 'polled', 'b.txt'), 'longer still'); // in place: same directory mtime
    advanceClock(LISTING_REUSE_PAST_MS);
    expect(await sizeOfB()).toBe(12);
    expect(text(await contents.getSerialized('polled'))).toBe(JSON.stringify(await contents.get('polled')));
  });

  it('missing and hidden paths are 404 as with get', async () => {
    await expect(contents.getSerialized('nope.ipynb')).rejects.toMatchObject({ kind: 'not-found' });
    await fs.writeFile(nodePath.join(root, '.hidden.ipynb'), onDisk('h'));
    await expect(contents.getSerialized('.hidden.ipynb')).rejects.toMatchObject({ kind: 'not-found' });
  });
});
