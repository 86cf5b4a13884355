import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { v4CodeCell, v4Notebook } from '../../../testing/notebooks.js';
import { makeTempDir, removeDir } from '../../../testing/temp.js';
import { DocumentFile } from '../src/collaboration/document-file.js';
import { ContentsManager, FileSystemStore, type WriteOptions } from '../src/index.js';

/** A real FileSystemStore where another program rewrites the file right after a read or a write of it. */
class RacingStore extends FileSystemStore {
  afterRead: (() => Promise<void>) | undefined;
  afterWrite: (() => Promise<void>) | undefined;
  /** Runs as a write begins: after the save checked its precondition, before the file is replaced. */
  duringWrite: (() => Promise<void>) | undefined;

  override async readInto(file: string, take: (length: number) => Uint8Array): Promise<Uint8Array> {
    const bytes = await super.readInto(file, take);
    await this.#run('afterRead');
    return bytes;
  }

  override async read(file: string): Promise<Uint8Array> {
    const bytes = await super.read(file);
    await this.#run('afterRead');
    return bytes;
  }

  override async write(file: string, data: Uint8Array, options?: WriteOptions): Promise<void> {
    await this.#run('duringWrite');
    await super.write(file, data, options);
    await this.#run('afterWrite');
  }

  async #run(hook: 'afterRead' | 'afterWrite' | 'duringWrite'): Promise<void> {
    const run = this[hook];
    this[hook] = undefined;
    await run?.();
  }
}

const notebook = (source: string) => JSON.stringify(v4Notebook([v4CodeCell(source, { id: 'one' })]));
const sourceOf = (content: unknown) => (content as { cells: { source: string }[] }).cells[0]?.source;

/**
 * How a room tells its file changed (DocumentFile.statChanged after a load or a save) when another
 * program's rewrite lands in the middle: the rewrite is seen at the next look, never taken for
 * the version the room read or wrote (a git checkout's last rewrite was lost that way).
 */
describe('collaboration: a rewrite racing the room', () => {
  let dir: string;
  let store: RacingStore;
  let file: DocumentFile;
  let onDisk: string;

  /** Another program's atomic save (a temp file renamed over). */
  const rewrite = (source: string) => async () => {
    await fs.writeFile(`${onDisk}.tmp`, notebook(source));
    await fs.rename(`${onDisk}.tmp`, onDisk);
  };

  beforeEach(async () => {
    dir = await makeTempDir();
    await fs.mkdir(path.join(dir, 'root'));
    store = new RacingStore(path.join(dir, 'root'));
    file = new DocumentFile(new ContentsManager({ store }), path.join(dir, 'meta.json'), 'json:notebook');
    onDisk = path.join(dir, 'root', 'nb.ipynb');
    await fs.writeFile(onDisk, notebook('first'));
  });

  afterEach(async () => {
    await removeDir(dir);
  });

  it('a rewrite landing while the file is read shows at the next look', async () => {
    store.afterRead = rewrite('rewritten while read');
    const loaded = await file.load('nb.ipynb');
    expect(sourceOf(loaded.content)).toBe('first');
    expect(await file.statChanged('nb.ipynb')).toBe(true);
    expect(sourceOf((await file.load('nb.ipynb')).content)).toBe('rewritten while read');
    expect(await file.statChanged('nb.ipynb')).toBe(false);
  });

  it('a rewrite landing right after the room saved shows at the next look', async () => {
    const loaded = await file.load('nb.ipynb');
    await file.remember(loaded.hash);
    store.afterWrite = rewrite('rewritten after the save');
    const saved = await file.save('nb.ipynb', JSON.parse(notebook('saved by the room')));
    expect(saved.changed).toBe(false);
    expect(await file.statChanged('nb.ipynb')).toBe(true);
    const now = await file.load('nb.ipynb');
    expect(sourceOf(now.content)).toBe('rewritten after the save');
    expect(now.hash).not.toBe(file.hash);
  });

  it('a rewrite landing while the room writes (after its save checked the file) is not overwritten', async () => {
    const loaded = await file.load('nb.ipynb');
    await file.remember(loaded.hash);
    store.duringWrite = rewrite('rewritten during the save');
    const saved = await file.save('nb.ipynb', JSON.parse(notebook('saved by the room')));
    expect(saved.changed).toBe(true);
    expect(sourceOf(JSON.parse(await fs.readFile(onDisk, 'utf8')))).toBe('rewritten during the save');
    expect((await fs.readdir(path.dirname(onDisk))).filter((name) => name !== '.ipynb_checkpoints')).toEqual([
      'nb.ipynb',
    ]);
  });
});
