import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { v4CodeCell, v4Notebook } from '../../../testing/notebooks.js';
import { makeTempDir, removeDir } from '../../../testing/temp.js';
import { waitFor } from '../../../testing/wait.js';
import { CollaborationManager, ContentsManager, FileSystemStore, MemoryStore } from '../src/index.js';

/** How a room learns that its file changed: a watch where the store has one, else polling. */
describe('collaboration: watching the file', () => {
  let dir: string;
  let root: string;

  beforeEach(async () => {
    dir = await makeTempDir();
    root = path.join(dir, 'root');
    await fs.mkdir(root);
  });

  afterEach(async () => {
    await removeDir(dir);
  });

  it('FileSystemStore.watchFile sees in-place writes and atomic renames of the file, not its neighbours', async () => {
    const store = new FileSystemStore(root);
    await fs.writeFile(path.join(root, 'a.txt'), 'a');
    await fs.writeFile(path.join(root, 'b.txt'), 'b');
    let seen = 0;
    let neighbour = 0;
    const watch = await store.watchFile('a.txt', () => seen++);
    // b.txt's own watch: its event comes in the same batch from the directory as any a.txt's would
    const other = await store.watchFile('b.txt', () => neighbour++);
    expect(watch).not.toBeNull();
    try {
      await fs.writeFile(path.join(root, 'b.txt'), 'b2');
      await waitFor(() => neighbour > 0, { what: 'the neighbour written' });
      expect(seen).toBe(0);
      await fs.writeFile(path.join(root, 'a.txt'), 'in place');
      await waitFor(() => seen > 0, { what: 'an in-place write' });
      const before = seen;
      await fs.writeFile(path.join(root, '.a.tmp'), 'renamed over');
      await fs.rename(path.join(root, '.a.tmp'), path.join(root, 'a.txt'));
      await waitFor(() => seen > before, { what: 'a rename over the file' });
    } finally {
      watch?.close();
      other?.close();
    }
    expect(await store.watchFile('missing.txt', () => undefined)).toBeNull();
  });

  it('a store that cannot watch is polled every pollMs', async () => {
    const store = new MemoryStore();
    const contents = new ContentsManager({ store });
    const write = (source: string) =>
      store.write('nb.ipynb', new TextEncoder().encode(JSON.stringify(v4Notebook([v4CodeCell(source)]))));
    await write('x = 1');
    const collab = new CollaborationManager({ contents, dataDir: path.join(dir, 'data'), pollMs: 50 });
    try {
      const { fileId } = await collab.session('nb.ipynb', 'json', 'notebook');
      const room = await collab.room(`json:notebook:${fileId}`);
      const release = room.hold();
      await write('x = 2');
      await waitFor(() => room.document.notebook?.getCell(0).getSource() === 'x = 2', { what: 'the polled change' });
      release();
    } finally {
      await collab.close();
    }
  });
});
