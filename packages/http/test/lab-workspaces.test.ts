import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer, TRANSPORTS } from '../../../testing/server.js';
import { snapshotTree } from '../../../testing/temp.js';

const workspace = (id: string, data: Record<string, unknown> = {}) => ({ data, metadata: { id } });

describe('/lab/api/workspaces', () => {
  let s: TestServer;
  let dir: string;
  beforeAll(async () => {
    s = await startServer();
    dir = path.join(s.dir, 'config', 'lab', 'workspaces');
  });
  afterAll(() => s.close());

  for (const transport of TRANSPORTS) {
    it(`stores a PUT as jupyterlab_server names the file, and gets it back (${transport})`, async () => {
      const send = s.send(transport);
      const name = `foo${transport === 'socket' ? '' : '-in'}`;
      const body = workspace(name, { 'layout-restorer:data': { main: { current: 'notebook:x.ipynb' } } });
      const put = await send(`lab/api/workspaces/${name}`, { method: 'PUT', json: body });
      expect(put.status).toBe(204);
      const got = (await (await send(`lab/api/workspaces/${name}`)).json()) as {
        data: unknown;
        metadata: Record<string, unknown>;
      };
      expect(got.data).toEqual(body.data);
      expect(got.metadata).toMatchObject({ id: name, last_modified: expect.any(String), created: expect.any(String) });
    });
  }

  it("uses jupyterlab_server's slug for file names (foo -> foo-2c26.jupyterlab-workspace)", async () => {
    const files = await fs.readdir(dir);
    expect(files).toContain('foo-2c26.jupyterlab-workspace');
  });

  it('lists every workspace as {workspaces: {ids, values}}', async () => {
    await s.fetch('lab/api/workspaces/auto-3', { method: 'PUT', json: workspace('/auto-3') });
    const res = await s.fetch('lab/api/workspaces');
    expect(res.status).toBe(200);
    const body = (await res.json()) as { workspaces: { ids: string[]; values: Array<{ metadata: { id: string } }> } };
    expect(Object.keys(body)).toEqual(['workspaces']);
    expect(body.workspaces.ids.sort()).toEqual(['/auto-3', 'foo', 'foo-in']);
    expect(body.workspaces.values.map((v) => v.metadata.id).sort()).toEqual(['/auto-3', 'foo', 'foo-in']);
  });

  it('answers an empty workspace for a name never stored', async () => {
    const res = await s.fetch('lab/api/workspaces/never');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ data: {}, metadata: { id: '/never' } });
  });

  it('deletes a workspace (204), then 404s', async () => {
    expect((await s.fetch('lab/api/workspaces/auto-3', { method: 'DELETE' })).status).toBe(204);
    const again = await s.fetch('lab/api/workspaces/auto-3', { method: 'DELETE' });
    expect(again.status).toBe(404);
    expect(await again.json()).toMatchObject({ message: expect.stringContaining('auto-3') });
  });

  it('refuses names with /, NUL or other characters (400), writing nothing anywhere', async () => {
    const before = await snapshotTree(s.dir);
    for (const name of ['a%2Fb', 'a/b', 'a%00b', 'a%20b', 'caf%C3%A9', 'a%5Cb', 'x'.repeat(101)]) {
      for (const method of ['GET', 'PUT', 'DELETE']) {
        const res = await s.fetch(`lab/api/workspaces/${name}`, {
          method,
          ...(method === 'PUT' ? { json: workspace(decodeURIComponent(name)) } : {}),
        });
        expect(res.status, `${method} ${name}`).toBe(400);
        expect(await res.json(), `${method} ${name}`).toMatchObject({
          message: expect.any(String),
          reason: 'bad name',
        });
      }
    }
    // `..` and `%2E%2E` are dot segments: the URL resolves them before any route sees a name
    for (const name of ['..', '%2E%2E', '.', '%2e%2e/%2e%2e/config']) {
      const res = await s.fetch(`lab/api/workspaces/${name}`, { method: 'PUT', json: workspace(name) });
      expect(res.status, name).toBeGreaterThanOrEqual(400);
    }
    expect(await snapshotTree(s.dir)).toEqual(before);
  });

  it('refuses bodies that are not a workspace of this name (400), file untouched', async () => {
    const before = await fs.readFile(path.join(dir, 'foo-2c26.jupyterlab-workspace'), 'utf8');
    const deep = `{"data": {"x": ${'['.repeat(100_000)}${']'.repeat(100_000)}}, "metadata": {"id": "foo"}}`;
    const bad: unknown[] = [
      deep,
      '{not json',
      [],
      { data: {} },
      { data: {}, metadata: {} },
      workspace('other'),
      { data: 1, metadata: { id: 'foo' } },
    ];
    for (const body of bad) {
      const res = await s.fetch('lab/api/workspaces/foo', {
        method: 'PUT',
        body: typeof body === 'string' ? body : JSON.stringify(body),
        headers: { 'content-type': 'application/json' },
      });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(await res.json()).toMatchObject({ message: expect.any(String) });
    }
    expect(await fs.readFile(path.join(dir, 'foo-2c26.jupyterlab-workspace'), 'utf8')).toBe(before);
    // a file too deep to answer (written by hand) is left out of the list rather than failing it
    await fs.writeFile(path.join(dir, 'deep-0000.jupyterlab-workspace'), deep);
    expect((await s.fetch('lab/api/workspaces')).status).toBe(200);
    await fs.rm(path.join(dir, 'deep-0000.jupyterlab-workspace'));
  });

  it('keeps one of many concurrent PUTs whole', async () => {
    const bodies = Array.from({ length: 8 }, (_, i) =>
      JSON.stringify(workspace('race', { big: String(i).repeat(40_000 + i) })),
    );
    const results = await Promise.all(
      bodies.map((body) =>
        s.fetch('lab/api/workspaces/race', { method: 'PUT', body, headers: { 'content-type': 'application/json' } }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(8).fill(204));
    const stored = await fs.readFile(
      path.join(dir, (await fs.readdir(dir)).find((n) => n.startsWith('race-')) ?? ''),
      'utf8',
    );
    expect(bodies).toContain(stored);
    expect((await fs.readdir(dir)).every((n) => n.endsWith('.jupyterlab-workspace'))).toBe(true);
  });
});
