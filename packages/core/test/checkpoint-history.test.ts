import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { v4CodeCell, v4Notebook } from '../../../testing/notebooks.js';
import { makeTempDir, removeDir } from '../../../testing/temp.js';
import {
  type CheckpointStore,
  ContentsManager,
  type ContentsStore,
  FileCheckpointStore,
  FileSystemStore,
  MemoryCheckpointStore,
  MemoryStore,
  NbserveError,
} from '../src/index.js';

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map(removeDir));
});

const ID = /^\d{8}T\d{12}Z$/;
const text = (bytes: Uint8Array) => Buffer.from(bytes).toString('utf8');
const bytesOf = (s: string) => new TextEncoder().encode(s);

interface Setup {
  cm: ContentsManager;
  /** The temp root when the files are on disk. */
  root?: string;
}

type Make = (keep: number) => Promise<Setup>;

const setups: [string, Make][] = [
  [
    'files on disk',
    async (keep) => {
      const root = await makeTempDir('nbserve-cp-');
      dirs.push(root);
      return { cm: new ContentsManager({ store: new FileSystemStore(root), checkpointsKeep: keep }), root };
    },
  ],
  [
    'files in a MemoryStore',
    async (keep) => {
      const store = new MemoryStore();
      return { cm: new ContentsManager({ store, checkpoints: new FileCheckpointStore(store, { keep }) }) };
    },
  ],
  [
    'MemoryCheckpointStore',
    async (keep) => {
      const store = new MemoryStore();
      return { cm: new ContentsManager({ store, checkpoints: new MemoryCheckpointStore(store, { keep }) }) };
    },
  ],
];

async function writeText(cm: ContentsManager, p: string, content: string): Promise<void> {
  await cm.save(p, { type: 'file', format: 'text', content });
}

async function readText(cm: ContentsManager, p: string): Promise<unknown> {
  return (await cm.get(p, { format: 'text' })).content;
}

async function kindOf(promise: Promise<unknown>): Promise<string> {
  return promise.then(
    () => 'fulfilled',
    (e: unknown) => (e instanceof NbserveError ? e.kind : String(e)),
  );
}

describe.each(setups)('checkpoint history (%s)', (_name, make) => {
  it('keeps the newest N, lists them oldest first with distinct ids and times', async () => {
    const { cm } = await make(3);
    const made = [];
    for (let i = 0; i < 6; i++) {
      await writeText(cm, 'a.txt', `v${i}`);
      made.push(await cm.createCheckpoint('a.txt')); // back to back: the file clock may not have ticked
    }
    const listed = await cm.listCheckpoints('a.txt');
    expect(listed).toEqual(made.slice(3));
    for (const cp of listed) expect(cp.id).toMatch(ID);
    expect(new Set(listed.map((cp) => cp.id)).size).toBe(3);
    const times = listed.map((cp) => Date.parse(cp.last_modified));
    expect(times[0]).toBeLessThan(times[1] as number);
    expect(times[1]).toBeLessThan(times[2] as number);
    // each restores what it was made from
    for (const [i, cp] of listed.entries()) {
      await cm.restoreCheckpoint('a.txt', cp.id);
      expect(await readText(cm, 'a.txt')).toBe(`v${i + 3}`);
      expect((await cm.getCheckpoint('a.txt', cp.id)).content).toBe(`v${i + 3}`);
    }
    // restoring changes no checkpoint
    expect(await cm.listCheckpoints('a.txt')).toEqual(listed);
    expect(await kindOf(cm.restoreCheckpoint('a.txt', made[0]?.id ?? ''))).toBe('not-found');
  });

  it('deletes any of them; deleting the newest makes the next one the newest', async () => {
    const { cm } = await make(5);
    const made = [];
    for (let i = 0; i < 4; i++) {
      await writeText(cm, 'b.txt', `v${i}`);
      made.push(await cm.createCheckpoint('b.txt'));
    }
    const [c0, c1, c2, c3] = made as [(typeof made)[0], (typeof made)[0], (typeof made)[0], (typeof made)[0]];
    await cm.deleteCheckpoint('b.txt', c1.id);
    expect(await cm.listCheckpoints('b.txt')).toEqual([c0, c2, c3]);
    await cm.deleteCheckpoint('b.txt', c3.id);
    expect(await cm.listCheckpoints('b.txt')).toEqual([c0, c2]);
    // `checkpoint` (jupyter_server's id) is the newest: now c2
    await cm.restoreCheckpoint('b.txt', 'checkpoint');
    expect(await readText(cm, 'b.txt')).toBe('v2');
    await cm.deleteCheckpoint('b.txt', 'checkpoint');
    expect(await cm.listCheckpoints('b.txt')).toEqual([c0]);
    // a new one after the deletions is newer than what is left
    await writeText(cm, 'b.txt', 'v4');
    const c4 = await cm.createCheckpoint('b.txt');
    expect(await cm.listCheckpoints('b.txt')).toEqual([c0, c4]);
    for (const gone of [c1, c2, c3]) expect(await kindOf(cm.deleteCheckpoint('b.txt', gone.id))).toBe('not-found');
    expect(await kindOf(cm.getCheckpoint('b.txt', c3.id))).toBe('not-found');
    expect(await kindOf(cm.deleteCheckpoint('b.txt', '../../b'))).toBe('not-found');
  });

  it('rename and delete of the file carry and remove all of them', async () => {
    const { cm } = await make(4);
    await cm.save('dir', { type: 'directory' });
    const made = [];
    for (let i = 0; i < 3; i++) {
      await cm.save('dir/n.ipynb', { type: 'notebook', content: v4Notebook([v4CodeCell(`x = ${i}`)]) });
      made.push(await cm.createCheckpoint('dir/n.ipynb'));
    }
    // the first save made one of its own
    const all = await cm.listCheckpoints('dir/n.ipynb');
    expect(all).toHaveLength(4);
    expect(all.slice(1)).toEqual(made);
    await cm.rename('dir/n.ipynb', 'm.ipynb');
    expect(await cm.listCheckpoints('m.ipynb')).toEqual(all);
    await cm.save('dir/n.ipynb', { type: 'file', format: 'text', content: '{}' }); // a new file: no history
    expect(await cm.listCheckpoints('dir/n.ipynb')).toEqual([]);
    await cm.delete('dir/n.ipynb');
    await cm.rename('m.ipynb', 'dir/m.ipynb');
    await cm.rename('dir', 'moved');
    expect(await cm.listCheckpoints('moved/m.ipynb')).toEqual(all);
    const restored = await cm.getCheckpoint('moved/m.ipynb', made[1]?.id ?? '');
    expect(restored).toMatchObject({ type: 'notebook', format: 'json', last_modified: made[1]?.last_modified });
    expect((restored.content as { cells: { source: string }[] }).cells[0]?.source).toBe('x = 1');
    await cm.delete('moved/m.ipynb');
    await cm.save('moved/m.ipynb', { type: 'file', format: 'text', content: 'new' });
    expect(await cm.listCheckpoints('moved/m.ipynb')).toEqual([]);
  });

  it('keeps one with --checkpoints-keep 1, as jupyter_server does, with its one id', async () => {
    const { cm } = await make(1);
    await writeText(cm, 'c.txt', 'one');
    const first = await cm.createCheckpoint('c.txt');
    await writeText(cm, 'c.txt', 'two');
    const second = await cm.createCheckpoint('c.txt');
    expect([first.id, second.id]).toEqual(['checkpoint', 'checkpoint']);
    expect(second.last_modified > first.last_modified).toBe(true);
    expect(await cm.listCheckpoints('c.txt')).toEqual([second]);
    await writeText(cm, 'c.txt', 'three');
    await cm.restoreCheckpoint('c.txt', 'checkpoint');
    expect(await readText(cm, 'c.txt')).toBe('two');
    await cm.deleteCheckpoint('c.txt', 'checkpoint');
    expect(await cm.listCheckpoints('c.txt')).toEqual([]);
  });

  it('refuses a limit below 1 or not whole', async () => {
    for (const keep of [0, -1, 1.5, Number.NaN]) {
      await expect(make(keep)).rejects.toThrow(/checkpoints keep must be a whole number of at least 1/);
    }
  });
});

describe('checkpoint history on disk', () => {
  async function setup(keep: number) {
    const root = await makeTempDir('nbserve-cp-disk-');
    dirs.push(root);
    const store: ContentsStore = new FileSystemStore(root);
    const cm = new ContentsManager({ store, checkpointsKeep: keep });
    const cpDir = path.join(root, '.ipynb_checkpoints');
    const names = async () => (await fs.readdir(cpDir)).sort();
    const read = (name: string) => fs.readFile(path.join(cpDir, name), 'utf8');
    return { root, cm, names, read };
  }

  it("keeps the newest at jupyter_server's place and older ones beside it", async () => {
    const { cm, names, read } = await setup(3);
    const made = [];
    for (let i = 0; i < 4; i++) {
      await writeText(cm, 'a.b.txt', `v${i}`);
      made.push(await cm.createCheckpoint('a.b.txt'));
    }
    const [, c1, c2, c3] = made;
    expect(await names()).toEqual([
      `a.b-checkpoint-${c1?.id}.txt`,
      `a.b-checkpoint-${c2?.id}.txt`,
      'a.b-checkpoint.txt',
    ]);
    expect(await read('a.b-checkpoint.txt')).toBe('v3');
    expect(await read(`a.b-checkpoint-${c1?.id}.txt`)).toBe('v1');
    // deleting the newest moves the next one into its place, keeping its id and time
    await cm.deleteCheckpoint('a.b.txt', c3?.id ?? '');
    expect(await names()).toEqual([`a.b-checkpoint-${c1?.id}.txt`, 'a.b-checkpoint.txt']);
    expect(await read('a.b-checkpoint.txt')).toBe('v2');
    expect(await cm.listCheckpoints('a.b.txt')).toEqual([c1, c2]);
    await cm.delete('a.b.txt');
    expect(await names()).toEqual([]);
  });

  it('reads a checkpoint jupyter_server left, and prunes leftovers of a bigger limit', async () => {
    const { root, cm, names } = await setup(2);
    await fs.writeFile(path.join(root, 'n.txt'), 'now');
    await fs.mkdir(path.join(root, '.ipynb_checkpoints'));
    await fs.writeFile(path.join(root, '.ipynb_checkpoints', 'n-checkpoint.txt'), 'theirs');
    const old = ['20200101T000000000001Z', '20200101T000000000002Z', '20200101T000000000003Z'];
    for (const id of old) await fs.writeFile(path.join(root, '.ipynb_checkpoints', `n-checkpoint-${id}.txt`), id);
    // a file whose name only looks like ours is not one
    await fs.writeFile(path.join(root, '.ipynb_checkpoints', 'n-checkpoint-notanid.txt'), 'x');
    const listed = await cm.listCheckpoints('n.txt');
    expect(listed.map((cp) => cp.id).slice(0, 3)).toEqual(old);
    expect(listed[0]?.last_modified).toBe('2020-01-01T00:00:00.000001Z');
    expect(text(await cm.checkpoints.read('n.txt', listed[3]?.id ?? ''))).toBe('theirs');
    const made = await cm.createCheckpoint('n.txt');
    expect(await cm.listCheckpoints('n.txt')).toEqual([listed[3], made]);
    expect(await names()).toEqual([
      `n-checkpoint-${listed[3]?.id}.txt`,
      'n-checkpoint-notanid.txt',
      'n-checkpoint.txt',
    ]);
  });

  it.each([
    ['FileCheckpointStore', (store: ContentsStore) => new FileCheckpointStore(store, { keep: 2 })],
    ['MemoryCheckpointStore', (store: ContentsStore) => new MemoryCheckpointStore(store, { keep: 2 })],
  ])('a %s works without a manager too, and says whether a file has any', async (_name, make) => {
    const store = new MemoryStore();
    await store.write('f', bytesOf('1'));
    const checkpoints: CheckpointStore = make(store);
    expect(await checkpoints.has?.('f')).toBe(false);
    const first = await checkpoints.create('f');
    const second = await checkpoints.create('f', bytesOf('2'));
    expect(await checkpoints.list('f')).toEqual([first, second]);
    expect(text(await checkpoints.read('f', first.id))).toBe('1');
    expect(text(await checkpoints.read('f', second.id))).toBe('2');
    expect(await checkpoints.has?.('f')).toBe(true);
    await checkpoints.delete('f', second.id);
    expect(await checkpoints.has?.('f')).toBe(true);
    await checkpoints.delete('f', first.id);
    expect(await checkpoints.has?.('f')).toBe(false);
  });
});
