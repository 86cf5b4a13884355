// needs: kernel
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { YCodeCell } from '@jupyter/ydoc';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CollabClient, collabSession, openCollabClient } from '../../../testing/collaboration.js';
import { v4CodeCell, v4MarkdownCell, v4Notebook } from '../../../testing/notebooks.js';
import { startServer, type TestServer } from '../../../testing/server.js';
import { waitFor } from '../../../testing/wait.js';

interface Cell {
  cell_type: string;
  source: string;
  metadata: { trusted?: boolean };
}

const HTML_OUTPUT = {
  output_type: 'display_data',
  data: { 'text/html': '<b>rich</b>', 'text/plain': 'rich' },
  metadata: {},
};

/**
 * Saves of a shared notebook are signed as Jupyter signs a save (nbformat's NotebookNotary): when
 * every code cell is trusted, i.e. its outputs came from a signed file or a server run, or need no trust.
 */
describe('signing the saves of shared notebooks', () => {
  let server: TestServer;
  const clients: CollabClient[] = [];

  beforeAll(async () => {
    server = await startServer({ collaborationTuning: { saveDelayMs: 100, pollMs: 200, idleMs: 300 } });
  }, 60_000);

  afterAll(async () => {
    for (const client of clients) client.close();
    await server.close();
  });

  async function write(name: string, cells: Record<string, unknown>[], signed: boolean): Promise<void> {
    await fs.writeFile(path.join(server.root, name), JSON.stringify(v4Notebook(cells)));
    if (signed) expect((await server.fetch(`api/contents/${name}/trust`, { method: 'POST' })).status).toBe(201);
  }

  async function open(name: string): Promise<CollabClient> {
    const client = await openCollabClient(server.url, name);
    clients.push(client);
    return client;
  }

  /** The notebook as the contents API serves it: code cells `metadata.trusted` when its signature is valid. */
  async function served(name: string): Promise<{ trusted: boolean; sources: string[] }> {
    const res = await server.fetch(`api/contents/${name}?content=1`);
    const cells = ((await res.json()) as { content: { cells: Cell[] } }).content.cells;
    const code = cells.filter((cell) => cell.cell_type === 'code');
    return { trusted: code.every((cell) => cell.metadata.trusted === true), sources: cells.map((c) => c.source) };
  }

  /** Waits until the file holds `source` in its first cell (saved by the room), then says whether it is trusted. */
  async function savedWith(name: string, source: string, trusted: boolean): Promise<void> {
    await waitFor(
      async () => {
        const nb = await served(name);
        return nb.sources[0] === source && nb.trusted === trusted;
      },
      { timeoutMs: 20_000, what: `${name} saved with "${source}", ${trusted ? 'trusted' : 'untrusted'}` },
    );
    // A little later (a save in flight, a second save) it still is.
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(await served(name)).toMatchObject({ trusted });
  }

  it('(a) a signed notebook edited through the room stays trusted', async () => {
    await write('a.ipynb', [v4CodeCell('show()', { id: 'a', outputs: [HTML_OUTPUT] }), v4MarkdownCell('# T')], true);
    expect((await served('a.ipynb')).trusted).toBe(true);
    const client = await open('a.ipynb');
    client.model.getCell(0).setSource('show(1)');
    await savedWith('a.ipynb', 'show(1)', true);
    // The notebook page keeps `trusted` out of the shared cell metadata: trust is the server's.
    client.model.transact(() => {
      client.model.getCell(0).setMetadata({});
      client.model.getCell(0).setSource('show(2)');
    });
    await savedWith('a.ipynb', 'show(2)', true);
  });

  it('a signed nbformat 4.4 notebook (no cell ids) edited through the room stays trusted', async () => {
    const cell = { cell_type: 'code', source: 'show()', metadata: {}, outputs: [HTML_OUTPUT], execution_count: 1 };
    const nb = { ...v4Notebook([cell]), nbformat_minor: 4 };
    await fs.writeFile(path.join(server.root, 'old.ipynb'), JSON.stringify(nb));
    expect((await server.fetch('api/contents/old.ipynb/trust', { method: 'POST' })).status).toBe(201);
    const client = await open('old.ipynb');
    client.model.getCell(0).setSource('show(1)');
    await savedWith('old.ipynb', 'show(1)', true);
  });

  it('(b) an untrusted notebook edited through the room stays untrusted', async () => {
    await write('b.ipynb', [v4CodeCell('show()', { id: 'b', outputs: [HTML_OUTPUT] })], false);
    const client = await open('b.ipynb');
    client.model.getCell(0).setSource('show(1)');
    await savedWith('b.ipynb', 'show(1)', false);
  });

  it('(c) an untrusted notebook whose cells the server re-ran is trusted after the save', async () => {
    await write(
      'c.ipynb',
      [
        v4CodeCell("from IPython.display import HTML\nHTML('<i>run</i>')", { id: 'c', outputs: [HTML_OUTPUT] }),
        v4CodeCell('x = 1', { id: 'quiet', outputs: [{ output_type: 'stream', name: 'stdout', text: 'ok\n' }] }),
      ],
      false,
    );
    const res = await server.fetch('api/kernels', { method: 'POST', json: { name: 'python3' } });
    const kernelId = ((await res.json()) as { id: string }).id;
    const session = await collabSession(server.url, 'c.ipynb');
    const run = await server.fetch(`api/kernels/${kernelId}/execute`, {
      method: 'POST',
      json: { metadata: { document_id: `json:notebook:${session.fileId}`, cell_id: 'c' } },
    });
    expect(run.status).toBe(202);
    const ranHtml = async () => {
      const file = JSON.parse(await fs.readFile(path.join(server.root, 'c.ipynb'), 'utf8')) as {
        cells: Array<{ outputs: Array<{ data?: Record<string, unknown> }> }>;
      };
      return String(file.cells[0]?.outputs[0]?.data?.['text/html']) === '<i>run</i>'; // a one-line list
    };
    // The run cell's HTML is the kernel's; the cell with only a stream output never needed trust.
    await waitFor(async () => (await ranHtml()) && (await served('c.ipynb')).trusted, {
      timeoutMs: 90_000,
      what: 'the re-run cell saved and signed',
    });
    await server.fetch(`api/kernels/${kernelId}`, { method: 'DELETE' });
  }, 120_000);

  it('(d) a client writing an HTML output makes the notebook untrusted on the next save', async () => {
    await write('d.ipynb', [v4CodeCell('x', { id: 'd' }), v4CodeCell('y', { id: 'e', outputs: [HTML_OUTPUT] })], true);
    const client = await open('d.ipynb');
    client.model.getCell(0).setSource('x1');
    await savedWith('d.ipynb', 'x1', true);
    client.model.transact(() => {
      (client.model.getCell(0) as YCodeCell).setOutputs([
        { output_type: 'display_data', data: { 'text/html': '<script>alert(1)</script>' }, metadata: {} },
      ]);
      client.model.getCell(0).setSource('x2');
    });
    await savedWith('d.ipynb', 'x2', false);
    // Nor does claiming trust in the shared metadata help: trust is the server's.
    client.model.getCell(0).setMetadata({ trusted: true });
    client.model.getCell(0).setSource('x3');
    await savedWith('d.ipynb', 'x3', false);
    // A client clearing the outputs makes the cell safe again.
    (client.model.getCell(0) as YCodeCell).setOutputs([]);
    client.model.getCell(0).setSource('x4');
    await savedWith('d.ipynb', 'x4', true);
  });

  it('(e) "Trust notebook" on an open notebook keeps its later saves trusted', async () => {
    await write('e.ipynb', [v4CodeCell('show()', { id: 'f', outputs: [HTML_OUTPUT] })], false);
    const client = await open('e.ipynb');
    client.model.getCell(0).setSource('show(1)');
    await savedWith('e.ipynb', 'show(1)', false);
    expect((await server.fetch('api/contents/e.ipynb/trust', { method: 'POST' })).status).toBe(201);
    expect((await served('e.ipynb')).trusted).toBe(true);
    client.model.getCell(0).setSource('show(2)');
    await savedWith('e.ipynb', 'show(2)', true);
  });
});
