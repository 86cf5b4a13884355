// needs: kernel
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collabSession, openCollabClient } from '../../../testing/collaboration.js';
import { v4CodeCell, v4Notebook } from '../../../testing/notebooks.js';
import { startServer, type TestServer } from '../../../testing/server.js';
import { waitFor } from '../../../testing/wait.js';

interface Cell {
  id: string;
  outputs: Array<Record<string, unknown>>;
  execution_count: number | null;
  source: string | string[];
}

/** Server-side execution with no client connected: outputs land in the document and in the file. */
describe('POST /api/kernels/<id>/execute (python3)', () => {
  let server: TestServer;
  let kernelId: string;

  beforeAll(async () => {
    server = await startServer({ collaborationTuning: { saveDelayMs: 200, pollMs: 200, idleMs: 300 } });
    const res = await server.fetch('api/kernels', { method: 'POST', json: { name: 'python3' } });
    kernelId = ((await res.json()) as { id: string }).id;
  }, 120_000);

  afterAll(async () => {
    await server.close();
  });

  async function notebook(name: string, cells: Record<string, unknown>[]): Promise<string> {
    await fs.writeFile(path.join(server.root, name), JSON.stringify(v4Notebook(cells)));
    const session = await collabSession(server.url, name);
    return `json:notebook:${session.fileId}`;
  }

  /** The cells of the file on disk, as the contents API reads them (multi-line strings joined). */
  async function fileCells(name: string): Promise<Cell[]> {
    const res = await server.fetch(`api/contents/${name}`);
    return ((await res.json()) as { content: { cells: Cell[] } }).content.cells;
  }

  const text = (output: Record<string, unknown> | undefined) =>
    Array.isArray(output?.text) ? output.text.join('') : String(output?.text ?? '');

  async function execute(documentId: string, cellId: string, code?: string) {
    const res = await server.fetch(`api/kernels/${kernelId}/execute`, {
      method: 'POST',
      json: { ...(code === undefined ? {} : { code }), metadata: { document_id: documentId, cell_id: cellId } },
    });
    expect(res.status).toBe(202);
    const body = (await res.json()) as { request_id: string; status: string };
    expect(res.headers.get('location')).toBe(server.path(`api/kernels/${kernelId}/requests/${body.request_id}`));
    return body.request_id;
  }

  async function finished(requestId: string) {
    let last: Record<string, unknown> = {};
    await waitFor(
      async () => {
        const res = await server.fetch(`api/kernels/${kernelId}/requests/${requestId}`);
        last = (await res.json()) as Record<string, unknown>;
        return res.status === 200;
      },
      { timeoutMs: 90_000, what: 'the run to end' },
    );
    return last;
  }

  it('runs queued cells in order with no page open; \\r, clear_output(wait) and display updates as in the page', async () => {
    const documentId = await notebook('run.ipynb', [
      v4CodeCell("import sys, time\nfor i in range(3):\n    print(f'line {i}', flush=True)\n    time.sleep(0.1)", {
        id: 'a',
      }),
      v4CodeCell("for p in (10, 50, 100):\n    print(f'\\r{p}%', end='', flush=True)\nprint()", { id: 'b' }),
      v4CodeCell(
        "from IPython.display import display, clear_output\nh = display('first', display_id=True)\nh.update('updated')\nprint('gone')\nclear_output(wait=True)\nprint('kept')",
        { id: 'c' },
      ),
      v4CodeCell('6 * 7', { id: 'd' }),
    ]);
    // Queued all at once, no client connected: they run one after the other.
    const ids = [];
    for (const cell of ['a', 'b', 'c', 'd']) ids.push(await execute(documentId, cell));
    const results = [];
    for (const id of ids) results.push(await finished(id));
    expect(results.map((r) => r.status)).toEqual(['ok', 'ok', 'ok', 'ok']);
    const counts = results.map((r) => r.execution_count as number);
    const [first = 0, , third = 0] = counts;
    expect(counts[1]).toBe(first + 1);
    expect(counts[3]).toBe(third + 1);

    await waitFor(async () => (await fileCells('run.ipynb'))[3]?.execution_count === counts[3], {
      timeoutMs: 20_000,
      what: 'the save',
    });
    const cells = await fileCells('run.ipynb');
    expect(text(cells[0]?.outputs[0])).toBe('line 0\nline 1\nline 2\n');
    expect(cells[0]?.outputs).toHaveLength(1);
    expect(text(cells[1]?.outputs[0])).toBe('100%\n');
    // clear_output(wait=True) cleared 'first' (updated) and 'gone' once 'kept' came.
    expect(cells[2]?.outputs.map((o) => o.output_type)).toEqual(['stream']);
    expect(text(cells[2]?.outputs[0])).toBe('kept\n');
    expect(cells[3]?.outputs[0]).toMatchObject({ output_type: 'execute_result', data: { 'text/plain': '42' } });
    expect(cells.map((c) => c.execution_count)).toEqual(counts);

    // A client opening now sees everything, and no cell still marked running.
    const client = await openCollabClient(server.url, 'run.ipynb');
    try {
      const model = client.model.toJSON();
      expect((model.cells[3] as unknown as Cell).outputs[0]).toMatchObject({ data: { 'text/plain': '42' } });
      expect(client.model.cells.map((cell) => cell.ymodel.get('execution_state') ?? 'idle')).toEqual(
        Array(4).fill('idle'),
      );
    } finally {
      client.close();
    }
  }, 180_000);

  it('update_display_data reaches an output of an earlier cell; a failing cell aborts those queued behind it', async () => {
    const documentId = await notebook('display.ipynb', [
      v4CodeCell("from IPython.display import display\nh = display('v1', display_id='shown')", { id: 'a' }),
      v4CodeCell("h.update('v2')", { id: 'b' }),
      v4CodeCell('1/0', { id: 'c' }),
      v4CodeCell('print("never")', { id: 'd' }),
    ]);
    const ids = [];
    for (const cell of ['a', 'b', 'c', 'd']) ids.push(await execute(documentId, cell));
    const results = [];
    for (const id of ids) results.push(await finished(id));
    expect(results.map((r) => r.status)).toEqual(['ok', 'ok', 'error', 'aborted']);
    expect(results[2]).toMatchObject({ ename: 'ZeroDivisionError' });
    await waitFor(async () => (await fileCells('display.ipynb'))[2]?.outputs.length === 1, { what: 'the save' });
    const cells = await fileCells('display.ipynb');
    expect(cells[0]?.outputs[0]).toMatchObject({ output_type: 'display_data', data: { 'text/plain': "'v2'" } });
    expect(cells[2]?.outputs[0]).toMatchObject({ output_type: 'error', ename: 'ZeroDivisionError' });
    expect(cells[3]?.outputs).toEqual([]);
  }, 180_000);

  it('refuses bad requests: unknown kernel, document or cell, malformed body', async () => {
    const documentId = await notebook('bad.ipynb', [v4CodeCell('1', { id: 'a' })]);
    const post = (kernel: string, body: unknown) =>
      server.fetch(`api/kernels/${kernel}/execute`, { method: 'POST', json: body });
    const meta = (document_id: string, cell_id: string) => ({ metadata: { document_id, cell_id } });
    expect((await post('00000000-0000-4000-8000-000000000000', meta(documentId, 'a'))).status).toBe(404);
    expect((await post(kernelId, meta(documentId, 'zzz'))).status).toBe(404);
    expect((await post(kernelId, meta('json:notebook:00000000-0000-4000-8000-000000000000', 'a'))).status).toBe(404);
    expect((await post(kernelId, meta('nonsense', 'a'))).status).toBe(400);
    expect((await post(kernelId, { code: 1 })).status).toBe(400);
    expect((await server.fetch(`api/kernels/${kernelId}/requests/nope`)).status).toBe(404);
  }, 60_000);
});
