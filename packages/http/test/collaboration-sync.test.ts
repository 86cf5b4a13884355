import { promises as fs } from 'node:fs';
import path from 'node:path';
import { insertSharedCells } from '@nbserve/core/ycells';
import { afterEach, beforeEach, describe, expect, it, type MockInstance, vi } from 'vitest';
import { type CollabClient, openCollabClient } from '../../../testing/collaboration.js';
import { v4CodeCell, v4MarkdownCell, v4Notebook } from '../../../testing/notebooks.js';
import { startServer, type TestServer } from '../../../testing/server.js';
import { waitFor } from '../../../testing/wait.js';

const TUNING = { saveDelayMs: 200, pollMs: 200, idleMs: 500 };

function cellsOf(notebook: { cells: unknown[] }) {
  return (notebook.cells as Array<Record<string, unknown>>).map((cell) => ({
    id: cell.id,
    cell_type: cell.cell_type,
    source: Array.isArray(cell.source) ? cell.source.join('') : cell.source,
  }));
}

async function onDisk(server: TestServer, name: string) {
  return JSON.parse(await fs.readFile(path.join(server.root, name), 'utf8')) as { cells: unknown[] };
}

describe('live documents: y-websocket providers on @jupyter/ydoc notebooks', () => {
  let server: TestServer;
  const clients: CollabClient[] = [];
  let warnings: MockInstance[] = [];

  beforeEach(async () => {
    // yjs's complaints (a type read before it is in a document, a second copy of yjs) go to the
    // console, from the server and from the clients alike (both run in this process).
    warnings = [vi.spyOn(console, 'warn'), vi.spyOn(console, 'error')];
    server = await startServer({ collaborationTuning: TUNING });
    const notebook = v4Notebook([v4MarkdownCell('# Title', { id: 'm1' }), v4CodeCell('x = 1', { id: 'c1' })]);
    await fs.writeFile(path.join(server.root, 'shared.ipynb'), JSON.stringify(notebook));
  });

  afterEach(async () => {
    for (const client of clients.splice(0)) client.close();
    await server.close();
    const printed = warnings.flatMap((spy) => spy.mock.calls.map((args) => args.map(String).join(' ')));
    for (const spy of warnings) spy.mockRestore();
    expect(printed.filter((line) => /yjs|Y\.Doc/i.test(line))).toEqual([]);
  });

  async function open(): Promise<CollabClient> {
    const client = await openCollabClient(server.url, 'shared.ipynb');
    clients.push(client);
    return client;
  }

  it('PUT session indexes the file once (201, then 200) and 404s for a missing file', async () => {
    const send = (p: string, body: unknown) =>
      server.fetch(`api/collaboration/session/${p}`, { method: 'PUT', json: body });
    const first = await send('shared.ipynb', { format: 'json', type: 'notebook' });
    expect(first.status).toBe(201);
    const body = (await first.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ format: 'json', type: 'notebook' });
    expect(body.fileId).toMatch(/^[0-9a-f-]{36}$/);
    expect(typeof body.sessionId).toBe('string');
    const again = await send('shared.ipynb', { format: 'json', type: 'notebook' });
    expect(again.status).toBe(200);
    expect(((await again.json()) as Record<string, unknown>).fileId).toBe(body.fileId);
    expect((await send('missing.ipynb', { format: 'json', type: 'notebook' })).status).toBe(404);
    expect((await send('shared.ipynb', { format: 'json' })).status).toBe(400);
    expect((await send('shared.ipynb', { format: 'xml', type: 'notebook' })).status).toBe(400);
    const byId = await server.fetch(`api/fileid/path?id=${String(body.fileId)}`);
    expect(await byId.json()).toEqual({ id: body.fileId, path: 'shared.ipynb' });
  });

  it('two providers converge after concurrent edits; the file follows; a late third gets everything', async () => {
    const a = await open();
    const b = await open();
    expect(cellsOf(a.model.toJSON())).toEqual(cellsOf(await onDisk(server, 'shared.ipynb')));
    // Concurrent: neither has seen the other's change when making its own.
    a.model.getCell(1).updateSource(5, 5, '\ny = 2');
    insertSharedCells(b.model, 2, [{ cell_type: 'code', source: 'print("from b")', id: 'c2' }]);
    b.model.getCell(0).updateSource(7, 7, ' by b');
    await waitFor(() => JSON.stringify(a.model.toJSON()) === JSON.stringify(b.model.toJSON()), { what: 'convergence' });
    const cells = cellsOf(a.model.toJSON());
    expect(cells).toEqual([
      { id: 'm1', cell_type: 'markdown', source: '# Title by b' },
      { id: 'c1', cell_type: 'code', source: 'x = 1\ny = 2' },
      { id: 'c2', cell_type: 'code', source: 'print("from b")' },
    ]);
    await waitFor(async () => JSON.stringify(cellsOf(await onDisk(server, 'shared.ipynb'))) === JSON.stringify(cells), {
      what: 'the save',
    });
    const c = await open();
    expect(c.model.toJSON()).toEqual(a.model.toJSON());
  });

  it('an empty notebook opened by two clients at once shows one blank cell to both', async () => {
    await fs.writeFile(path.join(server.root, 'empty.ipynb'), JSON.stringify(v4Notebook([])));
    const [a, b] = await Promise.all(
      [0, 1].map(async () => {
        const client = await openCollabClient(server.url, 'empty.ipynb');
        clients.push(client);
        return client;
      }),
    );
    for (const client of [a, b]) {
      const cells = client?.model.toJSON().cells ?? [];
      expect(cells.map((cell) => [cell.cell_type, cell.source, cell.outputs])).toEqual([['code', '', []]]);
    }
    expect(a?.model.getCell(0).id).toBe(b?.model.getCell(0).id);
  });
});
