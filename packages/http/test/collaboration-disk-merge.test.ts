import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { YCodeCell } from '@jupyter/ydoc';
import { afterEach, describe, expect, it } from 'vitest';
import { type CollabClient, openCollabClient, openCollabFile } from '../../../testing/collaboration.js';
import { v4CodeCell, v4MarkdownCell, v4Notebook } from '../../../testing/notebooks.js';
import { startServer, type TestServer } from '../../../testing/server.js';
import { waitFor } from '../../../testing/wait.js';

type Writer = 'atomic rename' | 'in place';
const WRITERS: Writer[] = ['atomic rename', 'in place'];

/** Another program writing the file: an editor's atomic save (temp file renamed over) or an in-place rewrite. */
async function writeOutside(file: string, content: string, how: Writer): Promise<void> {
  if (how === 'in place') {
    await fs.writeFile(file, content);
    return;
  }
  const temp = `${file}.~${Math.random().toString(36).slice(2)}`;
  await fs.writeFile(temp, content);
  await fs.rename(temp, file);
}

const stream = (text: string) => ({ output_type: 'stream', name: 'stdout', text });

/** Three cells, the last with an output; the ids are the file's (nbformat 4.5). */
function threeCells(second = 'b = 2') {
  return v4Notebook([
    v4CodeCell('a = 1', { id: 'one' }),
    v4CodeCell(second, { id: 'two' }),
    v4CodeCell('print(3)', { id: 'three', outputs: [stream('3\n')], execution_count: 3 }),
  ]);
}

const sources = (client: CollabClient) => client.model.cells.map((cell) => cell.getSource());
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Changes of the file on disk made by other programs, merged into the open document cell by cell. */
describe('collaboration: outside edits merged', () => {
  let server: TestServer;
  const clients: CollabClient[] = [];

  async function start(tuning: Record<string, number> = {}): Promise<void> {
    // pollMs 0: a change must be seen by the watch alone
    server = await startServer({ collaborationTuning: { saveDelayMs: 300, pollMs: 0, idleMs: 500, ...tuning } });
  }

  async function open(name: string): Promise<CollabClient> {
    const client = await openCollabClient(server.url, name);
    clients.push(client);
    return client;
  }

  async function onDisk(name: string): Promise<{ cells: Array<{ id: string; source: string }> }> {
    const response = await server.fetch(`api/contents/${name}`);
    return ((await response.json()) as { content: { cells: Array<{ id: string; source: string }> } }).content;
  }

  afterEach(async () => {
    for (const client of clients.splice(0)) client.close();
    await server?.close();
  });

  for (const how of WRITERS) {
    it(`${how}: a client's edit in another cell survives and reaches the file; unchanged cells keep their objects and outputs`, async () => {
      await start();
      const file = path.join(server.root, 'nb.ipynb');
      await fs.writeFile(file, JSON.stringify(threeCells()));
      const a = await open('nb.ipynb');
      const b = await open('nb.ipynb');
      const first = b.model.getCell(0).ymodel;
      const third = b.model.getCell(2) as YCodeCell;
      const thirdOutputs = third.youtputs;
      // A types in the first cell; at once another program changes the second.
      a.model.getCell(0).updateSource(5, 5, ' + 1');
      await writeOutside(file, JSON.stringify(threeCells('b = 20')), how);
      const want = ['a = 1 + 1', 'b = 20', 'print(3)'];
      for (const client of [a, b]) {
        await waitFor(() => JSON.stringify(sources(client)) === JSON.stringify(want), { what: `${how}: merged` });
      }
      await waitFor(async () => (await onDisk('nb.ipynb')).cells.map((c) => c.source).join('|') === want.join('|'), {
        what: 'both edits in the file',
      });
      await sleep(500); // real time under test: for another save delay, nothing reverts
      expect(sources(a)).toEqual(want);
      expect((await onDisk('nb.ipynb')).cells.map((c) => c.source)).toEqual(want);
      expect(b.model.getCell(0).ymodel).toBe(first);
      expect(b.model.getCell(2)).toBe(third);
      expect(third.youtputs).toBe(thirdOutputs);
      expect(third.getOutputs()).toEqual([stream('3\n')]);
      expect(b.model.cells.map((cell) => cell.id)).toEqual(['one', 'two', 'three']);
    }, 60_000);
  }

  it('an edit to the same cell: the file wins on every client, the cell carries the text it replaced, the file keeps the outside text', async () => {
    await start({ saveDelayMs: 600_000 }); // A's edit stays unsaved
    const file = path.join(server.root, 'nb.ipynb');
    await fs.writeFile(file, JSON.stringify(threeCells()));
    const a = await open('nb.ipynb');
    const b = await open('nb.ipynb');
    a.model.getCell(1).updateSource(5, 5, ' # mine');
    await waitFor(() => b.model.getCell(1).getSource() === 'b = 2 # mine', { what: 'relay' });
    await writeOutside(file, JSON.stringify(threeCells('b = "theirs"')), 'atomic rename');
    for (const client of [a, b]) {
      await waitFor(() => client.model.getCell(1).getSource() === 'b = "theirs"', { what: 'the file wins' });
      expect(client.model.getCell(1).ymodel.get('changed_on_disk')).toEqual({ replaced: 'b = 2 # mine' });
    }
    // The notice is the document's, never the file's; the outside text was not overwritten, by a save either.
    expect(await a.save()).toBe('success');
    const saved = JSON.parse(await fs.readFile(file, 'utf8')) as { cells: Array<Record<string, unknown>> };
    expect(saved.cells[1]?.source).toBe('b = "theirs"');
    expect(JSON.stringify(saved)).not.toContain('changed_on_disk');
  }, 60_000);

  it('added, removed and moved cells follow; metadata merges key by key; no cell is duplicated', async () => {
    await start();
    const file = path.join(server.root, 'nb.ipynb');
    await fs.writeFile(file, JSON.stringify({ ...threeCells(), metadata: { kernelspec: { name: 'python3' } } }));
    const a = await open('nb.ipynb');
    const b = await open('nb.ipynb');
    const kept = b.model.getCell(0).ymodel;
    // A adds a cell after the first and sets a metadata key of its own.
    a.model.insertCell(1, { cell_type: 'markdown', source: '# by A', id: 'mine' });
    a.model.setMetadata('by_a', 1);
    await waitFor(() => b.model.cells.length === 4, { what: 'relay' });
    // Outside: "three" moved before "one", "two" deleted, a new markdown cell, other metadata.
    const outside = v4Notebook(
      [
        v4CodeCell('print(3)', { id: 'three', outputs: [stream('3\n')], execution_count: 3 }),
        v4CodeCell('a = 1', { id: 'one' }),
        v4MarkdownCell('# new', { id: 'new' }),
      ],
      { kernelspec: { name: 'python3' }, outside: true },
    );
    await writeOutside(file, JSON.stringify(outside), 'atomic rename');
    const want = ['three', 'one', 'mine', 'new'];
    for (const client of [a, b]) {
      await waitFor(() => client.model.cells.map((cell) => cell.id).join() === want.join(), { what: 'structure' });
      expect(client.model.getMetadata()).toMatchObject({ kernelspec: { name: 'python3' }, outside: true, by_a: 1 });
    }
    expect(b.model.getCell(1).ymodel).toBe(kept); // one cell moved, not every cell
    await waitFor(async () => (await onDisk('nb.ipynb')).cells.map((c) => c.id).join() === want.join(), {
      what: 'the merge saved',
    });
  }, 60_000);

  it('a burst of rewrites (a git checkout) converges on the last, with no duplicate cells, and the file is left as written', async () => {
    await start();
    const file = path.join(server.root, 'nb.ipynb');
    await fs.writeFile(file, JSON.stringify(threeCells()));
    const a = await open('nb.ipynb');
    const b = await open('nb.ipynb');
    const version = (n: number) =>
      v4Notebook(
        Array.from({ length: 1 + (n % 4) }, (_, i) => v4CodeCell(`v${n} cell ${i}`, { id: `c${(n + i) % 5}` })),
      );
    let last = '';
    for (let n = 0; n < 20; n++) {
      last = `${JSON.stringify(version(n), null, 1)}\n`;
      await writeOutside(file, last, n % 2 === 0 ? 'atomic rename' : 'in place');
      if (n % 5 === 0) await sleep(5); // real time under test: the burst spread over time, as a checkout writes
    }
    const want = version(19).cells.map((cell) => cell.source);
    for (const client of [a, b]) {
      await waitFor(() => JSON.stringify(sources(client)) === JSON.stringify(want), { what: 'the last version' });
      const ids = client.model.cells.map((cell) => cell.id);
      expect(new Set(ids).size).toBe(ids.length);
    }
    await sleep(800); // real time under test: past a save delay, no late merge saves over the file
    expect(await fs.readFile(file, 'utf8')).toBe(last);
    expect(sources(a)).toEqual(want);
  }, 60_000);

  it('a change reaches the clients within 0.5 s (median of 11)', async () => {
    await start();
    const file = path.join(server.root, 'nb.ipynb');
    await fs.writeFile(file, JSON.stringify(threeCells()));
    const a = await open('nb.ipynb');
    const latencies: number[] = [];
    for (let n = 0; n < 11; n++) {
      const text = `b = ${n + 100}`;
      const started = performance.now();
      await writeOutside(file, JSON.stringify(threeCells(text)), n % 2 === 0 ? 'atomic rename' : 'in place');
      await waitFor(() => a.model.getCell(1).getSource() === text, { intervalMs: 5, what: `change ${n}` });
      latencies.push(performance.now() - started);
      await sleep(50); // real time under test: each change a moment after the last, not one burst
    }
    latencies.sort((x, y) => x - y);
    const median = latencies[5] as number;
    expect(median).toBeLessThan(500);
  }, 60_000);

  it('an unparseable write is ignored until it parses, logged once, never saved over; then it merges', async () => {
    await start();
    const file = path.join(server.root, 'nb.ipynb');
    await fs.writeFile(file, JSON.stringify(threeCells()));
    const a = await open('nb.ipynb');
    const half = JSON.stringify(threeCells('b = "half"')).slice(0, 60);
    const logged = () =>
      server.logger.lines.filter((line) => line.includes('nb.ipynb') && line.includes('cannot be read'));
    await writeOutside(file, half, 'in place');
    await waitFor(() => logged().length > 0, { what: 'the unparseable write seen' });
    await writeOutside(file, `${half}  `, 'in place'); // the editor writes again, still half
    a.model.getCell(0).updateSource(0, 0, '# typed\n');
    // A save (as the save delay's, sent after the typing) looks at the file again and leaves it be.
    await a.save();
    expect(await fs.readFile(file, 'utf8')).toBe(`${half}  `);
    expect(logged()).toHaveLength(1);
    expect(sources(a)).toEqual(['# typed\na = 1', 'b = 2', 'print(3)']);
    await writeOutside(file, JSON.stringify(threeCells('b = "whole"')), 'in place');
    const want = ['# typed\na = 1', 'b = "whole"', 'print(3)'];
    await waitFor(() => JSON.stringify(sources(a)) === JSON.stringify(want), { what: 'merged once it parses' });
    await waitFor(async () => (await onDisk('nb.ipynb')).cells.map((c) => c.source).join('|') === want.join('|'), {
      what: 'the typing saved',
    });
    expect(server.logger.lines.filter((line) => line.includes('cannot be read'))).toHaveLength(1);
  }, 60_000);

  it('the watch follows a rename through the contents API; a file removed by another program closes the room', async () => {
    await start();
    await fs.writeFile(path.join(server.root, 'nb.ipynb'), JSON.stringify(threeCells()));
    const a = await open('nb.ipynb');
    const moved = await server.fetch('api/contents/nb.ipynb', { method: 'PATCH', json: { path: 'moved.ipynb' } });
    expect(moved.status).toBe(200);
    await sleep(400); // real time under test: past the wait for a missing file, the room is still open
    expect(a.closes).toEqual([]);
    const file = path.join(server.root, 'moved.ipynb');
    await writeOutside(file, JSON.stringify(threeCells('b = "after the rename"')), 'in place');
    await waitFor(() => a.model.getCell(1).getSource() === 'b = "after the rename"', { what: 'the watch moved' });
    await fs.rm(file);
    await waitFor(() => a.closes.length > 0, { what: 'the close' });
    expect(a.closes[0]).toMatchObject({ code: 4404 });
  }, 60_000);

  it("shares the file's hash in the document's state after a load, a save and a change on disk (JupyterLab checks it before saving)", async () => {
    await start();
    const file = path.join(server.root, 'hashed.ipynb');
    await fs.writeFile(file, JSON.stringify(threeCells()));
    const a = await open('hashed.ipynb');
    const fileHash = async () =>
      ((await (await server.fetch('api/contents/hashed.ipynb?content=0&hash=1')).json()) as { hash: string }).hash;
    const shared = () => a.model.getState('hash');
    await waitFor(async () => shared() === (await fileHash()), { what: 'the hash after loading' });
    const loaded = shared();
    a.model.getCell(0).updateSource(5, 5, ' + 1');
    await waitFor(async () => (await onDisk('hashed.ipynb')).cells[0]?.source === 'a = 1 + 1', { what: 'saved' });
    await waitFor(async () => shared() !== loaded && shared() === (await fileHash()), {
      what: 'the hash after a save',
    });
    const saved = shared();
    await writeOutside(file, JSON.stringify(threeCells('b = "outside"')), 'atomic rename');
    await waitFor(() => sources(a)[1] === 'b = "outside"', { what: 'merged' });
    await waitFor(async () => shared() !== saved && shared() === (await fileHash()), {
      what: 'the hash after a merge',
    });
  });

  it('a text file open in a room merges by text: edits on other lines survive on both sides', async () => {
    await start({ saveDelayMs: 600_000 });
    const file = path.join(server.root, 'notes.txt');
    await fs.writeFile(file, 'one\ntwo\nthree\n');
    const a = await openCollabFile(server.url, 'notes.txt');
    clients.push(a as unknown as CollabClient);
    a.model.updateSource(3, 3, ' (A)');
    await writeOutside(file, 'one\ntwo\nthree (outside)\n', 'atomic rename');
    await waitFor(() => a.model.getSource() === 'one (A)\ntwo\nthree (outside)\n', { what: 'text merged' });
  }, 60_000);
});
