import * as fs from 'node:fs/promises';
import * as nodePath from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  advanceClock,
  backToRealTime,
  LISTING_REUSE_PAST_MS,
  settleDirectories,
  useRealClock,
  useTestClock,
} from '../../../testing/clock.js';
import { CountingStore } from '../../../testing/counting-store.js';
import { makeTempDir } from '../../../testing/temp.js';
import { ContentsManager } from '../src/index.js';

/**
 * The whole directory model (what Jupyter clients GET) of a big folder reuses its sorted names
 * while the directory's version holds, as the paged listing does: whatever another program adds,
 * removes or renames on disk shows in the next GET, and every entry is stat'ed afresh each time.
 */
const COUNT = 2500;
let root: string;
let store: CountingStore;
let contents: ContentsManager;

beforeAll(async () => {
  useTestClock();
  root = await makeTempDir('nbserve-listing-names-');
  store = new CountingStore(root);
  contents = new ContentsManager({ store });
});

afterAll(async () => {
  useRealClock();
  await fs.rm(root, { recursive: true, force: true });
});

/** A directory of COUNT notebooks `nb-0000.ipynb`… */
async function bigDir(name: string): Promise<string> {
  const dir = nodePath.join(root, name);
  await fs.mkdir(dir);
  for (let i = 0; i < COUNT; i += 500) {
    await Promise.all(
      Array.from({ length: 500 }, (_, k) =>
        fs.writeFile(nodePath.join(dir, `nb-${String(i + k).padStart(4, '0')}.ipynb`), '{}'),
      ),
    );
  }
  return dir;
}

interface Child {
  name: string;
  type: string;
  size: number | null;
  last_modified: string;
}

/** The listing as a client gets it, past the 100 ms reuse of a served listing (built afresh). */
async function listed(path: string): Promise<Child[]> {
  advanceClock(LISTING_REUSE_PAST_MS);
  const { json } = await contents.getSerialized(path);
  const bytes = json instanceof Uint8Array ? json : new Uint8Array(await new Response(json).arrayBuffer());
  const text = Buffer.from(bytes).toString('utf8');
  expect(text).toBe(JSON.stringify(await contents.get(path)));
  return JSON.parse(text).content;
}

describe('the whole model of a big directory', () => {
  it('reads its names once while the directory is unchanged, and stats every entry afresh', async () => {
    const dir = await bigDir('settled');
    settleDirectories();
    const reads = store.listings;
    expect(await listed('settled')).toHaveLength(COUNT);
    expect(await listed('settled')).toHaveLength(COUNT);
    expect(store.listings).toBe(reads + 1); // (get() in listed() reads through store.list)
    // another program rewrites files in place: the directory does not change, the entries do
    await fs.writeFile(nodePath.join(dir, 'nb-0001.ipynb'), '{"longer": true}');
    const later = new Date(Math.floor(Date.now() / 1000) * 1000 + 5000);
    await fs.utimes(nodePath.join(dir, 'nb-0002.ipynb'), later, later);
    const again = await listed('settled');
    expect(store.listings).toBe(reads + 1);
    expect(again[1]).toMatchObject({ name: 'nb-0001.ipynb', size: 16 });
    expect(again[2]?.last_modified).toBe(later.toISOString().replace('.000Z', '.000000Z'));
  }, 60_000);

  it('shows at once what another program adds, removes or renames, even with the mtime set back', async () => {
    const dir = await bigDir('changing');
    settleDirectories();
    const first = async () => (await listed('changing')).slice(0, 3).map((m) => m.name);
    expect(await first()).toEqual(['nb-0000.ipynb', 'nb-0001.ipynb', 'nb-0002.ipynb']);
    const { mtime } = await fs.stat(dir);
    backToRealTime();
    await fs.writeFile(nodePath.join(dir, 'a.ipynb'), '{}');
    await fs.utimes(dir, mtime, mtime); // as rsync or `touch -d` would leave it
    expect(await first()).toEqual(['a.ipynb', 'nb-0000.ipynb', 'nb-0001.ipynb']);
    settleDirectories();
    expect(await first()).toEqual(['a.ipynb', 'nb-0000.ipynb', 'nb-0001.ipynb']);
    backToRealTime();
    await fs.rm(nodePath.join(dir, 'a.ipynb'));
    expect(await first()).toEqual(['nb-0000.ipynb', 'nb-0001.ipynb', 'nb-0002.ipynb']);
    settleDirectories();
    backToRealTime();
    await fs.rename(nodePath.join(dir, 'nb-0000.ipynb'), nodePath.join(dir, 'zz.ipynb'));
    expect(await first()).toEqual(['nb-0001.ipynb', 'nb-0002.ipynb', 'nb-0003.ipynb']);
    await fs.mkdir(nodePath.join(dir, 'sub'));
    const now = await listed('changing');
    expect(now[0]).toMatchObject({ name: 'sub', type: 'directory', size: null });
    expect(now.at(-1)?.name).toBe('zz.ipynb');
  }, 60_000);

  it('reads its names every time when it holds a symlink (its target can change kind unseen)', async () => {
    const dir = await bigDir('links');
    const elsewhere = nodePath.join(root, 'elsewhere');
    await fs.mkdir(elsewhere);
    await fs.writeFile(nodePath.join(elsewhere, 'target'), 'x');
    await fs.symlink('../elsewhere/target', nodePath.join(dir, 'link'));
    settleDirectories();
    const reads = store.listings;
    expect((await listed('links')).at(-1)).toMatchObject({ name: 'link', type: 'file', size: 1 });
    // the link's target becomes a directory: `links` itself does not change
    backToRealTime();
    await fs.rm(nodePath.join(elsewhere, 'target'));
    await fs.mkdir(nodePath.join(elsewhere, 'target'));
    expect((await listed('links'))[0]).toMatchObject({ name: 'link', type: 'directory', size: null });
    expect(store.listings).toBe(reads + 2);
  }, 60_000);
});
