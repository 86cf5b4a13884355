import { statSync } from 'node:fs';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as nodePath from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MetadataAccess } from '../src/contents/metadata-access.js';
import { ContentsManager, FileSystemStore, type StatFields, StatThread } from '../src/index.js';

let root: string;
/** Files, a folder, and names that are not there, mixed. */
let names: string[];

function fields(s: StatFields) {
  return {
    file: s.isFile(),
    directory: s.isDirectory(),
    mode: s.mode,
    size: s.size,
    mtimeMs: s.mtimeMs,
    ctimeMs: s.ctimeMs,
    birthtimeMs: s.birthtimeMs,
    uid: s.uid,
    gid: s.gid,
  };
}

function expected(name: string) {
  const s = statSync(nodePath.join(root, name), { throwIfNoEntry: false });
  return s ? fields(s) : null;
}

beforeAll(async () => {
  root = await fs.mkdtemp(nodePath.join(os.tmpdir(), 'nbserve-stat-thread-'));
  await fs.mkdir(nodePath.join(root, 'sub dir'));
  names = [];
  for (let i = 0; i < 1500; i++) {
    if (i % 10 === 3) names.push(`gone-${i}`);
    else if (i === 700) names.push('sub dir');
    else {
      const name = i % 2 ? `n ${i} ü.ipynb` : `f-${i}.txt`;
      await fs.writeFile(nodePath.join(root, name), 'x'.repeat(i % 13));
      names.push(name);
    }
  }
});

afterAll(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

describe('StatThread', () => {
  it('answers null until it runs, then what statSync says for each path (null where nothing is)', async () => {
    const thread = new StatThread();
    try {
      expect(thread.stat(`${root}/`, names)).toBeNull(); // starts it, does not wait for it
      expect(await thread.ready()).toBe(true);
      const packed = await thread.stat(`${root}/`, names);
      expect(packed?.length).toBe(names.length);
      names.forEach((name, k) => {
        const got = packed?.at(k);
        expect(got ? fields(got) : null).toEqual(expected(name));
      });
      expect(packed?.at(3)).toBeNull();
      expect(packed?.at(700)?.isDirectory()).toBe(true);
    } finally {
      await thread.close();
    }
  });

  it('gives null to whoever waits when it is closed, and starts again on the next use', async () => {
    const thread = new StatThread();
    await thread.ready();
    const pending = thread.stat(`${root}/`, names);
    await thread.close();
    expect(await pending).toBeNull();
    expect(thread.stat(`${root}/`, names)).toBeNull();
    expect(await thread.ready()).toBe(true);
    expect((await thread.stat(`${root}/`, ['sub dir']))?.at(0)?.isDirectory()).toBe(true);
    await thread.close();
  });
});

describe('MetadataAccess.statEach with a StatThread', () => {
  it('visits the same stats in the same order as without it, across halves and windows of 4,096', async () => {
    const thread = new StatThread();
    await thread.ready();
    try {
      const many = [...names, ...names, ...names, ...names]; // 6,000 paths: two windows
      const seen: { index: number; stat: ReturnType<typeof fields> }[] = [];
      const shared = new MetadataAccess(root, thread);
      await shared.statEach(`${root}/`, many, 10, many.length, (index, s) => seen.push({ index, stat: fields(s) }));
      const alone: typeof seen = [];
      await new MetadataAccess(root).statEach(`${root}/`, many, 10, many.length, (index, s) =>
        alone.push({ index, stat: fields(s) }),
      );
      expect(seen).toEqual(alone);
      expect(seen.map((v) => v.index)).toEqual(
        many.map((name, i) => (i >= 10 && expected(name) ? i : -1)).filter((i) => i >= 0),
      );
    } finally {
      await thread.close();
    }
  });

  it('stats everything itself when the thread ends', async () => {
    const thread = new StatThread();
    await thread.ready();
    await thread.close();
    const seen: number[] = [];
    await new MetadataAccess(root, thread).statEach(`${root}/`, names, 0, names.length, (index) => seen.push(index));
    expect(seen).toHaveLength(names.filter((name) => expected(name)).length);
    await thread.close();
  });
});

describe('a listing with the StatThread running', () => {
  it('is byte for byte the listing of a store without one', async () => {
    const thread = new StatThread();
    await thread.ready();
    try {
      const shared = new ContentsManager({ store: new FileSystemStore(root, { statThread: thread }) });
      const alone = new ContentsManager({ store: new FileSystemStore(root, { statThread: null }) });
      const text = async (contents: ContentsManager) => {
        const { json } = await contents.getSerialized('');
        return Buffer.from(await new Response(json).arrayBuffer()).toString('utf8');
      };
      const listed = await text(shared);
      expect(listed).toBe(await text(alone));
      expect(JSON.parse(listed).content).toHaveLength(names.filter((name) => expected(name)).length);
    } finally {
      await thread.close();
    }
  });
});
