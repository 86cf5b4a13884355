import * as fs from 'node:fs/promises';
import * as nodePath from 'node:path';
import { markCells } from '@nbserve/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { v4CodeCell, v4Notebook } from '../../../testing/notebooks.js';
import { createTestApp, type Send, startServer, type TestServer, TRANSPORTS } from '../../../testing/server.js';
import { TOKEN } from '../../../testing/token.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const CHECKPOINT_ID = /^\d{8}T\d{12}Z$/;
const json = { 'Content-Type': 'application/json' };

const notebook = (source: string) => v4Notebook([v4CodeCell(source)]);

describe.each(TRANSPORTS)('/api/contents over %s', (kind) => {
  let fx: TestServer;
  let send: Send;
  beforeAll(async () => {
    fx = await startServer();
    send = fx.send(kind);
  });
  afterAll(() => fx.close());

  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await send(path, {
      method,
      ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
      headers: { ...json, ...headers },
    });
    const text = await res.text();
    return { res, status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : null };
  };

  it('GET the root directory with Last-Modified', async () => {
    const { res, status, body } = await call('GET', '/api/contents');
    expect(status).toBe(200);
    expect(body).toMatchObject({ name: '', path: '', type: 'directory', format: 'json', content: [] });
    expect(body?.last_modified).toMatch(ISO);
    expect(res.headers.get('Last-Modified')).toMatch(/GMT$/);
    expect(res.headers.get('Content-Type')).toMatch(/^application\/json/);
    expect((await call('GET', '/api/contents/')).status).toBe(200);
  });

  it('POST creates untitled notebooks, files and folders with 201 and Location', async () => {
    const nb = await call('POST', '/api/contents', { type: 'notebook' });
    expect(nb.status).toBe(201);
    expect(nb.body).toMatchObject({ name: 'Untitled.ipynb', path: 'Untitled.ipynb', type: 'notebook', content: null });
    expect(nb.res.headers.get('Location')).toBe('/api/contents/Untitled.ipynb');
    const folder = await call('POST', '/api/contents/', { type: 'directory' });
    expect(folder.body?.name).toBe('Untitled Folder');
    const inner = await call('POST', '/api/contents/Untitled%20Folder', { type: 'file', ext: '.py' });
    expect(inner.status).toBe(201);
    expect(inner.body?.path).toBe('Untitled Folder/untitled.py');
    expect(inner.res.headers.get('Location')).toBe('/api/contents/Untitled%20Folder/untitled.py');
    const bare = await call('POST', '/api/contents/Untitled%20Folder');
    expect(bare.body?.name).toBe('untitled');
    const toFile = await call('POST', '/api/contents/Untitled.ipynb', { type: 'notebook' });
    expect(toFile.status).toBe(400);
    expect(toFile.body).toEqual({ message: 'Cannot POST to files, use PUT instead.', reason: null });
    const missing = await call('POST', '/api/contents/nowhere', {});
    expect(missing.status).toBe(404);
    expect(missing.body?.message).toBe('No such directory: nowhere');
  });

  it('PUT creates (201) and saves (200) text, base64 and notebooks', async () => {
    const created = await call('PUT', '/api/contents/a%20b.txt', { type: 'file', format: 'text', content: 'hi' });
    expect(created.status).toBe(201);
    expect(created.res.headers.get('Location')).toBe('/api/contents/a%20b.txt');
    expect(created.body).toMatchObject({ name: 'a b.txt', content: null, size: 2 });
    const saved = await call('PUT', '/api/contents/a%20b.txt', { type: 'file', format: 'text', content: 'hello' });
    expect(saved.status).toBe(200);
    expect(await fs.readFile(nodePath.join(fx.root, 'a b.txt'), 'utf8')).toBe('hello');

    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 255]);
    await call('PUT', '/api/contents/img.png', { type: 'file', format: 'base64', content: png.toString('base64') });
    const img = await call('GET', '/api/contents/img.png');
    expect(img.body).toMatchObject({ format: 'base64', mimetype: 'image/png', content: `${png.toString('base64')}\n` });

    const nb = await call('PUT', '/api/contents/n.ipynb', { type: 'notebook', content: notebook('1+1') });
    expect(nb.status).toBe(201);
    const got = await call('GET', '/api/contents/n.ipynb');
    expect(got.body).toMatchObject({ type: 'notebook', format: 'json', content: notebook('1+1') });
    const checkpoints = await call('GET', '/api/contents/n.ipynb/checkpoints');
    expect(checkpoints.body).toEqual([
      { id: expect.stringMatching(CHECKPOINT_ID), last_modified: expect.stringMatching(ISO) },
    ]);
    const dir = await call('PUT', '/api/contents/newdir', { type: 'directory' });
    expect(dir.status).toBe(201);
    expect(dir.body?.type).toBe('directory');
    // a content given with a directory is ignored, as jupyter_server's save does: a directory, nothing in it
    const withContent = await call('PUT', '/api/contents/other-dir', { type: 'directory', content: 'x' });
    expect(withContent.status).toBe(201);
    expect((await call('GET', '/api/contents/other-dir')).body).toMatchObject({ type: 'directory', content: [] });
  });

  it('GET honours type, format, content and hash', async () => {
    await call('PUT', '/api/contents/q.txt', { type: 'file', format: 'text', content: 'abc' });
    const noContent = await call('GET', '/api/contents/q.txt?content=0');
    expect(noContent.body).toMatchObject({ content: null, format: null, mimetype: 'text/plain', hash: null });
    const b64 = await call('GET', '/api/contents/q.txt?format=base64');
    expect(b64.body?.content).toBe('YWJj\n');
    const hashed = await call('GET', '/api/contents/q.txt?hash=1&content=0');
    expect(hashed.body).toMatchObject({
      hash: 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
      hash_algorithm: 'sha256',
    });
    expect(hashed.res.headers.get('ETag')).toBe('"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"');
    const asDir = await call('GET', '/api/contents/q.txt?type=directory');
    expect(asDir.status).toBe(400);
    expect(asDir.body).toEqual({ message: 'q.txt is not a directory', reason: 'bad type' });
    const badFormat = await call('GET', '/api/contents/q.txt?format=hex');
    expect(badFormat.body).toEqual({ message: "Format 'hex' is invalid", reason: 'bad format' });
    const badContent = await call('GET', '/api/contents/q.txt?content=2');
    expect(badContent.body).toEqual({ message: "Content '2' is invalid", reason: null });
    const missing = await call('GET', '/api/contents/nope.txt');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ message: "file or directory does not exist: 'nope.txt'", reason: null });
  });

  it('GET ?offset&limit returns a page of a directory with X-Total-Count', async () => {
    await call('PUT', '/api/contents/paged', { type: 'directory' });
    for (const n of ['c', 'a', 'b', 'e', 'd']) {
      await call('PUT', `/api/contents/paged/${n}.txt`, { type: 'file', format: 'text', content: n });
    }
    const page = await call('GET', '/api/contents/paged?offset=1&limit=2');
    expect(page.status).toBe(200);
    expect(((page.body?.content ?? []) as { name: string }[]).map((m) => m.name)).toEqual(['b.txt', 'c.txt']);
    expect(page.body?.total).toBe(5);
    expect(page.res.headers.get('X-Total-Count')).toBe('5');
    const plain = await call('GET', '/api/contents/paged');
    expect(plain.body).not.toHaveProperty('total');
    expect(plain.res.headers.get('X-Total-Count')).toBeNull();
    const bad = await call('GET', '/api/contents/paged?limit=0');
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ message: "Limit '0' is invalid", reason: null });
    expect((await call('GET', '/api/contents/paged?offset=-1')).status).toBe(400);
  });

  it('PUT with If-Match / If-Unmodified-Since refuses to overwrite a changed file', async () => {
    const first = await call('PUT', '/api/contents/c.txt', { type: 'file', format: 'text', content: 'one' });
    const etag = first.res.headers.get('ETag') as string;
    expect(etag).toMatch(/^"[0-9a-f]{64}"$/);
    const ok = await call(
      'PUT',
      '/api/contents/c.txt',
      { type: 'file', format: 'text', content: 'two' },
      { 'If-Match': etag },
    );
    expect(ok.status).toBe(200);
    const stale = await call(
      'PUT',
      '/api/contents/c.txt',
      { type: 'file', format: 'text', content: 'three' },
      { 'If-Match': etag },
    );
    expect(stale.status).toBe(409);
    expect(stale.body).toEqual({
      message: 'File changed on disk since it was loaded: c.txt',
      reason: 'changed on disk',
    });
    const old = 'Thu, 01 Jan 2015 00:00:00 GMT';
    const since = await call(
      'PUT',
      '/api/contents/c.txt',
      { type: 'file', format: 'text', content: 'x' },
      { 'If-Unmodified-Since': old },
    );
    expect(since.status).toBe(409);
    expect(await fs.readFile(nodePath.join(fx.root, 'c.txt'), 'utf8')).toBe('two');
    const fresh = await call(
      'PUT',
      '/api/contents/c.txt',
      { type: 'file', format: 'text', content: 'four' },
      { 'If-Unmodified-Since': ok.body?.last_modified as string },
    );
    expect(fresh.status).toBe(200);
  });

  it('PUT chunked uploads append and return the full model at the end', async () => {
    const data = Buffer.alloc(3000, 7);
    const parts = [data.subarray(0, 1000), data.subarray(1000, 2000), data.subarray(2000)];
    const chunks = [1, 2, -1];
    let last: Awaited<ReturnType<typeof call>> | undefined;
    for (let i = 0; i < 3; i++) {
      last = await call('PUT', '/api/contents/up.bin', {
        type: 'file',
        format: 'base64',
        chunk: chunks[i],
        content: parts[i]?.toString('base64'),
      });
      expect(last.status).toBe(i === 0 ? 201 : 200);
    }
    expect(last?.body?.size).toBe(3000);
    expect(await fs.readFile(nodePath.join(fx.root, 'up.bin'))).toEqual(data);
  });

  it('POST copy_from copies with -Copy names; PUT with copy_from is refused', async () => {
    await call('PUT', '/api/contents/src.ipynb', { type: 'notebook', content: notebook('x') });
    const copy = await call('POST', '/api/contents', { copy_from: 'src.ipynb' });
    expect(copy.status).toBe(201);
    expect(copy.body?.name).toBe('src-Copy1.ipynb');
    expect(copy.res.headers.get('Location')).toBe('/api/contents/src-Copy1.ipynb');
    const again = await call('POST', '/api/contents', { copy_from: 'src-Copy1.ipynb' });
    expect(again.body?.name).toBe('src-Copy2.ipynb');
    const put = await call('PUT', '/api/contents/x.ipynb', { copy_from: 'src.ipynb' });
    expect(put.status).toBe(400);
    expect(put.body).toEqual({ message: 'Cannot copy with PUT, only POST', reason: null });
  });

  it('PATCH renames with Location, 409 onto an existing file, checkpoints follow', async () => {
    await call('PUT', '/api/contents/r1.ipynb', { type: 'notebook', content: notebook('r') });
    await call('PUT', '/api/contents/r2.txt', { type: 'file', format: 'text', content: '' });
    await call('PUT', '/api/contents/sub%20dir', { type: 'directory' });
    const renamed = await call('PATCH', '/api/contents/r1.ipynb', { path: 'sub dir/moved.ipynb' });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ path: 'sub dir/moved.ipynb', name: 'moved.ipynb' });
    expect(renamed.res.headers.get('Location')).toBe('/api/contents/sub%20dir/moved.ipynb');
    const cps = await call('GET', '/api/contents/sub%20dir/moved.ipynb/checkpoints');
    expect(cps.body).toHaveLength(1);
    const clash = await call('PATCH', '/api/contents/r2.txt', { path: 'sub dir/moved.ipynb' });
    expect(clash.status).toBe(409);
    expect(clash.body).toEqual({ message: 'File already exists: sub dir/moved.ipynb', reason: null });
    const noBody = await call('PATCH', '/api/contents/r2.txt');
    expect(noBody.body).toEqual({ message: 'JSON body missing', reason: null });
  });

  it('DELETE removes files (204) and refuses non-empty directories', async () => {
    await call('PUT', '/api/contents/gone', { type: 'directory' });
    await call('PUT', '/api/contents/gone/x.ipynb', { type: 'notebook', content: notebook('') });
    const full = await call('DELETE', '/api/contents/gone');
    expect(full.status).toBe(400);
    expect(full.body).toEqual({ message: 'Directory gone not empty', reason: null });
    const file = await call('DELETE', '/api/contents/gone/x.ipynb');
    expect(file.status).toBe(204);
    expect(file.body).toBeNull();
    expect((await call('DELETE', '/api/contents/gone')).status).toBe(204);
    await expect(fs.stat(nodePath.join(fx.root, 'gone'))).rejects.toThrow();
    expect((await call('DELETE', '/api/contents/gone')).status).toBe(404);
  });

  it('checkpoints: create (201 + Location), list, restore (204), delete (204), unknown id 404', async () => {
    await call('PUT', '/api/contents/cp.ipynb', { type: 'notebook', content: notebook('v1') });
    await call('PUT', '/api/contents/cp.ipynb', { type: 'notebook', content: notebook('v2') });
    const created = await call('POST', '/api/contents/cp.ipynb/checkpoints');
    expect(created.status).toBe(201);
    const id = (created.body as { id: string }).id;
    expect(created.body).toEqual({
      id: expect.stringMatching(CHECKPOINT_ID),
      last_modified: expect.stringMatching(ISO),
    });
    expect(created.res.headers.get('Location')).toBe(`/api/contents/cp.ipynb/checkpoints/${id}`);
    await call('PUT', '/api/contents/cp.ipynb', { type: 'notebook', content: notebook('v3') });
    const restored = await call('POST', `/api/contents/cp.ipynb/checkpoints/${id}`);
    expect(restored.status).toBe(204);
    // saved from trusted cells, so served with trusted code cells
    expect((await call('GET', '/api/contents/cp.ipynb')).body?.content).toEqual(markCells(notebook('v2'), true));
    const unknown = await call('POST', '/api/contents/cp.ipynb/checkpoints/other-id');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ message: 'Checkpoint does not exist: cp.ipynb@other-id', reason: null });
    // the first save's checkpoint stays; `checkpoint` (jupyter_server's id) names the newest
    const [first] = (await call('GET', '/api/contents/cp.ipynb/checkpoints')).body as unknown as { id: string }[];
    expect((await call('DELETE', `/api/contents/cp.ipynb/checkpoints/${id}`)).status).toBe(204);
    expect((await call('GET', '/api/contents/cp.ipynb/checkpoints')).body).toEqual([first]);
    expect((await call('DELETE', '/api/contents/cp.ipynb/checkpoints/checkpoint')).status).toBe(204);
    expect((await call('GET', '/api/contents/cp.ipynb/checkpoints')).body).toEqual([]);
  });

  it('/api/notebooks/* redirects every method to /api/contents/* with 307', async () => {
    const got = await send('/api/notebooks/a%20b.txt?content=0');
    expect(got.status).toBe(307);
    expect(got.headers.get('Location')).toBe('/api/contents/a%20b.txt?content=0');
    for (const method of ['PUT', 'POST', 'PATCH', 'DELETE']) {
      const res = await send('/api/notebooks/x.ipynb', { method, body: '{}', headers: json });
      expect(res.status).toBe(307);
      expect(res.headers.get('Location')).toBe('/api/contents/x.ipynb');
    }
    expect((await send('/api/notebooks')).headers.get('Location')).toBe('/api/contents');
  });
});

describe('/api/contents under a base URL, over a socket with fetch following redirects', () => {
  let fx: TestServer;
  beforeAll(async () => {
    fx = await startServer({ baseUrl: '/lab/x/' });
  });
  afterAll(() => fx.close());

  it('puts the base URL in every Location header', async () => {
    await fs.mkdir(nodePath.join(fx.root, 'dir #1'));
    const res = await fx.fetch('/lab/x/api/contents/dir%20%231', {
      method: 'POST',
      body: JSON.stringify({ type: 'notebook' }),
      headers: json,
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('Location')).toBe('/lab/x/api/contents/dir%20%231/Untitled.ipynb');
    const redirect = await fx.fetch('/lab/x/api/notebooks/dir%20%231');
    expect(redirect.headers.get('Location')).toBe('/lab/x/api/contents/dir%20%231');
  });

  it('a PUT through /api/notebooks keeps its method and body after the 307', async () => {
    const res = await fetch(`${fx.origin}/lab/x/api/notebooks/via-redirect.txt`, {
      method: 'PUT',
      headers: { ...json, Authorization: `token ${TOKEN}` },
      body: JSON.stringify({ type: 'file', format: 'text', content: 'kept' }),
    });
    expect(res.status).toBe(201);
    expect(await fs.readFile(nodePath.join(fx.root, 'via-redirect.txt'), 'utf8')).toBe('kept');
  });
});

describe('notebook trust over HTTP, kept across restarts', () => {
  it('POST …/trust answers 201 and the signature survives a new app on the same data dir', async () => {
    const fx = await startServer();
    const html = {
      cells: [
        {
          cell_type: 'code',
          id: 'h',
          metadata: {},
          source: '',
          execution_count: 1,
          outputs: [{ output_type: 'display_data', metadata: {}, data: { 'text/html': '<b>x</b>' } }],
        },
      ],
      metadata: {},
      nbformat: 4,
      nbformat_minor: 5,
    };
    await fs.writeFile(nodePath.join(fx.root, 't.ipynb'), JSON.stringify(html));
    const flag = async (send: Send) => {
      const body = (await (await send('/api/contents/t.ipynb')).json()) as {
        content: { cells: { metadata: { trusted?: boolean } }[] };
      };
      return body.content.cells[0]?.metadata.trusted;
    };
    expect(await flag(fx.request)).toBe(false);
    const trusted = await fx.request('/api/contents/t.ipynb/trust', { method: 'POST' });
    expect(trusted.status).toBe(201);
    expect(await trusted.text()).toBe('');
    expect(await flag(fx.request)).toBe(true);
    const missing = await fx.request('/api/contents/nope.ipynb/trust', { method: 'POST' });
    expect(missing.status).toBe(404);
    // a second app over the same data dir (a restart) still trusts the notebook
    const again = await createTestApp({
      root: fx.root,
      configDir: nodePath.join(fx.dir, 'config'),
      dataDir: nodePath.join(fx.dir, 'data'),
    });
    expect(await flag(again.request)).toBe(true);
    const secret = await fs.stat(nodePath.join(fx.dir, 'data', 'notebook_secret'));
    expect(secret.mode & 0o777).toBe(0o600);
    await again.close();
    await fx.close();
  });
});

describe('an embedder’s own store: MemoryStore with memory checkpoints', () => {
  it('serves /api/contents and /files from memory and never touches the root directory', async () => {
    const { MemoryCheckpointStore, MemoryStore } = await import('@nbserve/core');
    const store = new MemoryStore();
    const fx = await startServer({ contentsStore: store, checkpointStore: new MemoryCheckpointStore(store) });
    try {
      const put = await fx.fetch('/api/contents/mem.ipynb', {
        method: 'PUT',
        body: JSON.stringify({ type: 'notebook', content: notebook('in memory') }),
        headers: json,
      });
      expect(put.status).toBe(201);
      const got = (await (await fx.fetch('/api/contents/mem.ipynb')).json()) as { content: unknown };
      expect(got.content).toEqual(markCells(notebook('in memory'), true));
      const cps = (await (await fx.fetch('/api/contents/mem.ipynb/checkpoints')).json()) as unknown[];
      expect(cps).toHaveLength(1);
      const raw = await fx.fetch('/files/mem.ipynb');
      expect(JSON.parse(await raw.text()).cells[0].source).toEqual(['in memory']);
      const listing = (await (await fx.fetch('/api/contents')).json()) as { content: { name: string }[] };
      expect(listing.content.map((m) => m.name)).toEqual(['mem.ipynb']);
      expect(await fs.readdir(fx.root)).toEqual([]);
    } finally {
      await fx.close();
    }
  });
});
