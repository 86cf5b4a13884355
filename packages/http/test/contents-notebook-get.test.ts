import * as fs from 'node:fs/promises';
import * as nodePath from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Send, startServer, type TestServer, TRANSPORTS } from '../../../testing/server.js';

const png = Buffer.alloc(200_000, 3).toString('base64');
const onDisk = (source: string) =>
  `${JSON.stringify(
    {
      cells: [
        {
          cell_type: 'code',
          execution_count: 1,
          id: 'c1',
          metadata: {},
          outputs: [{ data: { 'image/png': png, 'text/plain': ['<img>'] }, metadata: {}, output_type: 'display_data' }],
          source: [source],
        },
      ],
      metadata: {},
      nbformat: 4,
      nbformat_minor: 5,
    },
    null,
    1,
  )}\n`;

/** GET of a notebook answers from cached JSON text while the file is unchanged: same bytes as parsing. */
describe.each(TRANSPORTS)('GET /api/contents/<notebook> over %s', (kind) => {
  let fx: TestServer;
  let send: Send;
  beforeAll(async () => {
    fx = await startServer();
    send = fx.send(kind);
    await fs.writeFile(nodePath.join(fx.root, 'big.ipynb'), onDisk('a = 1'));
  });
  afterAll(() => fx.close());

  it('answers the same JSON, headers and model on a repeated GET as on the first', async () => {
    const first = await send('/api/contents/big.ipynb');
    const second = await send('/api/contents/big.ipynb?type=notebook&content=1');
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    for (const res of [first, second]) {
      expect(res.headers.get('Content-Type')).toMatch(/^application\/json/);
      expect(res.headers.get('Cache-Control')).toBe('no-store');
      expect(res.headers.get('Last-Modified')).toMatch(/GMT$/);
    }
    const [a, b] = [await first.text(), await second.text()];
    expect(b).toBe(a);
    const model = JSON.parse(a);
    expect(Object.keys(model)).toEqual([
      'name',
      'path',
      'type',
      'writable',
      'created',
      'last_modified',
      'size',
      'mimetype',
      'content',
      'format',
      'hash',
      'hash_algorithm',
    ]);
    expect(model.size).toBe(Buffer.byteLength(onDisk('a = 1')));
    expect(model.content.cells[0].outputs[0].data['image/png']).toBe(png);
    expect(model.content.cells[0].metadata.trusted).toBe(false);
    // the parse path (the manager's plain get) gives the same text
    expect(a).toBe(JSON.stringify(await fx.app.services.contents.get('big.ipynb')));
  });

  it('serves a save and an edit on disk at once', async () => {
    const saved = await send('/api/contents/big.ipynb', {
      method: 'PUT',
      body: JSON.stringify({
        type: 'notebook',
        format: 'json',
        content: JSON.parse(onDisk('b = 2')),
      }),
      headers: { 'Content-Type': 'application/json' },
    });
    expect(saved.status).toBe(200);
    const afterSave = JSON.parse(await (await send('/api/contents/big.ipynb')).text());
    expect(afterSave.content.cells[0].source).toBe('b = 2');
    await fs.writeFile(nodePath.join(fx.root, 'big.ipynb'), onDisk('c = 3'));
    const afterEdit = JSON.parse(await (await send('/api/contents/big.ipynb')).text());
    expect(afterEdit.content.cells[0].source).toBe('c = 3');
  });

  it('?hash=1 still hashes the stored bytes', async () => {
    const res = await send('/api/contents/big.ipynb?hash=1');
    const model = JSON.parse(await res.text());
    expect(model.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(res.headers.get('ETag')).toBe(`"${model.hash}"`);
    expect(model.content.cells[0].source).toBe('c = 3');
  });
});
