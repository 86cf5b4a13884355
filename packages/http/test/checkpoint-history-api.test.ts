// needs: jupyter_server
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { ContentsManager } from '@jupyterlab/services';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type JupyterServer, startJupyterServer } from '../../../testing/jupyter-server.js';
import { v4CodeCell, v4Notebook } from '../../../testing/notebooks.js';
import { createTestApp, startServer, type TestServer } from '../../../testing/server.js';
import { snapshotTree } from '../../../testing/temp.js';

const ID = /^\d{8}T\d{12}Z$/;
const notebook = (source: string) => v4Notebook([v4CodeCell(source)]);

interface Checkpoint {
  id: string;
  last_modified: string;
}

/** The history API over a real socket, with the default limit (5). */
describe('checkpoint history over /api/contents', () => {
  let fx: TestServer;
  beforeAll(async () => {
    fx = await startServer();
  });
  afterAll(async () => {
    await fx.close();
  });

  const json = async (res: Response) => (await res.json()) as unknown;
  const put = (p: string, body: unknown) =>
    fx.fetch(`/api/contents/${p}`, { method: 'PUT', body: JSON.stringify(body) });
  const post = async (p: string) => {
    const res = await fx.fetch(`/api/contents/${p}/checkpoints`, { method: 'POST' });
    expect(res.status).toBe(201);
    return (await res.json()) as Checkpoint;
  };
  const list = async (p: string) => (await json(await fx.fetch(`/api/contents/${p}/checkpoints`))) as Checkpoint[];

  it('every POST adds one, five are kept, listed oldest first with distinct ids and times', async () => {
    const made: Checkpoint[] = [];
    for (let i = 0; i < 7; i++) {
      await put('h.ipynb', { type: 'notebook', content: notebook(`x = ${i}`) });
      made.push(await post('h.ipynb'));
    }
    const listed = await list('h.ipynb');
    expect(listed).toEqual(made.slice(2));
    expect(new Set(listed.map((cp) => cp.id)).size).toBe(5);
    for (const cp of listed) expect(cp.id).toMatch(ID);
    const times = listed.map((cp) => cp.last_modified);
    expect([...times].sort()).toEqual(times);
    expect(new Set(times.map((t) => Date.parse(t))).size).toBe(5);
    // GET of one shows the file as it was; POST restores it
    for (const [i, cp] of listed.entries()) {
      const at = `/api/contents/h.ipynb/checkpoints/${cp.id}`;
      const shown = (await json(await fx.fetch(at))) as { content: { cells: { source: string }[] } };
      expect(shown).toMatchObject({
        type: 'notebook',
        format: 'json',
        path: 'h.ipynb',
        last_modified: cp.last_modified,
      });
      expect(shown.content.cells[0]?.source).toBe(`x = ${i + 2}`);
      expect((await fx.fetch(at, { method: 'POST' })).status).toBe(204);
      const now = (await json(await fx.fetch('/api/contents/h.ipynb'))) as { content: { cells: { source: string }[] } };
      expect(now.content.cells[0]?.source).toBe(`x = ${i + 2}`);
    }
    // delete the middle one, then the newest: the one before it becomes the newest
    const [c2, c3, c4, c5, c6] = listed as [Checkpoint, Checkpoint, Checkpoint, Checkpoint, Checkpoint];
    expect((await fx.fetch(`/api/contents/h.ipynb/checkpoints/${c4.id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await fx.fetch(`/api/contents/h.ipynb/checkpoints/${c6.id}`, { method: 'DELETE' })).status).toBe(204);
    expect(await list('h.ipynb')).toEqual([c2, c3, c5]);
    const saved = JSON.parse(await fs.readFile(path.join(fx.root, '.ipynb_checkpoints/h-checkpoint.ipynb'), 'utf8'));
    expect([saved.cells[0].source].flat().join('')).toBe('x = 5');
  });

  it('rename and delete of the file carry and remove every checkpoint', async () => {
    await put('r.txt', { type: 'file', format: 'text', content: 'one' });
    const first = await post('r.txt');
    await put('r.txt', { type: 'file', format: 'text', content: 'two' });
    const second = await post('r.txt');
    await fx.fetch('/api/contents/sub', { method: 'PUT', body: JSON.stringify({ type: 'directory' }) });
    const moved = await fx.fetch('/api/contents/r.txt', {
      method: 'PATCH',
      body: JSON.stringify({ path: 'sub/s.txt' }),
    });
    expect(moved.status).toBe(200);
    expect(await list('sub/s.txt')).toEqual([first, second]);
    const old = (await json(await fx.fetch(`/api/contents/sub/s.txt/checkpoints/${first.id}`))) as { content: string };
    expect(old.content).toBe('one');
    expect(await fs.readdir(path.join(fx.root, 'sub/.ipynb_checkpoints'))).toEqual(
      expect.arrayContaining(['s-checkpoint.txt', `s-checkpoint-${first.id}.txt`]),
    );
    expect((await fx.fetch('/api/contents/sub/s.txt', { method: 'DELETE' })).status).toBe(204);
    expect(await fs.readdir(path.join(fx.root, 'sub/.ipynb_checkpoints'))).toEqual([]);
    await put('sub/s.txt', { type: 'file', format: 'text', content: 'new' });
    expect(await list('sub/s.txt')).toEqual([]);
  });

  it('answers bad input with a 4xx Jupyter error and leaves the files as they were', async () => {
    await put('b.txt', { type: 'file', format: 'text', content: 'b' });
    const cp = await post('b.txt');
    await fs.mkdir(path.join(fx.root, 'dir/checkpoints'), { recursive: true });
    await fs.writeFile(path.join(fx.root, 'dir/checkpoints/plain'), 'a file in a folder named checkpoints');
    const before = await snapshotTree(fx.root);
    const cases: [string, string, number][] = [
      ['GET', '/api/contents/b.txt/checkpoints/20200101T000000000000Z', 404],
      ['GET', '/api/contents/b.txt/checkpoints/nope', 404],
      ['POST', '/api/contents/b.txt/checkpoints/nope', 404],
      ['DELETE', '/api/contents/b.txt/checkpoints/20200101T000000000000Z', 404],
      ['GET', `/api/contents/b.txt/checkpoints/${cp.id}?format=hex`, 400],
      ['GET', `/api/contents/missing.txt/checkpoints/${cp.id}`, 404],
      ['GET', `/api/contents/..%2Fb.txt/checkpoints/${cp.id}`, 400],
      ['GET', `/api/contents/b.txt/checkpoints/..%2F..%2Fb`, 400],
      ['GET', `/api/contents/.ipynb_checkpoints/b-checkpoint.txt/checkpoints/${cp.id}`, 404],
      ['GET', `/api/contents/b.txt/checkpoints/${'9'.repeat(300)}`, 404],
    ];
    for (const [method, url, status] of cases) {
      const res = await fx.fetch(url, { method });
      expect(res.status, `${method} ${url}`).toBe(status);
      const body = (await res.json()) as Record<string, unknown>;
      expect(Object.keys(body).sort(), `${method} ${url}`).toEqual(['message', 'reason']);
      expect(JSON.stringify(body)).not.toContain(fx.root);
    }
    expect(await snapshotTree(fx.root)).toEqual(before);
    // below a directory the URL is a file in a folder named `checkpoints`, read as any file
    const plain = (await json(await fx.fetch('/api/contents/dir/checkpoints/plain'))) as { content: string };
    expect(plain.content).toBe('a file in a folder named checkpoints');
    const base64 = (await json(await fx.fetch(`/api/contents/b.txt/checkpoints/${cp.id}?format=base64`))) as {
      content: string;
      format: string;
    };
    expect(base64.format).toBe('base64');
    expect(Buffer.from(base64.content, 'base64').toString()).toBe('b');
  });

  it('a limit below 1 is refused where the app is made', async () => {
    for (const checkpointsKeep of [0, -1]) {
      await expect(createTestApp({ checkpointsKeep })).rejects.toThrow(/checkpoints keep must be a whole number/);
    }
  });
});

describe("JupyterLab's client (@jupyterlab/services) over the history", () => {
  let fx: TestServer;
  let contents: ContentsManager;
  beforeAll(async () => {
    fx = await startServer({ checkpointsKeep: 3 });
    contents = new ContentsManager({ serverSettings: fx.jupyterSettings() });
  });
  afterAll(async () => {
    contents.dispose();
    await fx.close();
  });

  it('lists the history, takes the last as the newest, restores any of them', async () => {
    // JupyterLab's context saves, then checkpoints; its revert restores the last one listed
    const made = [];
    for (let i = 0; i < 4; i++) {
      await contents.save('lab.ipynb', { type: 'notebook', format: 'json', content: notebook(`v${i}`) });
      made.push(await contents.createCheckpoint('lab.ipynb'));
    }
    const listed = await contents.listCheckpoints('lab.ipynb');
    expect(listed).toEqual(made.slice(1));
    const newest = listed[listed.length - 1];
    expect(newest).toEqual(made[3]);
    await contents.save('lab.ipynb', { type: 'notebook', format: 'json', content: notebook('unsaved work') });
    await contents.restoreCheckpoint('lab.ipynb', newest?.id ?? '');
    expect((await contents.get('lab.ipynb')).content).toMatchObject({ cells: [{ source: 'v3' }] });
    await contents.restoreCheckpoint('lab.ipynb', listed[0]?.id ?? '');
    expect((await contents.get('lab.ipynb')).content).toMatchObject({ cells: [{ source: 'v1' }] });
    await contents.deleteCheckpoint('lab.ipynb', listed[1]?.id ?? '');
    expect(await contents.listCheckpoints('lab.ipynb')).toEqual([listed[0], newest]);
  });
});

/** Debian's jupyter_server 1.23 and nbserve on the same folder. */
describe('jupyter_server on the same folder', () => {
  let jupyter: JupyterServer;
  let fx: TestServer;
  beforeAll(async () => {
    jupyter = await startJupyterServer();
    fx = await startServer({ root: jupyter.root });
  }, 90_000);
  afterAll(async () => {
    await fx?.close();
    await jupyter?.close();
  });

  const theirs = (p: string, init: RequestInit = {}) =>
    fetch(`${jupyter.url}api/contents/${p}`, {
      ...init,
      headers: { Authorization: `token ${jupyter.token}`, 'Content-Type': 'application/json' },
    });
  const source = async (res: Response) =>
    ((await res.json()) as { content: { cells: { source: string }[] } }).content.cells[0]?.source;

  it('sees the newest checkpoint as its one, and nbserve sees what it checkpoints', async () => {
    const put = (text: string) =>
      fx.fetch('/api/contents/both.ipynb', {
        method: 'PUT',
        body: JSON.stringify({ type: 'notebook', content: notebook(text) }),
      });
    const made: Checkpoint[] = [];
    for (const text of ['a', 'b', 'c']) {
      await put(text);
      made.push(
        (await (await fx.fetch('/api/contents/both.ipynb/checkpoints', { method: 'POST' })).json()) as Checkpoint,
      );
    }
    // the first save made one of its own
    const all = (await (await fx.fetch('/api/contents/both.ipynb/checkpoints')).json()) as Checkpoint[];
    expect(all.slice(1)).toEqual(made);
    // jupyter_server lists one, its `checkpoint`: nbserve's newest, at the same time
    const listed = (await (await theirs('both.ipynb/checkpoints')).json()) as Checkpoint[];
    expect(listed.map((cp) => cp.id)).toEqual(['checkpoint']);
    expect(Date.parse(listed[0]?.last_modified ?? '')).toBe(Date.parse(made[2]?.last_modified ?? ''));
    await put('unsaved');
    expect((await theirs('both.ipynb/checkpoints/checkpoint', { method: 'POST' })).status).toBe(204);
    expect(await source(await fx.fetch('/api/contents/both.ipynb'))).toBe('c');
    // nbserve deletes its newest: jupyter_server now restores the one before
    expect((await fx.fetch(`/api/contents/both.ipynb/checkpoints/${made[2]?.id}`, { method: 'DELETE' })).status).toBe(
      204,
    );
    expect((await theirs('both.ipynb/checkpoints/checkpoint', { method: 'POST' })).status).toBe(204);
    expect(await source(await theirs('both.ipynb'))).toBe('b');
    // jupyter_server checkpoints (overwriting its one): nbserve lists that as its newest, the older ones kept
    await put('d');
    const before = (await (await fx.fetch('/api/contents/both.ipynb/checkpoints')).json()) as Checkpoint[];
    expect(before).toEqual(all.slice(0, -1));
    const fromThem = (await (await theirs('both.ipynb/checkpoints', { method: 'POST' })).json()) as Checkpoint;
    const after = (await (await fx.fetch('/api/contents/both.ipynb/checkpoints')).json()) as Checkpoint[];
    expect(after.slice(0, -1)).toEqual(all.slice(0, -2));
    expect(after.at(-1)?.id).toMatch(ID);
    expect(Date.parse(after.at(-1)?.last_modified ?? '')).toBe(Date.parse(fromThem.last_modified));
    const shown = await fx.fetch(`/api/contents/both.ipynb/checkpoints/${after.at(-1)?.id}`);
    expect(await source(shown)).toBe('d');
    // a rename by jupyter_server moves its one; nbserve's rename moves them all
    expect(
      (await fx.fetch('/api/contents/both.ipynb', { method: 'PATCH', body: JSON.stringify({ path: 'moved.ipynb' }) }))
        .status,
    ).toBe(200);
    const moved = (await (await theirs('moved.ipynb/checkpoints')).json()) as Checkpoint[];
    expect(moved.map((cp) => cp.id)).toEqual(['checkpoint']);
    expect((await (await fx.fetch('/api/contents/moved.ipynb/checkpoints')).json()) as Checkpoint[]).toEqual(after);
  });
});
