// needs: kernel
import * as fs from 'node:fs/promises';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { v3CodeCell, v3Notebook, v3Pyout, v4CodeCell, v4Notebook } from '../../../testing/notebooks.js';
import { makeTempDir } from '../../../testing/temp.js';
import {
  ContentsManager,
  type ContentsModel,
  type ContentsStore,
  FileSystemStore,
  MemoryStore,
  markCells,
  NbserveError,
  serializeNotebook,
} from '../src/index.js';

const tempRoots: string[] = [];
afterAll(async () => {
  await Promise.all(tempRoots.map((dir) => fs.rm(dir, { recursive: true, force: true })));
});

async function fsStore(): Promise<ContentsStore> {
  const dir = await makeTempDir('nbserve-cm-');
  tempRoots.push(dir);
  return new FileSystemStore(dir);
}

/** As served: notebooks this server saved from trusted cells come back with trusted code cells. */
const served = (nb: Record<string, unknown>) => markCells(nb, true);

const notebook = (source = 'print(1)') =>
  v4Notebook([v4CodeCell(source)], { kernelspec: { name: 'python3', display_name: 'Python 3' } });

async function expectError(promise: Promise<unknown>, kind: string, message?: string | RegExp, reason?: string) {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(NbserveError);
  const e = error as NbserveError;
  expect(e.kind).toBe(kind);
  if (typeof message === 'string') expect(e.message).toBe(message);
  else if (message) expect(e.message).toMatch(message);
  if (reason !== undefined) expect(e.reason).toBe(reason);
}

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

describe.each([
  ['FileSystemStore', fsStore],
  ['MemoryStore', async () => new MemoryStore() as ContentsStore],
])('ContentsManager over %s', (_name, makeStore) => {
  let cm: ContentsManager;
  beforeEach(async () => {
    cm = new ContentsManager({ store: await makeStore() });
  });

  it('returns the root directory model with every field of the reference', async () => {
    const root = await cm.get('');
    expect(Object.keys(root).sort()).toEqual(
      [
        'content',
        'created',
        'format',
        'hash',
        'hash_algorithm',
        'last_modified',
        'mimetype',
        'name',
        'path',
        'size',
        'type',
        'writable',
      ].sort(),
    );
    expect(root).toMatchObject({ name: '', path: '', type: 'directory', size: null, mimetype: null, format: 'json' });
    expect(root.content).toEqual([]);
    expect(root.last_modified).toMatch(ISO);
    expect(root.created).toMatch(ISO);
  });

  it('creates untitled notebooks, files and folders with Jupyter names', async () => {
    expect((await cm.newUntitled('', { type: 'notebook' })).name).toBe('Untitled.ipynb');
    expect((await cm.newUntitled('', { type: 'notebook' })).name).toBe('Untitled1.ipynb');
    expect((await cm.newUntitled('', { type: 'notebook' })).name).toBe('Untitled2.ipynb');
    expect((await cm.newUntitled('', { type: 'file', ext: '.txt' })).name).toBe('untitled.txt');
    expect((await cm.newUntitled('', { type: 'file', ext: '.txt' })).name).toBe('untitled1.txt');
    expect((await cm.newUntitled('', {})).name).toBe('untitled');
    expect((await cm.newUntitled('', {})).name).toBe('untitled1');
    expect((await cm.newUntitled('', { ext: '.ipynb' })).type).toBe('notebook');
    expect((await cm.newUntitled('', { type: 'directory' })).name).toBe('Untitled Folder');
    const folder = await cm.newUntitled('', { type: 'directory' });
    expect(folder).toMatchObject({ name: 'Untitled Folder 1', type: 'directory', content: null });
    expect((await cm.newUntitled('Untitled Folder 1', { type: 'file', ext: '.tar.gz' })).path).toBe(
      'Untitled Folder 1/untitled.tar.gz',
    );
    expect((await cm.newUntitled('Untitled Folder 1', { type: 'file', ext: '.tar.gz' })).name).toBe('untitled1.tar.gz');
    const nb = await cm.get('Untitled.ipynb');
    expect(nb.content).toEqual({ cells: [], metadata: {}, nbformat: 4, nbformat_minor: 5 });
    expect(await cm.listCheckpoints('Untitled.ipynb')).toHaveLength(1);
  });

  it('rejects untitled creation in files, missing dirs, hidden dirs, with unknown types and bad extensions', async () => {
    await cm.save('a.txt', { type: 'file', format: 'text', content: 'x' });
    await expectError(cm.newUntitled('a.txt'), 'bad-request', 'Cannot POST to files, use PUT instead.');
    await expectError(cm.newUntitled('nope'), 'not-found', 'No such directory: nope');
    await expectError(cm.newUntitled('.secret'), 'bad-request', "Cannot create file or directory '.secret'");
    await expectError(cm.newUntitled('', { type: 'bogus' }), 'bad-request', "Unexpected model type: 'bogus'");
    await expectError(cm.newUntitled('', { type: 'file', ext: '/../x' }), 'bad-request', /Invalid extension/);
  });

  it('saves and reads text and binary files in every format', async () => {
    const put = await cm.save('notes.txt', { type: 'file', format: 'text', content: 'héllo\n' });
    expect(put.created).toBe(true);
    expect(put.model).toMatchObject({ name: 'notes.txt', type: 'file', content: null, format: null, size: 7 });
    expect(put.model.hash).toMatch(/^[0-9a-f]{64}$/);
    expect((await cm.save('notes.txt', { type: 'file', format: 'text', content: 'héllo\n' })).created).toBe(false);

    const text = await cm.get('notes.txt');
    expect(text).toMatchObject({ content: 'héllo\n', format: 'text', mimetype: 'text/plain', size: 7 });
    const b64 = await cm.get('notes.txt', { format: 'base64' });
    expect(b64).toMatchObject({ content: `${Buffer.from('héllo\n').toString('base64')}\n`, format: 'base64' });

    const bytes = Buffer.alloc(200, 0xff);
    await cm.save('blob.bin', { type: 'file', format: 'base64', content: bytes.toString('base64') });
    const blob = await cm.get('blob.bin');
    expect(blob.format).toBe('base64');
    expect(blob.mimetype).toBe('application/octet-stream');
    const lines = (blob.content as string).split('\n');
    expect(lines.slice(0, -1).every((line) => line.length <= 76)).toBe(true);
    expect(lines[0]).toHaveLength(76);
    expect(lines.at(-1)).toBe('');
    expect(Buffer.from(blob.content as string, 'base64')).toEqual(bytes);
    await expectError(
      cm.get('blob.bin', { format: 'text' }),
      'bad-request',
      'blob.bin is not UTF-8 encoded',
      'bad format',
    );

    const noContent = await cm.get('blob.bin', { content: false });
    expect(noContent).toMatchObject({ content: null, format: null, mimetype: null, hash: null, hash_algorithm: null });
    const hashed = await cm.get('blob.bin', { content: false, hash: true });
    expect(hashed.hash_algorithm).toBe('sha256');
    expect(hashed.hash).toBe((await import('node:crypto')).createHash('sha256').update(bytes).digest('hex'));

    // a save's hash; from 1 MiB on it is computed on the thread pool while the file is written
    const { createHash } = await import('node:crypto');
    for (const size of [1000, 1024 * 1024, 3_000_001]) {
      const data = Buffer.alloc(size, 0x5a);
      data[size - 1] = 0x21;
      const saved = await cm.save(`sized-${size}.bin`, {
        type: 'file',
        format: 'base64',
        content: data.toString('base64'),
      });
      expect(saved.model.hash).toBe(createHash('sha256').update(data).digest('hex'));
      expect((await cm.get(`sized-${size}.bin`, { content: false, hash: true })).hash).toBe(saved.model.hash);
    }
  });

  it('saves notebooks on disk as nbformat writes them and serves them joined', async () => {
    const nb = notebook('a = 1\nb = 2\n');
    const saved = await cm.save('n.ipynb', { type: 'notebook', content: nb });
    expect(saved.created).toBe(true);
    expect(saved.model).toMatchObject({ type: 'notebook', format: null, content: null, mimetype: null });
    expect(saved.model.message).toBeUndefined();
    const raw = new TextDecoder().decode(await cm.store.read('n.ipynb'));
    expect(raw).toContain('"source": [\n    "a = 1\\n",\n    "b = 2\\n"\n   ]');
    expect(raw.endsWith('}\n')).toBe(true);
    expect(Object.keys(JSON.parse(raw))).toEqual(['cells', 'metadata', 'nbformat', 'nbformat_minor']);
    const read = await cm.get('n.ipynb');
    expect(read).toMatchObject({ type: 'notebook', format: 'json', mimetype: null });
    expect(read.content).toEqual(served(nb));
    // type=file on a notebook returns its raw text; type=notebook on any file parses it
    expect((await cm.get('n.ipynb', { type: 'file' })).content).toBe(raw);
    await cm.save('copy.json', { type: 'file', format: 'text', content: raw });
    expect((await cm.get('copy.json', { type: 'notebook' })).content).toEqual(served(nb));
  });

  it('reports schema problems in `message` but rejects content that is no notebook at all', async () => {
    const bad = { ...notebook(), cells: [{ cell_type: 'code', id: 'x', metadata: {}, source: 1 }] };
    const saved = await cm.save('bad.ipynb', { type: 'notebook', content: bad });
    expect(saved.model.message).toMatch(/^Notebook validation failed: /);
    expect((await cm.get('bad.ipynb')).message).toMatch(/^Notebook validation failed: /);
    for (const content of ['text', [1, 2], { cells: [] }, { nbformat: 5, cells: [], metadata: {} }, null]) {
      await expectError(
        cm.save('x.ipynb', { type: 'notebook', content }),
        'bad-request',
        /not a notebook/,
        'bad notebook',
      );
    }
    expect(await cm.exists('x.ipynb')).toBe(false);
    await cm.save('broken.ipynb', { type: 'file', format: 'text', content: '{not json' });
    await expectError(cm.get('broken.ipynb'), 'bad-request', /^Unreadable Notebook: broken.ipynb /);
  });

  it('upgrades nbformat 3 notebooks to v4 on read', async () => {
    const v3 = v3Notebook('old', [
      { cell_type: 'heading', level: 2, source: 'Title', metadata: {} },
      v3CodeCell('x', 3, [v3Pyout(3, '1'), { output_type: 'stream', stream: 'stdout', text: 'hi\n' }]),
    ]);
    await cm.save('old.ipynb', { type: 'file', format: 'text', content: JSON.stringify(v3) });
    const model = await cm.get('old.ipynb');
    expect(model.message).toBeUndefined();
    const nb = model.content as { nbformat: number; cells: Record<string, unknown>[]; metadata: object };
    expect(nb.nbformat).toBe(4);
    expect(nb.metadata).toEqual({ orig_nbformat: 3, orig_nbformat_minor: 0 });
    expect(nb.cells[0]).toMatchObject({ cell_type: 'markdown', source: '## Title' });
    expect(nb.cells[1]).toMatchObject({
      cell_type: 'code',
      source: 'x',
      execution_count: 3,
      metadata: { collapsed: false },
      outputs: [
        { output_type: 'execute_result', execution_count: 3, data: { 'text/plain': '1' }, metadata: {} },
        { output_type: 'stream', name: 'stdout', text: 'hi\n' },
      ],
    });
  });

  it('lists directories sorted, without hidden entries or hide globs', async () => {
    await cm.save('sub', { type: 'directory' });
    for (const name of ['b.txt', 'A.txt', '.hidden', 'x.pyc', '__pycache__', 'z.ipynb', 'a.ipynb']) {
      if (name === '__pycache__') await cm.store.mkdir(name);
      else await cm.store.write(name, new TextEncoder().encode('{}'));
    }
    await cm.store.mkdir('Zdir');
    const root = await cm.get('');
    const children = root.content as ContentsModel[];
    expect(children.map((c) => c.name)).toEqual(['sub', 'Zdir', 'a.ipynb', 'z.ipynb', 'A.txt', 'b.txt']);
    for (const child of children) {
      expect(child.content).toBeNull();
      expect(child.format).toBeNull();
      expect(child.last_modified).toMatch(ISO);
    }
    expect(children[0]).toMatchObject({ type: 'directory', size: null, mimetype: null });
    expect(children[2]).toMatchObject({ type: 'notebook', size: 2, mimetype: null });
    expect(children[4]).toMatchObject({ type: 'file', mimetype: 'text/plain' });
    // hidden entries are 404 by path, hide-glob entries are still readable by path
    await expectError(cm.get('.hidden'), 'not-found', "file or directory does not exist: '.hidden'");
    expect((await cm.get('x.pyc')).type).toBe('file');
    const everything = new ContentsManager({ store: cm.store, allowHidden: true, hideGlobs: [] });
    const all = (await everything.get('')).content as ContentsModel[];
    expect(all.map((c) => c.name)).toContain('.hidden');
    expect(all.map((c) => c.name)).toContain('__pycache__');
  });

  it('refuses a save whose body names a hidden path, unless hidden files are allowed (jupyter_server 2.x)', async () => {
    const text = { type: 'file', format: 'text', content: 'x' };
    await expectError(
      cm.save('up.txt', { ...text, path: '.hidden/up.txt' }),
      'bad-request',
      "Cannot create file or directory 'up.txt'",
    );
    await expectError(cm.save('up.txt', { ...text, path: 'a/.b' }), 'bad-request');
    expect(await cm.exists('up.txt')).toBe(false);
    // the body's path is only checked: the file goes where the caller says
    expect((await cm.save('up.txt', { ...text, path: 'elsewhere.txt' })).model.path).toBe('up.txt');
    const everything = new ContentsManager({ store: cm.store, allowHidden: true });
    expect((await everything.save('up2.txt', { ...text, path: '.hidden/up.txt' })).created).toBe(true);
  });

  it('pages big directories on request and leaves the default model alone', async () => {
    for (const name of ['d1', 'd2']) await cm.save(name, { type: 'directory' });
    for (let i = 0; i < 5; i++) await cm.save(`f${i}.txt`, { type: 'file', format: 'text', content: '' });
    const full = await cm.get('');
    expect(full.total).toBeUndefined();
    expect(full.content as ContentsModel[]).toHaveLength(7);
    const page = await cm.get('', { page: { offset: 1, limit: 3 } });
    expect((page.content as ContentsModel[]).map((m) => m.name)).toEqual(['d2', 'f0.txt', 'f1.txt']);
    expect(page.total).toBe(7);
    const beyond = await cm.get('', { page: { offset: 50, limit: 10 } });
    expect(beyond.content).toEqual([]);
    expect(beyond.total).toBe(7);
  });

  it('enforces type and format rules on get', async () => {
    await cm.save('d', { type: 'directory' });
    await cm.save('f.txt', { type: 'file', format: 'text', content: '' });
    await expectError(cm.get('d', { type: 'notebook' }), 'bad-request', 'd is a directory, not a notebook', 'bad type');
    await expectError(cm.get('d', { type: 'file' }), 'bad-request', 'd is a directory, not a file', 'bad type');
    await expectError(cm.get('f.txt', { type: 'directory' }), 'bad-request', 'f.txt is not a directory', 'bad type');
    await expectError(cm.get('missing.txt'), 'not-found', "file or directory does not exist: 'missing.txt'");
    expect((await cm.get('d', { content: false })).content).toBeNull();
  });

  it('validates save bodies with Jupyter messages and writes nothing on error', async () => {
    await cm.store.write('a.txt', new TextEncoder().encode('kept'));
    await expectError(cm.save('a.txt', {}), 'bad-request', 'No file type provided');
    await expectError(cm.save('a.txt', { type: 'file' }), 'bad-request', 'No file content provided');
    await expectError(
      cm.save('a.txt', { type: 'file', content: 'x' }),
      'bad-request',
      "Must specify format of file contents as 'text' or 'base64'",
    );
    await expectError(cm.save('a.txt', { type: 'bogus', content: 'x' }), 'bad-request', /Unhandled contents type/);
    // where no file is yet, an unknown type or format is refused too, not made a new empty file
    await expectError(cm.save('new.txt', { type: 'bogus' }), 'bad-request', 'Unhandled contents type: bogus');
    await expectError(cm.save('new.ipynb', { type: 'notebook', format: 'bogus' }), 'bad-request', /Format 'bogus'/);
    expect(await cm.store.stat('new.txt')).toBeNull();
    expect(await cm.store.stat('new.ipynb')).toBeNull();
    await expectError(
      cm.save('a.txt', { type: 'file', format: 'base64', content: '!!!' }),
      'bad-request',
      /Encoding error/,
    );
    await expectError(cm.save('a.txt', { type: 'file', format: 'text', content: 5 }), 'bad-request', /Encoding error/);
    await expectError(cm.save('.a.txt', { type: 'file', format: 'text', content: '' }), 'bad-request', /Cannot create/);
    await expectError(cm.save('no/dir/a.txt', { type: 'file', format: 'text', content: '' }), 'not-found');
    await expectError(
      cm.save('../a.txt', { type: 'file', format: 'text', content: '' }),
      'bad-request',
      /Invalid path/,
    );
    expect(((await cm.get('')).content as ContentsModel[]).map((m) => m.name)).toEqual(['a.txt']);
    expect((await cm.get('a.txt')).content).toBe('kept');
  });

  it('creates empty files and notebooks for a PUT without content to a new path, as jupyter_server new()', async () => {
    const nb = await cm.save('fresh.ipynb', {});
    expect(nb).toMatchObject({ created: true, model: { type: 'notebook' } });
    expect((await cm.get('fresh.ipynb')).content).toEqual({ cells: [], metadata: {}, nbformat: 4, nbformat_minor: 5 });
    const file = await cm.save('fresh.py', { format: 'text', content: 'x = 1' });
    expect(file.model).toMatchObject({ type: 'file', size: 5 });
    expect((await cm.save('empty.txt', { type: 'file' })).model.size).toBe(0);
    await expectError(cm.save('fresh.py', {}), 'bad-request', 'No file type provided');
  });

  it('makes directories with PUT and refuses a directory over a file and vice versa', async () => {
    expect((await cm.save('d', { type: 'directory' })).created).toBe(true);
    // an existing directory counts as created too (201), as in jupyter_server
    expect(await cm.save('d', { type: 'directory' })).toMatchObject({ created: true, model: { type: 'directory' } });
    await cm.save('f', { type: 'file', format: 'text', content: '' });
    await expectError(cm.save('f', { type: 'directory' }), 'bad-request', 'Not a directory: f');
    await expectError(cm.save('d', { type: 'file', format: 'text', content: '' }), 'bad-request', 'd is a directory');
  });

  it('assembles chunked uploads', async () => {
    const parts = ['first-', 'second-', 'last'];
    const r1 = await cm.save('big.bin', {
      type: 'file',
      format: 'base64',
      chunk: 1,
      content: Buffer.from(parts[0] as string).toString('base64'),
    });
    expect(r1.created).toBe(true);
    await cm.save('big.bin', {
      type: 'file',
      format: 'base64',
      chunk: 2,
      content: Buffer.from('second-').toString('base64'),
    });
    const last = await cm.save('big.bin', {
      type: 'file',
      format: 'base64',
      chunk: -1,
      content: Buffer.from('last').toString('base64'),
    });
    expect(last.created).toBe(false);
    expect(last.model.size).toBe(parts.join('').length);
    expect((await cm.get('big.bin')).content).toBe(parts.join(''));
    await expectError(
      cm.save('n.ipynb', { type: 'notebook', chunk: 1, content: notebook() }),
      'bad-request',
      /large file/,
    );
    await expectError(
      cm.save('big.bin', { type: 'file', format: 'text', chunk: 0, content: '' }),
      'bad-request',
      /Invalid chunk/,
    );
  });

  it('protects saves against concurrent changes with hash and last_modified preconditions', async () => {
    const first = await cm.save('doc.txt', { type: 'file', format: 'text', content: 'v1' });
    const hash1 = first.model.hash as string;
    const second = await cm.save('doc.txt', { type: 'file', format: 'text', content: 'v2' }, { hash: `"${hash1}"` });
    await expectError(
      cm.save('doc.txt', { type: 'file', format: 'text', content: 'v3' }, { hash: hash1 }),
      'conflict',
      'File changed on disk since it was loaded: doc.txt',
      'changed on disk',
    );
    expect((await cm.get('doc.txt')).content).toBe('v2');
    const lm = second.model.last_modified;
    await cm.save('doc.txt', { type: 'file', format: 'text', content: 'v3' }, { lastModified: lm });
    const stale = new Date(Date.parse(lm) - 5000).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
    await expectError(
      cm.save('doc.txt', { type: 'file', format: 'text', content: 'v4' }, { lastModified: stale }),
      'conflict',
    );
    await expectError(
      cm.save('doc.txt', { type: 'file', format: 'text', content: 'v4' }, { lastModified: 'yesterday' }),
      'bad-request',
    );
    await expectError(cm.save('new.txt', { type: 'file', format: 'text', content: 'v1' }, { hash: hash1 }), 'conflict');
    expect((await cm.get('doc.txt')).content).toBe('v3');
  });

  it('copies with -CopyN naming, stripping an existing suffix', async () => {
    await cm.save('a.ipynb', { type: 'notebook', content: notebook() });
    await cm.save('sub', { type: 'directory' });
    expect((await cm.copy('a.ipynb', '')).name).toBe('a-Copy1.ipynb');
    expect((await cm.copy('a.ipynb', '')).name).toBe('a-Copy2.ipynb');
    expect((await cm.copy('a-Copy2.ipynb', '')).name).toBe('a-Copy3.ipynb');
    expect((await cm.copy('a-Copy2.ipynb', 'sub')).path).toBe('sub/a.ipynb');
    expect((await cm.copy('a.ipynb', 'sub')).path).toBe('sub/a-Copy1.ipynb');
    await cm.save('data.tar.gz', { type: 'file', format: 'base64', content: 'AAAA' });
    expect((await cm.copy('data.tar.gz', '')).name).toBe('data-Copy1.tar.gz');
    expect((await cm.copy('a.ipynb', 'exact.ipynb')).path).toBe('exact.ipynb');
    expect(await cm.listCheckpoints('exact.ipynb')).toHaveLength(1);
    await cm.save('sub/inner.txt', { type: 'file', format: 'text', content: 'in' });
    const dirCopy = await cm.copy('sub', '');
    expect(dirCopy).toMatchObject({ name: 'sub-Copy1', type: 'directory' });
    expect((await cm.get('sub-Copy1/inner.txt')).content).toBe('in');
    await expectError(cm.copy('sub', 'sub'), 'bad-request', /into itself/);
    await expectError(cm.copy('missing.ipynb', ''), 'not-found', 'File or directory does not exist: missing.ipynb');
    await expectError(cm.copy('a.ipynb', 'nodir/x.ipynb'), 'not-found', /No such parent directory/);
    await expectError(cm.copy('a.ipynb', 'data.tar.gz'), 'conflict');
    await cm.store.mkdir('.hid');
    await expectError(cm.copy('a.ipynb', '.hid'), 'bad-request', "Cannot copy file or directory '.hid'");
  });

  it('renames files and directories, moving checkpoints along', async () => {
    await cm.save('a.ipynb', { type: 'notebook', content: notebook() });
    await cm.save('b.txt', { type: 'file', format: 'text', content: 'b' });
    await cm.save('dir', { type: 'directory' });
    const renamed = await cm.rename('a.ipynb', 'dir/c.ipynb');
    expect(renamed).toMatchObject({ path: 'dir/c.ipynb', name: 'c.ipynb', type: 'notebook', content: null });
    expect(await cm.listCheckpoints('dir/c.ipynb')).toHaveLength(1);
    await expectError(cm.get('a.ipynb'), 'not-found');
    await expectError(cm.rename('b.txt', 'dir/c.ipynb'), 'conflict', 'File already exists: dir/c.ipynb');
    await expectError(cm.rename('nope', 'x'), 'not-found', 'File or directory does not exist: nope');
    await expectError(cm.rename('b.txt', '.b.txt'), 'bad-request', "Cannot rename file or directory '.b.txt'");
    await expectError(cm.rename('dir', 'dir/inner'), 'bad-request');
    await expectError(cm.rename('b.txt', 'missing/b.txt'), 'not-found');
    expect((await cm.rename('b.txt', 'b.txt')).path).toBe('b.txt');
    await cm.rename('dir', 'moved');
    expect(await cm.listCheckpoints('moved/c.ipynb')).toHaveLength(1);
    expect((await cm.get('moved/c.ipynb')).content).toEqual(served(notebook()));
  });

  it('deletes files and empty directories; a non-empty directory is a 400', async () => {
    await cm.save('dir', { type: 'directory' });
    await cm.save('dir/n.ipynb', { type: 'notebook', content: notebook() });
    await expectError(cm.delete('dir'), 'bad-request', 'Directory dir not empty');
    await cm.delete('dir/n.ipynb');
    expect(await cm.exists('dir/n.ipynb')).toBe(false);
    // only the checkpoint directory is left: counts as empty
    await cm.delete('dir');
    expect(await cm.exists('dir')).toBe(false);
    await expectError(cm.delete('dir'), 'not-found', 'File or directory does not exist: dir');
    await expectError(cm.delete(''), 'bad-request');
    await cm.store.write('.dot', new Uint8Array());
    await expectError(cm.delete('.dot'), 'bad-request', "Cannot delete file or directory '.dot'");
  });

  it('creates, lists, restores and deletes checkpoints', async () => {
    await cm.save('n.ipynb', { type: 'notebook', content: notebook('v1') });
    const [auto] = await cm.listCheckpoints('n.ipynb');
    expect(auto?.id).toMatch(/^\d{8}T\d{12}Z$/);
    expect(auto?.last_modified).toMatch(ISO);
    await cm.save('n.ipynb', { type: 'notebook', content: notebook('v2') });
    // `checkpoint`, jupyter_server's one id, names the newest
    await cm.restoreCheckpoint('n.ipynb', 'checkpoint');
    expect((await cm.get('n.ipynb')).content).toEqual(served(notebook('v1')));
    await cm.save('n.ipynb', { type: 'notebook', content: notebook('v3') });
    const created = await cm.createCheckpoint('n.ipynb');
    expect(created.id).not.toBe(auto?.id);
    expect(await cm.listCheckpoints('n.ipynb')).toEqual([auto, created]);
    await cm.save('n.ipynb', { type: 'notebook', content: notebook('v4') });
    await cm.restoreCheckpoint('n.ipynb', 'checkpoint');
    expect((await cm.get('n.ipynb')).content).toEqual(served(notebook('v3')));
    await cm.restoreCheckpoint('n.ipynb', auto?.id ?? '');
    expect((await cm.get('n.ipynb')).content).toEqual(served(notebook('v1')));
    await expectError(
      cm.restoreCheckpoint('n.ipynb', 'other'),
      'not-found',
      'Checkpoint does not exist: n.ipynb@other',
    );
    await cm.deleteCheckpoint('n.ipynb', created.id);
    expect(await cm.listCheckpoints('n.ipynb')).toEqual([auto]);
    await cm.deleteCheckpoint('n.ipynb', 'checkpoint');
    expect(await cm.listCheckpoints('n.ipynb')).toEqual([]);
    await expectError(cm.deleteCheckpoint('n.ipynb', 'checkpoint'), 'not-found');
    await expectError(cm.createCheckpoint('missing.ipynb'), 'not-found');
    await cm.save('d', { type: 'directory' });
    await expectError(cm.createCheckpoint('d'), 'bad-request');
    // the checkpoint directory is hidden from listings and from the API
    expect(((await cm.get('')).content as ContentsModel[]).map((c) => c.name)).toEqual(['d', 'n.ipynb']);
  });

  it('signs notebooks saved from trusted cells and trusts others only on request', async () => {
    const html = {
      cells: [
        {
          cell_type: 'code',
          id: 'h',
          metadata: {},
          source: 'display(HTML(...))',
          execution_count: 1,
          outputs: [{ output_type: 'display_data', metadata: {}, data: { 'text/html': '<script>x()</script>' } }],
        },
        { cell_type: 'markdown', id: 'm', metadata: {}, source: 'text' },
      ],
      metadata: {},
      nbformat: 4,
      nbformat_minor: 5,
    };
    const trustedFlags = async (path: string) =>
      ((await cm.get(path)).content as { cells: { cell_type: string; metadata: { trusted?: boolean } }[] }).cells.map(
        (c) => c.metadata.trusted,
      );
    // rich output the client did not vouch for: untrusted (markdown cells carry no flag)
    await cm.save('h.ipynb', { type: 'notebook', content: html });
    expect(await trustedFlags('h.ipynb')).toEqual([false, undefined]);
    // the user trusts it explicitly
    await cm.trust('h.ipynb');
    expect(await trustedFlags('h.ipynb')).toEqual([true, undefined]);
    // the client re-ran the cell (metadata.trusted), so the save is signed; the flag is never stored
    const rerun = markCells(html, true);
    await cm.save('h2.ipynb', { type: 'notebook', content: rerun });
    expect(await trustedFlags('h2.ipynb')).toEqual([true, undefined]);
    expect(new TextDecoder().decode(await cm.store.read('h2.ipynb'))).not.toContain('trusted');
    // edited behind the server's back: no longer trusted
    const edited = new TextDecoder().decode(await cm.store.read('h2.ipynb')).replace('x()', 'y()');
    await cm.store.write('h2.ipynb', new TextEncoder().encode(edited));
    expect(await trustedFlags('h2.ipynb')).toEqual([false, undefined]);
    await cm.save('plain.txt', { type: 'file', format: 'text', content: 'x' });
    await expectError(cm.trust('plain.txt'), 'bad-request', /^Unreadable Notebook: plain.txt/);
    await expectError(cm.trust('missing.ipynb'), 'not-found');
  });

  it('serializes concurrent saves of one path', async () => {
    const writes = Array.from({ length: 20 }, (_, i) =>
      cm.save('race.txt', { type: 'file', format: 'text', content: `version ${i}`.repeat(1000) }),
    );
    const results = await Promise.all(writes);
    expect(results.filter((r) => r.created)).toHaveLength(1);
    const content = (await cm.get('race.txt')).content as string;
    expect(/^(version \d+)\1*$/.test(content)).toBe(true);
  });

  it('saves big notebooks one after another and at once, each exactly (the save buffer is reused)', async () => {
    const { createHash } = await import('node:crypto');
    const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
    const big = (fill: string, chars: number) => {
      const nb = notebook(`print("${fill}")`);
      const cell = {
        ...nb.cells[0],
        outputs: [{ output_type: 'display_data', metadata: {}, data: { 'image/png': fill.repeat(chars) } }],
      };
      return { ...nb, cells: [cell] };
    };
    const check = async (path: string, nb: ReturnType<typeof big>, hash: string | undefined | null) => {
      const bytes = await cm.store.read(path);
      expect(Buffer.compare(Buffer.from(bytes), serializeNotebook(structuredClone(nb)))).toBe(0);
      expect(sha256(bytes)).toBe(hash);
    };
    // bigger, smaller (into the bigger buffer), bigger again; the checkpoint stays the first save
    const first = big('A', 3_000_000);
    for (const nb of [first, big('B', 1_500_000), big('C', 4_000_000)]) {
      const saved = await cm.save('big.ipynb', { type: 'notebook', content: structuredClone(nb) });
      await check('big.ipynb', nb, saved.model.hash);
      await check('.ipynb_checkpoints/big-checkpoint.ipynb', first, sha256(serializeNotebook(structuredClone(first))));
    }
    const many = ['D', 'E', 'F', 'G'].map((fill, i) => ({
      path: `at-once-${i}.ipynb`,
      nb: big(fill, 2_000_000 + i * 1000),
    }));
    const results = await Promise.all(
      many.map(({ path, nb }) => cm.save(path, { type: 'notebook', content: structuredClone(nb) })),
    );
    for (const [i, { path, nb }] of many.entries()) await check(path, nb, results[i]?.model.hash);
  });
});

describe('concurrent listings', () => {
  /** A MemoryStore whose listings wait for a gate, so requests overlap deterministically. */
  class GatedStore extends MemoryStore {
    lists = 0;
    gate: Promise<void> = Promise.resolve();
    override async list(path: string) {
      this.lists++;
      const entries = await super.list(path);
      await this.gate;
      return entries;
    }
  }

  it('share one listing while nothing changes, and never hide a write that finished before the request', async () => {
    const store = new GatedStore();
    const cm = new ContentsManager({ store });
    await cm.save('a.txt', { type: 'file', format: 'text', content: 'a' });
    let open!: () => void;
    store.gate = new Promise((resolve) => {
      open = resolve;
    });
    const first = cm.get('');
    const second = cm.get('');
    await new Promise((resolve) => setImmediate(resolve));
    expect(store.lists).toBe(1); // the second request joined the first listing
    // a write finishes while that listing is still in flight
    await cm.save('b.txt', { type: 'file', format: 'text', content: 'b' });
    const third = cm.get('');
    await new Promise((resolve) => setImmediate(resolve));
    expect(store.lists).toBe(2); // a fresh listing, not the stale shared one
    open();
    const names = async (p: Promise<ContentsModel>) => ((await p).content as ContentsModel[]).map((m) => m.name);
    expect(await names(first)).toEqual(['a.txt']);
    expect(await names(second)).toEqual(['a.txt']);
    expect(await names(third)).toEqual(['a.txt', 'b.txt']);
    // callers get their own copies
    const [x, y] = await Promise.all([cm.get(''), cm.get('')]);
    const mine = (x.content as ContentsModel[])[0] as ContentsModel;
    mine.name = 'changed';
    expect((y.content as ContentsModel[])[0]?.name).toBe('a.txt');
  });
});
