import * as fs from 'node:fs/promises';
import * as nodePath from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Send, startServer, type TestServer, TRANSPORTS } from '../../../testing/server.js';
import { snapshotTree } from '../../../testing/temp.js';

const MB = 1024 * 1024;

/**
 * Copying a directory, as jupyter_server 2.x allows it (Notebook 6.4 refused it: see
 * docs/compatibility.md), capped like jupyter_server's `max_copy_folder_size_mb`.
 */
describe.each(TRANSPORTS)('POST copy_from a directory over %s', (kind) => {
  let fx: TestServer;
  let send: Send;

  beforeAll(async () => {
    fx = await startServer({ maxCopyFolderSizeMb: 1 });
    const { root } = fx;
    await fs.mkdir(nodePath.join(root, 'small', 'inner'), { recursive: true });
    await fs.writeFile(nodePath.join(root, 'small', 'a.txt'), 'A');
    await fs.writeFile(nodePath.join(root, 'small', 'inner', 'b.bin'), Buffer.alloc(MB / 2, 1));
    // over the cap only when the nested directories are counted too
    await fs.mkdir(nodePath.join(root, 'big', 'one'), { recursive: true });
    await fs.mkdir(nodePath.join(root, 'big', 'two'));
    await fs.writeFile(nodePath.join(root, 'big', 'one', 'x.bin'), Buffer.alloc(0.6 * MB, 2));
    await fs.writeFile(nodePath.join(root, 'big', 'two', 'y.bin'), Buffer.alloc(0.6 * MB, 3));
    send = fx.send(kind);
  });
  afterAll(() => fx.close());

  const copy = (from: string, into = '') =>
    send(`/api/contents${into ? `/${into}` : ''}`, { method: 'POST', body: JSON.stringify({ copy_from: from }) });

  it('copies a directory under the cap, nested files included', async () => {
    const res = await copy('small');
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({ path: 'small-Copy1', type: 'directory' });
    const copied = await snapshotTree(nodePath.join(fx.root, 'small-Copy1'));
    expect(copied).toEqual(await snapshotTree(nodePath.join(fx.root, 'small')));
    await fs.rm(nodePath.join(fx.root, 'small-Copy1'), { recursive: true });
  });

  it('refuses a directory over the cap with 400 and a clear message, and writes nothing', async () => {
    const before = await snapshotTree(fx.root);
    const res = await copy('big');
    expect(res.status).toBe(400);
    const body = (await res.json()) as { message: string; reason: string | null };
    expect(body.message).toBe(`Can't copy folders larger than 1MB, "big" is larger`);
    expect(body).toHaveProperty('reason');
    const into = await copy('big', 'small');
    expect(into.status).toBe(400);
    expect(await snapshotTree(fx.root)).toEqual(before);
  });
});

describe('the default cap is 500 MB, as jupyter_server', () => {
  let fx: TestServer;
  beforeAll(async () => {
    fx = await startServer();
    await fs.mkdir(nodePath.join(fx.root, 'big'));
    await fs.writeFile(nodePath.join(fx.root, 'big', 'x.bin'), Buffer.alloc(2 * MB, 1));
  });
  afterAll(() => fx.close());

  it('copies a 2 MB directory', async () => {
    const res = await fx.request('/api/contents', { method: 'POST', body: '{"copy_from":"big"}' });
    expect(res.status).toBe(201);
    expect((await fs.stat(nodePath.join(fx.root, 'big-Copy1', 'x.bin'))).size).toBe(2 * MB);
  });
});
