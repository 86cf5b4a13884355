// needs: kernel
import * as fs from 'node:fs/promises';
import * as nodePath from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Send, startServer, type TestServer, TRANSPORTS } from '../../../testing/server.js';

const base64 = (n: number, fill: number) =>
  Buffer.alloc(Math.ceil((n * 3) / 4), fill)
    .toString('base64')
    .slice(0, n);

/** A notebook mostly of long strings (a body read from its bytes on the socket), as a client sends it. */
function notebook(options: { long?: string; cells?: number; id?: string } = {}) {
  const long = options.long ?? base64(60_000, 0xa7);
  return {
    cells: Array.from({ length: options.cells ?? 8 }, (_, i) => ({
      cell_type: 'code',
      id: i === 0 && options.id !== undefined ? options.id : `c${i}`,
      metadata: { trusted: false },
      source: `plot(${i})\nprint("é ✓")`,
      execution_count: i,
      outputs: [{ output_type: 'display_data', data: { 'image/png': long, 'text/plain': '<Figure>' }, metadata: {} }],
    })),
    metadata: { kernelspec: { name: 'python3', display_name: 'Python 3' } },
    nbformat: 4,
    nbformat_minor: 5,
  };
}

/** What nbformat writes for the content a client sends (sorted keys, split lines, no `trusted`). */
function nbformatBytes(content: ReturnType<typeof notebook>): string {
  const sort = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(sort)
      : typeof v === 'object' && v !== null
        ? Object.fromEntries(
            Object.keys(v)
              .sort()
              .map((k) => [k, sort((v as Record<string, unknown>)[k])]),
          )
        : v;
  const cells = content.cells.map(({ metadata: _m, ...cell }) => ({
    ...cell,
    metadata: {},
    source: cell.source.match(/[^\n]*\n|[^\n]+$/g),
    outputs: cell.outputs.map((o) => ({ ...o, data: { ...o.data, 'text/plain': [o.data['text/plain']] } })),
  }));
  return `${JSON.stringify(sort({ ...content, cells }), null, 1)}\n`;
}

/** A PUT of a big notebook goes through the byte parse: the file, the answer and the messages as before. */
describe.each(TRANSPORTS)('PUT /api/contents/<big notebook> over %s', (kind) => {
  let fx: TestServer;
  let send: Send;
  beforeAll(async () => {
    fx = await startServer();
    send = fx.send(kind);
  });
  afterAll(() => fx.close());

  it('writes what nbformat writes, and serves it back', async () => {
    const content = notebook();
    const put = await send('/api/contents/big.ipynb', { method: 'PUT', json: { type: 'notebook', content } });
    expect(put.status).toBe(201);
    const model = await put.json();
    expect(model.message).toBeUndefined();
    expect(await fs.readFile(nodePath.join(fx.root, 'big.ipynb'), 'utf8')).toBe(nbformatBytes(content));
    for (let i = 0; i < 3; i++) {
      const got = await (await send('/api/contents/big.ipynb')).json();
      expect(got.content.cells[3].outputs[0].data['image/png']).toBe(content.cells[3]?.outputs[0]?.data['image/png']);
      expect(got.content.cells[0].source).toBe(content.cells[0]?.source);
    }
    // saved again over itself (the file exists now): 200, same bytes
    const again = await send('/api/contents/big.ipynb', { method: 'PUT', json: { type: 'notebook', content } });
    expect(again.status).toBe(200);
    expect(await fs.readFile(nodePath.join(fx.root, 'big.ipynb'), 'utf8')).toBe(nbformatBytes(content));
  });

  it('words a validation message with the real strings', async () => {
    const id = base64(20_000, 0x11); // far too long for a cell id
    const content = notebook({ id });
    const put = await send('/api/contents/bad-id.ipynb', { method: 'PUT', json: { type: 'notebook', content } });
    expect(put.status).toBe(201);
    const { message } = await put.json();
    expect(message).toMatch(/^Notebook validation failed: /);
    expect(message).not.toMatch(/nbserve-/);
    expect(await fs.readFile(nodePath.join(fx.root, 'bad-id.ipynb'), 'utf8')).toContain(`"id": "${id}"`);
  });

  it('saves a long text file and long fields as their strings', async () => {
    const text = `"${base64(80_000, 0x22)}"`.slice(1, -1);
    const put = await send('/api/contents/long.txt', {
      method: 'PUT',
      json: { type: 'file', format: 'text', content: text, padding: base64(70_000, 0x33) },
    });
    expect(put.status).toBe(201);
    expect(await fs.readFile(nodePath.join(fx.root, 'long.txt'), 'utf8')).toBe(text);
    const long = base64(30_000, 0x44);
    const bad = await send('/api/contents/long2.txt', {
      method: 'PUT',
      json: { type: long, format: 'text', content: base64(70_000, 0x55) },
    });
    expect(bad.status).toBe(400);
    expect((await bad.json()).message).toBe(`Unhandled contents type: ${long}`);
  });
});
