import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  advanceClock,
  LISTING_REUSE_PAST_MS,
  settleDirectories,
  useRealClock,
  useTestClock,
} from '../../../testing/clock.js';
import { CountingStore } from '../../../testing/counting-store.js';
import { makeTempDirSync } from '../../../testing/temp.js';
import { type KeptListing, KeptListings, ListedStats } from '../src/contents/cache/kept-listings.js';
import { type ChildrenWatch, ContentsManager, type ContentsStore, FileSystemStore } from '../src/index.js';

/** Past the 100 ms in which any listing is served again as it was (see ServedListings). */
const pastReuse = () => advanceClock(LISTING_REUSE_PAST_MS);

let root: string;
const FILES = KeptListings.MIN_ENTRIES + 100;

async function listing(contents: ContentsManager, path: string): Promise<string> {
  const { json } = await contents.getSerialized(path);
  return Buffer.from(await new Response(json).arrayBuffer()).toString('utf8');
}

/** The listing a store that never saw the directory gives. */
function fresh(path: string): Promise<string> {
  return listing(new ContentsManager({ store: new FileSystemStore(root) }), path);
}

function entry(text: string, name: string) {
  const found = (JSON.parse(text).content as { name: string; size: number | null; last_modified: string }[]).find(
    (e) => e.name === name,
  );
  if (!found) throw new Error(`${name} is not listed`);
  return found;
}

function fill(dir: string, subdirectories: string[] = []) {
  fs.mkdirSync(dir, { recursive: true });
  for (let i = 0; i < FILES; i++) fs.writeFileSync(nodePath.join(dir, `f${String(i).padStart(5, '0')}.txt`), 'x');
  for (const sub of subdirectories) fs.mkdirSync(nodePath.join(dir, sub));
}

beforeAll(async () => {
  root = makeTempDirSync('nbserve-kept-');
  fill(nodePath.join(root, 'big'), ['sub1', 'sub2']);
  fill(nodePath.join(root, 'linked'));
  fs.symlinkSync('f00000.txt', nodePath.join(root, 'linked', 'alias.txt'));
  fill(nodePath.join(root, 'many-subdirectories'), [
    ...Array.from({ length: KeptListings.MAX_SUBDIRECTORIES + 1 }, (_, i) => `d${i}`),
  ]);
  // a directory's version is only given once it has not changed for two seconds
  useTestClock();
  settleDirectories();
}, 30_000);

afterAll(() => {
  useRealClock();
  fs.rmSync(root, { recursive: true, force: true });
});

describe('kept listings of big directories (FileSystemStore)', () => {
  it('are served again without a stat, byte for byte a fresh listing', async () => {
    const store = new CountingStore(root);
    const contents = new ContentsManager({ store });
    const first = await listing(contents, 'big');
    const runs = store.statRuns;
    expect(runs).toBeGreaterThan(0);
    pastReuse();
    const again = await listing(contents, 'big');
    expect(store.statRuns).toBe(runs);
    expect(again).toBe(first);
    expect(again).toBe(await fresh('big'));
    expect(JSON.parse(again).content).toHaveLength(FILES + 2);
  });

  it('show a file changed in place by another program (bytes or times)', async () => {
    const changes = [
      () => fs.appendFileSync(nodePath.join(root, 'big', 'f00001.txt'), 'more'),
      () => fs.utimesSync(nodePath.join(root, 'big', 'f00002.txt'), new Date('2020-01-02'), new Date('2020-01-02')),
    ];
    for (const change of changes) {
      const store = new CountingStore(root);
      const contents = new ContentsManager({ store });
      await listing(contents, 'big');
      pastReuse();
      const runs = store.statRuns;
      await listing(contents, 'big');
      expect(store.statRuns).toBe(runs); // kept
      change();
      pastReuse();
      expect(await listing(contents, 'big')).toBe(await fresh('big'));
    }
    const after = await fresh('big');
    expect(entry(after, 'f00001.txt').size).toBe(5);
    expect(entry(after, 'f00002.txt').last_modified).toBe('2020-01-02T00:00:00.000000Z');
  });

  it("show a subdirectory's new mtime when an entry is added in it", async () => {
    const contents = new ContentsManager({ store: new CountingStore(root) });
    const before = await listing(contents, 'big');
    pastReuse();
    fs.writeFileSync(nodePath.join(root, 'big', 'sub1', 'new.txt'), 'x');
    pastReuse();
    const after = await listing(contents, 'big');
    expect(entry(after, 'sub1').last_modified).not.toBe(entry(before, 'sub1').last_modified);
    expect(after).toBe(await fresh('big'));
  });

  it('are not kept for a directory with a symbolic link or too many subdirectories', async () => {
    for (const dir of ['linked', 'many-subdirectories']) {
      const store = new CountingStore(root);
      const contents = new ContentsManager({ store });
      await listing(contents, dir);
      const runs = store.statRuns;
      pastReuse();
      expect(await listing(contents, dir)).toBe(await fresh(dir));
      expect(store.statRuns).toBeGreaterThan(runs);
    }
  });

  it('show entries added and removed by another program, and writes through the manager', async () => {
    const contents = new ContentsManager({ store: new CountingStore(root) });
    await listing(contents, 'big');
    fs.writeFileSync(nodePath.join(root, 'big', 'added.txt'), 'x');
    expect(JSON.parse(await listing(contents, 'big')).content).toHaveLength(FILES + 3);
    fs.rmSync(nodePath.join(root, 'big', 'added.txt'));
    expect(JSON.parse(await listing(contents, 'big')).content).toHaveLength(FILES + 2);
    await contents.save('big/saved.txt', { type: 'file', format: 'text', content: 'hello' });
    expect(entry(await listing(contents, 'big'), 'saved.txt').size).toBe(5);
  });
});

/** A store with a version and watches the test controls. */
function fakeStore() {
  const watches: { changed: boolean; closed: boolean }[] = [];
  let version = 'v1';
  const store = {
    directoryVersion: async () => version,
    watchChildren: async (): Promise<ChildrenWatch> => {
      const watch = {
        changed: false,
        closed: false,
        close() {
          watch.closed = true;
        },
      };
      watches.push(watch);
      return watch;
    },
  } as unknown as ContentsStore;
  return { store, watches, setVersion: (v: string) => (version = v) };
}

const enough = Array.from({ length: KeptListings.MIN_ENTRIES }, (_, i) => `n${i}`);
/** Listed stats told apart by the first entry's size. */
function listed(tag: number): ListedStats {
  const stats = new ListedStats(enough.length);
  stats.set(0, { kind: 'file', size: tag, mtimeMs: 1, createdMs: 1, writable: true });
  return stats;
}
function tagOf(kept: KeptListing | null): number | null {
  let tag: number | null = null;
  kept?.stats.each(0, 1, (_, stat) => {
    tag = stat.size;
  });
  return tag;
}

describe('ListedStats', () => {
  it('gives back each recorded stat, and skips an entry never recorded', () => {
    const stats = new ListedStats(3);
    stats.set(0, { kind: 'directory', size: 4096, mtimeMs: 1.5, createdMs: 0.25, writable: false });
    stats.set(2, { kind: 'file', size: 12, mtimeMs: 1_700_000_000_000.123, createdMs: 3, writable: true });
    const seen: unknown[] = [];
    stats.each(0, 3, (i, stat) => seen.push({ i, ...stat }));
    expect(seen).toEqual([
      { i: 0, kind: 'directory', size: 4096, mtimeMs: 1.5, createdMs: 0.25, writable: false },
      { i: 2, kind: 'file', size: 12, mtimeMs: 1_700_000_000_000.123, createdMs: 3, writable: true },
    ]);
  });
});

describe('KeptListings', () => {
  it('serves a listing while its watch saw nothing, its version holds and it is young', async () => {
    const { store, watches, setVersion } = fakeStore();
    const kept = new KeptListings(store);
    const keep = await kept.watch('a', 'v1', enough, 0);
    expect(await kept.get('a')).toBeNull(); // not built yet
    keep?.(listed(1));
    expect(tagOf(await kept.get('a'))).toBe(1);
    (watches[0] as { changed: boolean }).changed = true;
    expect(await kept.get('a')).toBeNull();
    expect(watches[0]?.closed).toBe(true);

    (await kept.watch('b', 'v1', enough, 0))?.(listed(2));
    expect(tagOf(await kept.get('b'))).toBe(2);
    setVersion('v2');
    expect(await kept.get('b')).toBeNull();

    (await kept.watch('c', 'v2', enough, 0))?.(listed(3));
    expect(tagOf(await kept.get('c'))).toBe(3);
    const now = performance.now();
    const clock = vi.spyOn(performance, 'now').mockReturnValue(now + KeptListings.MAX_AGE_MS + 1);
    try {
      expect(await kept.get('c')).toBeNull();
    } finally {
      clock.mockRestore();
    }
  });

  it('keeps only what is worth it, the first listing built, and the last used directories', async () => {
    const { store, watches } = fakeStore();
    const kept = new KeptListings(store);
    expect(await kept.watch('a', null, enough, 0)).toBeNull();
    expect(await kept.watch('a', 'v1', enough.slice(1), 0)).toBeNull();
    expect(await kept.watch('a', 'v1', Array.from({ length: KeptListings.MAX_ENTRIES + 1 }, String), 0)).toBeNull();
    expect(await kept.watch('a', 'v1', enough, KeptListings.MAX_SUBDIRECTORIES + 1)).toBeNull();
    expect(watches).toHaveLength(0);

    // a change seen while it was built: not kept
    const keepChanged = await kept.watch('a', 'v1', enough, 0);
    (watches[0] as { changed: boolean }).changed = true;
    keepChanged?.(listed(0));
    expect(await kept.get('a')).toBeNull();

    const keep = await kept.watch('a', 'v1', enough, 0);
    keep?.(listed(1));
    keep?.(listed(2));
    expect(tagOf(await kept.get('a'))).toBe(1);

    for (let i = 0; i < KeptListings.MAX_DIRECTORIES; i++) {
      (await kept.watch(`d${i}`, 'v1', enough, 0))?.(listed(0));
    }
    expect(await kept.get('a')).toBeNull(); // the least recently used, evicted
    expect(watches[1]?.closed).toBe(true);
    kept.clear();
    expect(await kept.get('d0')).toBeNull();
    expect(watches.every((w) => w.closed)).toBe(true);
  });
});
