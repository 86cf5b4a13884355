import * as fs from 'node:fs/promises';
import * as nodePath from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invalidNotebook } from '../../../testing/notebooks.js';
import { type Send, startServer, type TestServer, TRANSPORTS } from '../../../testing/server.js';

const INVALID = invalidNotebook();

/** What Notebook 6.4's test_upload_v2 uploads: `nbformat.v2.new_notebook()` with one code cell. */
const V2 = {
  nbformat: 2,
  metadata: {},
  worksheets: [
    { cells: [{ cell_type: 'code', collapsed: false, input: 'print("hi")', language: 'python', outputs: [] }] },
  ],
};

interface Model {
  type: string;
  path: string;
  content: { nbformat: number; nbformat_minor?: number; metadata: Record<string, unknown>; cells: unknown[] };
  message?: string;
}

describe.each(TRANSPORTS)('notebooks Jupyter reads although they are not valid v4, over %s', (kind) => {
  let fx: TestServer;
  let send: Send;

  beforeAll(async () => {
    fx = await startServer();
    await fs.mkdir(nodePath.join(fx.root, 'å b'));
    send = fx.send(kind);
  });
  afterAll(() => fx.close());

  const url = (path: string) => `/api/contents/${path.split('/').map(encodeURIComponent).join('/')}`;

  it('GET serves a notebook that does not validate, with the reason in `message`, every time', async () => {
    const path = 'å b/Validate tést.ipynb';
    await fs.writeFile(nodePath.join(fx.root, path), JSON.stringify(INVALID));
    for (let i = 0; i < 2; i++) {
      const res = await send(url(path));
      expect(res.status).toBe(200);
      const model = (await res.json()) as Model;
      expect(model.type).toBe('notebook');
      expect(model.path).toBe(path);
      expect(model.content).toEqual(INVALID);
      expect(model.message).toMatch(/^Notebook validation failed: .*nbformat_minor/);
    }
    // the user repairs it and saves: the message is gone
    const repaired = {
      ...INVALID,
      nbformat_minor: 5,
      cells: [{ cell_type: 'markdown', id: 'a', metadata: {}, source: '' }],
    };
    const put = await send(url(path), { method: 'PUT', body: JSON.stringify({ type: 'notebook', content: repaired }) });
    expect(put.status).toBe(200);
    expect(((await put.json()) as Model).message).toBeUndefined();
    expect(((await (await send(url(path))).json()) as Model).message).toBeUndefined();
  });

  it('PUT saves a notebook that does not validate and says why, as jupyter_server does', async () => {
    const res = await send(url('broken.ipynb'), {
      method: 'PUT',
      body: JSON.stringify({ type: 'notebook', content: INVALID }),
    });
    expect(res.status).toBe(201);
    expect(((await res.json()) as Model).message).toMatch(/^Notebook validation failed/);
    const stored = JSON.parse(await fs.readFile(nodePath.join(fx.root, 'broken.ipynb'), 'utf8'));
    expect(stored).toEqual(INVALID);
  });

  it('PUT upgrades an nbformat v2 upload to v4 (v2 -> v3 -> v4) and stores v4', async () => {
    const path = 'å b/Upload tést.ipynb';
    const res = await send(url(path), { method: 'PUT', body: JSON.stringify({ type: 'notebook', content: V2 }) });
    expect(res.status).toBe(201);
    const created = (await res.json()) as Model;
    expect(created.type).toBe('notebook');
    expect(created.message).toBeUndefined();
    const model = (await (await send(url(path))).json()) as Model;
    expect(model.content.nbformat).toBe(4);
    expect(model.content.nbformat_minor).toBe(5);
    expect(model.content.cells).toEqual([
      {
        id: expect.stringMatching(/^[0-9a-f]{8}$/),
        cell_type: 'code',
        metadata: { collapsed: false, trusted: true },
        source: 'print("hi")',
        execution_count: null,
        outputs: [],
      },
    ]);
    const stored = JSON.parse(await fs.readFile(nodePath.join(fx.root, path), 'utf8'));
    expect(stored.nbformat).toBe(4);
  });

  it('GET upgrades a v2 notebook stored on disk and says where it came from', async () => {
    await fs.writeFile(nodePath.join(fx.root, 'old.ipynb'), JSON.stringify(V2));
    const res = await send(url('old.ipynb'));
    expect(res.status).toBe(200);
    const model = (await res.json()) as Model;
    expect(model.content.nbformat).toBe(4);
    expect(model.content.metadata).toEqual({ orig_nbformat: 2, orig_nbformat_minor: 0 });
    expect(model.message).toBeUndefined();
  });

  it('still refuses what is not a notebook at all, and writes nothing', async () => {
    for (const content of [{ nbformat: 4 }, { nbformat: 1, cells: [] }, { nbformat: 2, worksheets: 'x' }]) {
      const res = await send(url('never.ipynb'), {
        method: 'PUT',
        body: JSON.stringify({ type: 'notebook', content }),
      });
      expect(res.status, JSON.stringify(content)).toBe(400);
      expect(await res.json()).toMatchObject({ reason: 'bad notebook' });
    }
    await expect(fs.stat(nodePath.join(fx.root, 'never.ipynb'))).rejects.toThrow(/ENOENT/);
  });
});
