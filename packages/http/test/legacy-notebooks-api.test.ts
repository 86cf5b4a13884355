import * as fs from 'node:fs/promises';
import * as nodePath from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { v3CodeCell, v3Notebook, v3Pyout } from '../../../testing/notebooks.js';
import { jupyterError, startServer, type TestServer } from '../../../testing/server.js';

const V3 = (name: string, output = '2') => v3Notebook(name, [v3CodeCell('1+1', 1, [v3Pyout(1, output)])]);

type Entry = { notebook_id: string; name: string; kernel_id: string | null };

describe('older notebook routes (/notebooks, /<id>, /<id>/copy, /<id>/print)', () => {
  let s: TestServer;
  const leftovers: string[] = [];
  const list = async () => (await (await s.fetch('/notebooks')).json()) as Entry[];

  beforeAll(async () => {
    s = await startServer();
  });
  afterAll(async () => {
    await s.close();
    for (const dir of leftovers) await fs.rm(dir, { recursive: true, force: true });
  });

  it('creates Untitled0/Untitled1 without a body and lists top-level notebooks sorted by name', async () => {
    expect(await list()).toEqual([]);
    const a = await s.fetch('/notebooks', { method: 'POST' });
    expect(a.status).toBe(200);
    const idA = (await a.json()) as string;
    expect(a.headers.get('location')).toBe(`/notebooks/${idA}`);
    const idB = (await (await s.request('/notebooks', { method: 'POST' })).json()) as string;
    await fs.mkdir(nodePath.join(s.root, 'sub'));
    await fs.writeFile(
      nodePath.join(s.root, 'sub', 'deep.ipynb'),
      JSON.stringify({ cells: [], metadata: {}, nbformat: 4, nbformat_minor: 5 }),
    );
    expect(await list()).toEqual([
      { notebook_id: idA, name: 'Untitled0', kernel_id: null },
      { notebook_id: idB, name: 'Untitled1', kernel_id: null },
    ]);
  });

  it('POST with a v3 body saves v4 on disk; GET serves v3 with metadata.name', async () => {
    const res = await s.fetch('/notebooks', { method: 'POST', body: JSON.stringify(V3('FromOld')) });
    const id = (await res.json()) as string;
    const disk = JSON.parse(await fs.readFile(nodePath.join(s.root, 'FromOld.ipynb'), 'utf8'));
    expect(disk.nbformat).toBe(4);
    expect(disk.cells[0].outputs[0]).toMatchObject({ output_type: 'execute_result', data: { 'text/plain': ['2'] } });

    for (const send of [s.fetch, s.request]) {
      const got = await send(`/notebooks/${id}`);
      expect(got.status).toBe(200);
      expect(got.headers.get('content-type')).toMatch(/^application\/json/);
      expect(got.headers.get('content-disposition')).toBe(
        `attachment; filename="FromOld.ipynb"; filename*=UTF-8''FromOld.ipynb`,
      );
      expect(got.headers.get('last-modified')).toMatch(/GMT$/);
      const nb = (await got.json()) as ReturnType<typeof V3>;
      expect(nb.nbformat).toBe(3);
      expect(nb.metadata.name).toBe('FromOld');
      expect(nb.worksheets[0]?.cells[0]).toMatchObject(V3('x').worksheets[0]?.cells[0] ?? {});
    }
    const py = await s.fetch(`/notebooks/${id}?format=py`);
    expect(py.headers.get('content-disposition')).toBe(
      `attachment; filename="FromOld.py"; filename*=UTF-8''FromOld.py`,
    );
    expect(await py.text()).toContain('# In[1]:\n\n\n1+1');
  });

  it("POST ?format=py reads IPython's .py notebook format", async () => {
    const py = [
      '# -*- coding: utf-8 -*-',
      '# <nbformat>3.0</nbformat>',
      '',
      '# <headingcell level=2>',
      '',
      '# Script',
      '',
      '# <markdowncell>',
      '',
      '# Some *notes*',
      '',
      '# <codecell>',
      '',
      'x = 1',
      'print(x)',
      '',
    ].join('\n');
    const res = await s.fetch('/notebooks?format=py&name=Script', { method: 'POST', body: py });
    expect(res.status).toBe(200);
    const id = (await res.json()) as string;
    const nb = (await (await s.fetch(`/notebooks/${id}`)).json()) as {
      worksheets: { cells: Record<string, unknown>[] }[];
    };
    expect(nb.worksheets[0]?.cells.map((c) => [c.cell_type, c.source ?? c.input])).toEqual([
      ['heading', 'Script'],
      ['markdown', 'Some *notes*'],
      ['code', 'x = 1\nprint(x)'],
    ]);
    expect((await s.fetch(`/notebooks/${id}`, { method: 'DELETE' })).status).toBe(204);
  });

  it('PUT saves (204) and renames through metadata.name or ?name=, keeping the id; the current API sees it', async () => {
    const [entry] = (await list()).filter((e) => e.name === 'FromOld');
    const id = entry?.notebook_id as string;
    const put = await s.fetch(`/notebooks/${id}`, { method: 'PUT', body: JSON.stringify(V3('Renamed', '3')) });
    expect(put.status).toBe(204);
    expect((await list()).find((e) => e.notebook_id === id)?.name).toBe('Renamed');
    const modern = await s.fetch('/api/contents/Renamed.ipynb');
    const model = (await modern.json()) as { content: { cells: { outputs: { data: Record<string, string> }[] }[] } };
    expect(model.content.cells[0]?.outputs[0]?.data['text/plain']).toBe('3');
    expect(
      (await s.fetch(`/notebooks/${id}?name=ByQuery`, { method: 'PUT', body: JSON.stringify(V3('Renamed')) })).status,
    ).toBe(204);
    expect(await fs.readdir(s.root)).toContain('ByQuery.ipynb');
  });

  it('ids survive a rename through the current API and a server restart', async () => {
    const [entry] = (await list()).filter((e) => e.name === 'ByQuery');
    const id = entry?.notebook_id as string;
    const patch = await s.fetch('/api/contents/ByQuery.ipynb', {
      method: 'PATCH',
      body: JSON.stringify({ path: 'Moved.ipynb' }),
      headers: { 'Content-Type': 'application/json' },
    });
    expect(patch.status).toBe(200);
    expect((await s.fetch(`/notebooks/${id}`)).status).toBe(200);
    expect((await list()).find((e) => e.notebook_id === id)?.name).toBe('Moved');

    // Same root and data dir, new process state: the persisted ids come back.
    await s.stop();
    const restarted = await startServer({
      root: s.root,
      dataDir: nodePath.join(s.dir, 'data'),
      configDir: nodePath.join(s.dir, 'config'),
    });
    try {
      const after = (await (await restarted.fetch('/notebooks')).json()) as Entry[];
      expect(after.find((e) => e.name === 'Moved')?.notebook_id).toBe(id);
    } finally {
      await restarted.close();
    }
    leftovers.push(s.dir);
    s = await startServer({
      root: s.root,
      dataDir: nodePath.join(s.dir, 'data'),
      configDir: nodePath.join(s.dir, 'config'),
    });
  });

  it('a notebook made by the current API shows up for old clients with its outputs', async () => {
    const v4 = {
      nbformat: 4,
      nbformat_minor: 5,
      metadata: {},
      cells: [
        {
          cell_type: 'code',
          id: 'c1',
          metadata: {},
          execution_count: 7,
          source: 'print("x")',
          outputs: [
            { output_type: 'stream', name: 'stdout', text: 'x\n' },
            {
              output_type: 'execute_result',
              execution_count: 7,
              metadata: {},
              data: { 'text/html': '<b>7</b>', 'text/plain': '7' },
            },
          ],
        },
      ],
    };
    const put = await s.fetch('/api/contents/Modern.ipynb', {
      method: 'PUT',
      body: JSON.stringify({ type: 'notebook', content: v4 }),
      headers: { 'Content-Type': 'application/json' },
    });
    expect(put.status).toBe(201);
    const [entry] = (await list()).filter((e) => e.name === 'Modern');
    const nb = (await (await s.fetch(`/notebooks/${entry?.notebook_id}`)).json()) as {
      worksheets: { cells: { input: string; prompt_number: number; outputs: unknown[] }[] }[];
    };
    const cell = nb.worksheets[0]?.cells[0];
    expect(cell?.input).toBe('print("x")');
    expect(cell?.prompt_number).toBe(7);
    expect(cell?.outputs).toEqual([
      { output_type: 'stream', stream: 'stdout', text: 'x\n' },
      { output_type: 'pyout', prompt_number: 7, html: '<b>7</b>', text: '7', metadata: {} },
    ]);
  });

  it('checkpoints (1.x) share the current checkpoint files', async () => {
    const [entry] = (await list()).filter((e) => e.name === 'Modern');
    const id = entry?.notebook_id as string;
    // the one its first save made, then ours: the same history by the same ids on either generation of routes
    const [saved] = (await (await s.fetch(`/notebooks/${id}/checkpoints`)).json()) as { checkpoint_id: string }[];
    const created = await s.fetch(`/notebooks/${id}/checkpoints`, { method: 'POST' });
    expect(created.status).toBe(200);
    const cp = (await created.json()) as { checkpoint_id: string; last_modified: string };
    expect(cp.checkpoint_id).toMatch(/^\d{8}T\d{12}Z$/);
    expect(cp.last_modified).toMatch(/\+00:00$/);
    expect(await (await s.fetch(`/notebooks/${id}/checkpoints`)).json()).toEqual([saved, cp]);
    const modern = (await (await s.fetch('/api/contents/Modern.ipynb/checkpoints')).json()) as { id: string }[];
    expect(modern.map((c) => c.id)).toEqual([saved?.checkpoint_id, cp.checkpoint_id]);
    const at = `/notebooks/${id}/checkpoints/${cp.checkpoint_id}`;
    expect((await s.fetch(at, { method: 'POST' })).status).toBe(204);
    expect((await s.fetch(at, { method: 'DELETE' })).status).toBe(204);
    expect((await s.fetch(`/notebooks/${id}/checkpoints/checkpoint`, { method: 'DELETE' })).status).toBe(204);
    expect(await (await s.fetch(`/notebooks/${id}/checkpoints`)).json()).toEqual([]);
  });

  it('pages: /<id> opens the page, /<id>/copy copies (-Copy0), /<id>/print prints, /<name>.ipynb redirects', async () => {
    const [entry] = (await list()).filter((e) => e.name === 'Modern');
    const id = entry?.notebook_id as string;
    const page = await s.fetch(`/${id}`);
    expect(page.status).toBe(302);
    expect(page.headers.get('location')).toBe('/notebooks/Modern.ipynb');
    const opened = await s.fetch('/notebooks/Modern.ipynb');
    expect(opened.status).toBe(200);
    expect(await opened.text()).toMatch(/<html/i);

    const copy = await s.fetch(`/${id}/copy`);
    expect(copy.status).toBe(302);
    expect(copy.headers.get('location')).toBe('/notebooks/Modern-Copy0.ipynb');
    expect((await s.fetch(`/${id}/copy`)).headers.get('location')).toBe('/notebooks/Modern-Copy1.ipynb');

    const print = await s.fetch(`/${id}/print`);
    expect(print.status).toBe(200);
    const html = await print.text();
    expect(html).toContain('Modern');
    expect(html).toMatch(/output-text">7</);
    expect(html).not.toContain('<b>7</b>'); // the print view treats notebook HTML as untrusted
    const missing = await s.fetch('/00000000-0000-4000-8000-000000000000/print');
    expect(missing.status).toBe(404);
    expect(await missing.text()).toContain('Notebook does not exist');

    const byName = await s.fetch('/Modern.ipynb');
    expect(byName.status).toBe(302);
    expect(byName.headers.get('location')).toBe(`/${id}`);
    expect((await s.fetch('/Nope.ipynb')).status).toBe(404);
    await fs.mkdir(nodePath.join(s.root, 'Folder.ipynb'));
    expect((await s.fetch('/Folder.ipynb')).status).toBe(404);
    expect((await list()).map((e) => e.name)).not.toContain('Folder');
    await fs.rmdir(nodePath.join(s.root, 'Folder.ipynb'));
    expect((await s.fetch('/00000000-0000-4000-8000-000000000000')).status).toBe(404);
  });

  it('dispatch: /notebooks/<uuid> is the old JSON only when no file of that name exists', async () => {
    const [entry] = (await list()).filter((e) => e.name === 'Modern');
    const id = entry?.notebook_id as string;
    await fs.mkdir(nodePath.join(s.root, id));
    const page = await s.fetch(`/notebooks/${id}`);
    expect(page.status).toBe(302);
    expect(page.headers.get('location')).toBe(`/tree/${id}`);
    await fs.rmdir(nodePath.join(s.root, id));
    expect((await s.fetch(`/notebooks/${id}`)).headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('bad input: 4xx Jupyter errors and nothing changed', async () => {
    const before = (await fs.readdir(s.root)).sort();
    const unknown = '00000000-0000-4000-8000-000000000000';
    const cases: [string, string, string | undefined, number, RegExp][] = [
      ['GET', `/notebooks/${unknown}`, undefined, 404, /Notebook does not exist/],
      ['PUT', `/notebooks/${unknown}`, JSON.stringify(V3('x')), 404, /Notebook does not exist/],
      ['DELETE', `/notebooks/${unknown}`, undefined, 404, /Notebook does not exist/],
      ['GET', `/notebooks/${unknown}/checkpoints`, undefined, 404, /Notebook does not exist/],
      ['POST', '/notebooks', '{not json', 400, /Invalid JSON data/],
      ['POST', '/notebooks', JSON.stringify({ nbformat: 3, worksheets: 'x' }), 400, /not a notebook/],
      [
        'POST',
        '/notebooks',
        JSON.stringify({ ...V3('Bad'), worksheets: [{ cells: [{ cell_type: 'code', input: 5 }] }] }),
        400,
        /validation/,
      ],
      ['POST', '/notebooks', JSON.stringify({ ...V3(''), metadata: {} }), 400, /Missing notebook name/],
      ['POST', '/notebooks?name=..%2Fevil', JSON.stringify(V3('x')), 400, /Invalid notebook name/],
      ['POST', '/notebooks?name=.hidden', JSON.stringify(V3('x')), 400, /Invalid notebook name/],
      ['POST', '/notebooks?name=Modern', JSON.stringify(V3('x')), 409, /already exists/],
      ['POST', '/notebooks?format=xml', JSON.stringify(V3('x')), 400, /Invalid notebook format/],
      ['POST', '/notebooks?format=py', 'print(1)', 400, /Missing notebook name/],
    ];
    const [entry] = (await list()).filter((e) => e.name === 'Modern');
    cases.push(['PUT', `/notebooks/${entry?.notebook_id}`, '{"nbformat": 3}', 400, /not a notebook/]);
    cases.push(['PUT', `/notebooks/${entry?.notebook_id}`, JSON.stringify(V3('Untitled0')), 409, /already exists/]);
    cases.push(['POST', `/notebooks/${entry?.notebook_id}/checkpoints/a%20b`, undefined, 400, /Invalid checkpoint id/]);
    for (const [method, path, body, status, message] of cases) {
      const res = await s.fetch(path, { method, ...(body === undefined ? {} : { body }) });
      expect(res.status, `${method} ${path}`).toBe(status);
      expect((await jupyterError(res)).message, `${method} ${path}`).toMatch(message);
    }
    expect((await fs.readdir(s.root)).sort()).toEqual(before);
  });

  it('DELETE removes the file and the id', async () => {
    const [entry] = (await list()).filter((e) => e.name === 'Modern-Copy1');
    const id = entry?.notebook_id as string;
    expect((await s.fetch(`/notebooks/${id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await s.fetch(`/notebooks/${id}`)).status).toBe(404);
    expect(await fs.readdir(s.root)).not.toContain('Modern-Copy1.ipynb');
  });

  it('needs authentication; cookie-authenticated writes need XSRF like every other route', async () => {
    expect((await s.fetch('/notebooks', { auth: false })).status).toBe(302);
    expect((await s.fetch('/notebooks', { method: 'POST', auth: false })).status).toBe(403);
  });
});
