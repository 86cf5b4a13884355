import * as fs from 'node:fs/promises';
import * as nodePath from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backToRealTime, settleDirectories, useRealClock, useTestClock } from '../../../testing/clock.js';
import { CountingStore } from '../../../testing/counting-store.js';
import { makeTempDir } from '../../../testing/temp.js';
import { SortedNamesCache } from '../src/contents/cache/sorted-names.js';
import { byName } from '../src/contents/sort-names.js';
import { ContentsManager, type ContentsModel } from '../src/index.js';

/**
 * The paged listing reuses a big folder's sorted names while the directory's version (device,
 * inode, mtime, ctime; only once settled) holds: whatever another program adds, removes or renames
 * directly on disk shows in the next page, and the entries' stats are always fresh.
 */
const COUNT = 3000;
let root: string;
let big: string;
let store: CountingStore;
let cm: ContentsManager;

const names = (model: ContentsModel) => (model.content as ContentsModel[]).map((m) => m.name);
const firstPage = () => cm.get('big', { page: { offset: 0, limit: 5 } });

beforeAll(async () => {
  useTestClock();
  root = await makeTempDir('nbserve-pages-');
  big = nodePath.join(root, 'big');
  await fs.mkdir(big);
  for (let i = 0; i < COUNT; i += 500) {
    await Promise.all(
      Array.from({ length: 500 }, (_, k) =>
        fs.writeFile(nodePath.join(big, `f${String(i + k).padStart(5, '0')}.txt`), ''),
      ),
    );
  }
  store = new CountingStore(root);
  cm = new ContentsManager({ store });
}, 60_000);

afterAll(async () => {
  useRealClock();
  await fs.rm(root, { recursive: true, force: true });
});

describe('first pages of a big folder', () => {
  it('reads a settled folder once, and sees entries added, renamed and removed by other programs', async () => {
    // just written: no version yet, each page reads the folder
    expect(await store.directoryVersion('big')).toBeNull();
    settleDirectories();
    const version = await store.directoryVersion('big');
    expect(version).toMatch(/^\d+:\d+:\d+:\d+$/);
    const reads = store.listings;
    expect(names(await firstPage())).toEqual(['f00000.txt', 'f00001.txt', 'f00002.txt', 'f00003.txt', 'f00004.txt']);
    const again = await firstPage();
    expect(store.listings).toBe(reads + 1);
    expect(again.total).toBe(COUNT);

    // the stats are never cached: a size written meanwhile shows
    await fs.writeFile(nodePath.join(big, 'f00001.txt'), 'hello');
    expect((again.content as ContentsModel[])[1]?.size).toBe(0);
    expect(((await firstPage()).content as ContentsModel[])[1]?.size).toBe(5);
    // (writing into a file leaves the folder's version alone)
    expect(store.listings).toBe(reads + 1);

    // added: seen at once (a folder changed just now has no version) and after it settled
    backToRealTime();
    await fs.writeFile(nodePath.join(big, 'a-new.txt'), '');
    expect(await store.directoryVersion('big')).toBeNull();
    expect(names(await firstPage())[0]).toBe('a-new.txt');
    settleDirectories();
    expect(await store.directoryVersion('big')).not.toBe(version);
    const added = await firstPage();
    expect(names(added)[0]).toBe('a-new.txt');
    expect(added.total).toBe(COUNT + 1);

    // renamed, then the folder settles before the next page: a new version, read afresh
    backToRealTime();
    await fs.rename(nodePath.join(big, 'a-new.txt'), nodePath.join(big, 'b-renamed.txt'));
    settleDirectories();
    expect(names(await firstPage())[0]).toBe('b-renamed.txt');

    // removed
    backToRealTime();
    await fs.rm(nodePath.join(big, 'b-renamed.txt'));
    await fs.rm(nodePath.join(big, 'f00000.txt'));
    settleDirectories();
    const removed = await firstPage();
    expect(names(removed)[0]).toBe('f00001.txt');
    expect(removed.total).toBe(COUNT - 1);

    // a change through the manager forgets the names at once
    await cm.save('big/a-saved.txt', { type: 'file', format: 'text', content: '' });
    expect(names(await firstPage())[0]).toBe('a-saved.txt');
  }, 60_000);

  it('lists folders holding symbolic links afresh each time (where a link leads can change)', async () => {
    const linked = nodePath.join(root, 'linked');
    await fs.mkdir(linked);
    await fs.mkdir(nodePath.join(root, 'target'));
    await Promise.all(Array.from({ length: COUNT }, (_, i) => fs.writeFile(nodePath.join(linked, `g${i}.txt`), '')));
    await fs.symlink(nodePath.join(root, 'target'), nodePath.join(linked, 'link'));
    settleDirectories();
    const page = () => cm.get('linked', { page: { offset: 0, limit: 2 } });
    const first = await page();
    expect((first.content as ContentsModel[])[0]).toMatchObject({ name: 'link', type: 'directory' });
    // the link now leads to a file: same folder version, other kind
    backToRealTime();
    await fs.rm(nodePath.join(root, 'target'), { recursive: true });
    await fs.writeFile(nodePath.join(root, 'target'), '');
    const reads = store.listings;
    const second = await page();
    expect(store.listings).toBe(reads + 1);
    expect((second.content as ContentsModel[]).map((m) => m.name)).not.toContain('link');
    expect(second.total).toBe(COUNT + 1);
  }, 60_000);
});

describe('SortedNamesCache', () => {
  it('answers only for the version it was given, keeps big folders only, and the four last used', () => {
    const cache = new SortedNamesCache();
    const names = Array.from({ length: SortedNamesCache.MIN_ENTRIES }, (_, i) => `n${i}`);
    const many = { names, directories: 3 };
    cache.set('small', 'v1', { names: ['a', 'b'], directories: 0 });
    expect(cache.get('small', 'v1')).toBeUndefined();
    cache.set('a', 'v1', many);
    expect(cache.get('a', 'v2')).toBeUndefined();
    // a stale version is dropped, not kept beside
    expect(cache.get('a', 'v1')).toBeUndefined();
    cache.set('a', 'v1', many);
    for (const dir of ['b', 'c', 'd']) cache.set(dir, 'v1', many);
    expect(cache.get('a', 'v1')).toEqual(many); // 'a' is now the most recently used
    cache.set('e', 'v1', many);
    expect(cache.get('b', 'v1')).toBeUndefined();
    expect(cache.get('a', 'v1')?.names).toBe(names);
    cache.clear();
    expect(cache.get('a', 'v1')).toBeUndefined();
  });
});

describe('byName', () => {
  const reference = (names: string[]) =>
    names
      .map((name, i) => ({ name, key: name.toLowerCase(), i }))
      .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.i - b.i))
      .map((e) => e.name);

  it('orders by lowercase name with or without upper-case letters, ties as given', () => {
    const lower = ['b.txt', 'a10', 'a2', 'é', 'z', 'a', '_x', '10', '9'];
    expect(byName(lower)).toEqual(reference(lower));
    expect(byName(lower)).toEqual(['10', '9', '_x', 'a', 'a10', 'a2', 'b.txt', 'z', 'é']);
    const mixed = ['B.txt', 'a', 'README', 'readme', 'Readme', 'b.txt', '_Z', 'z'];
    expect(byName(mixed)).toEqual(reference(mixed));
    expect(byName(mixed).filter((n) => n.toLowerCase() === 'readme')).toEqual(['README', 'readme', 'Readme']);
    const random = Array.from({ length: 5000 }, (_, i) =>
      ((i * 2654435761) % 4294967296).toString(36).replace(/[0-4]/g, (d) => 'QWERT'[Number(d)] as string),
    );
    expect(byName(random)).toEqual(reference(random));
    expect(byName(random.map((n) => n.toLowerCase()))).toEqual(reference(random.map((n) => n.toLowerCase())));
  });
});
