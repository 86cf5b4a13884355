import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as nodePath from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ContentsManager, FileSystemStore, type StoreNames } from '../src/index.js';

/** Counts how often a directory's names are read from disk. */
class CountingStore extends FileSystemStore {
  reads = 0;
  override async listKinds(path: string): Promise<StoreNames> {
    this.reads++;
    return super.listKinds(path);
  }
}

let root: string;
let store: CountingStore;
let contents: ContentsManager;

beforeAll(async () => {
  root = await fs.mkdtemp(nodePath.join(os.tmpdir(), 'nbserve-listing-names-'));
  store = new CountingStore(root);
  contents = new ContentsManager({ store });
});

afterAll(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

/** A directory with these files, its mtime and ctime left to age past the store's settling time. */
async function settledDir(name: string, files: string[]): Promise<string> {
  const dir = nodePath.join(root, name);
  await fs.mkdir(dir);
  for (const file of files) await fs.writeFile(nodePath.join(dir, file), 'x');
  await new Promise((resolve) => setTimeout(resolve, 1300));
  return dir;
}

/** The listing as a client gets it (past the 100 ms reuse of a served listing: built afresh). */
async function listed(path: string): Promise<{ name: string; size: number | null; last_modified: string }[]> {
  await new Promise((resolve) => setTimeout(resolve, 150));
  const { json } = await contents.getSerialized(path);
  const bytes = json instanceof Uint8Array ? json : new Uint8Array(await new Response(json).arrayBuffer());
  const text = Buffer.from(bytes).toString('utf8');
  expect(text).toBe(JSON.stringify(await contents.get(path)));
  return JSON.parse(text).content;
}

describe('the sorted names of a listed directory', () => {
  it('are read once while the directory is unchanged, and every entry is stat-ed afresh', async () => {
    const dir = await settledDir('settled', ['a.ipynb', 'b.txt', 'c.txt']);
    const reads = store.reads;
    expect((await listed('settled')).map((m) => m.name)).toEqual(['a.ipynb', 'b.txt', 'c.txt']);
    expect(store.reads).toBe(reads + 1);
    // another program rewrites a file in place: the directory does not change, the entry does
    await fs.writeFile(nodePath.join(dir, 'b.txt'), 'longer now');
    const later = new Date(Math.floor(Date.now() / 1000) * 1000 + 5000);
    await fs.utimes(nodePath.join(dir, 'c.txt'), later, later);
    const again = await listed('settled');
    expect(store.reads).toBe(reads + 1); // (get() in listed() reads through store.list)
    expect(again.find((m) => m.name === 'b.txt')?.size).toBe(10);
    expect(again.find((m) => m.name === 'c.txt')?.last_modified).toBe(later.toISOString().replace('.000Z', '.000000Z'));
  }, 30_000);

  it('show at once a file another program adds, removes or renames, even with the mtime set back', async () => {
    const dir = await settledDir('changing', ['one.ipynb', 'two.ipynb']);
    const names = async () => (await listed('changing')).map((m) => m.name);
    expect(await names()).toEqual(['one.ipynb', 'two.ipynb']);
    const { mtime } = await fs.stat(dir);
    await fs.writeFile(nodePath.join(dir, 'three.ipynb'), '{}');
    await fs.utimes(dir, mtime, mtime); // as rsync or `touch -d` would leave it
    expect(await names()).toEqual(['one.ipynb', 'three.ipynb', 'two.ipynb']);
    await new Promise((resolve) => setTimeout(resolve, 1300));
    expect(await names()).toEqual(['one.ipynb', 'three.ipynb', 'two.ipynb']);
    await fs.rm(nodePath.join(dir, 'one.ipynb'));
    expect(await names()).toEqual(['three.ipynb', 'two.ipynb']);
    await new Promise((resolve) => setTimeout(resolve, 1300));
    await fs.rename(nodePath.join(dir, 'two.ipynb'), nodePath.join(dir, 'zwei.ipynb'));
    expect(await names()).toEqual(['three.ipynb', 'zwei.ipynb']);
    await fs.mkdir(nodePath.join(dir, 'sub'));
    expect(await names()).toEqual(['sub', 'three.ipynb', 'zwei.ipynb']);
  }, 30_000);

  it('are read afresh every time in a directory with a symlink (its target can change kind unseen)', async () => {
    const dir = await settledDir('links', ['target.txt']);
    await fs.symlink('target.txt', nodePath.join(dir, 'link'));
    await new Promise((resolve) => setTimeout(resolve, 1300));
    expect((await listed('links')).map((m) => m.name)).toEqual(['link', 'target.txt']);
    const reads = store.reads;
    await fs.rm(nodePath.join(dir, 'target.txt'));
    await fs.mkdir(nodePath.join(dir, 'target.txt'));
    await fs.utimes(dir, new Date(0), new Date(0));
    // the link now ends at a directory: listed first, as a directory
    const now = await listed('links');
    expect(now.map((m) => m.name)).toEqual(['link', 'target.txt']);
    expect(store.reads).toBe(reads + 1);
    expect(now.every((m) => m.size === null)).toBe(true);
  }, 30_000);

  it('are in case-insensitive order within each kind, ties the same in every listing form', async () => {
    await settledDir('cases', ['b.txt', 'B.txt', 'A.txt', 'a.txt', 'Ä.txt', 'ä.txt', 'a.ipynb', 'Z.ipynb']);
    await fs.mkdir(nodePath.join(root, 'cases', 'Sub'));
    await fs.mkdir(nodePath.join(root, 'cases', 'apple'));
    const expected = ['apple', 'Sub', 'a.ipynb', 'Z.ipynb', 'a.txt', 'A.txt', 'b.txt', 'B.txt', 'ä.txt', 'Ä.txt'];
    expect((await listed('cases')).map((m) => m.name)).toEqual(expected);
    const page = await contents.get('cases', { page: { offset: 2, limit: 5 } });
    expect((page.content as { name: string }[]).map((m) => m.name)).toEqual(expected.slice(2, 7));
  }, 30_000);
});
