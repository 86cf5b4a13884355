// needs: kernel
import * as fs from 'node:fs/promises';
import * as nodePath from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { v3CodeCell, v3Notebook } from '../../../testing/notebooks.js';
import { jupyterError, startServer, type TestServer } from '../../../testing/server.js';

const NOTEBOOK = {
  nbformat: 4,
  nbformat_minor: 5,
  metadata: {
    kernelspec: { name: 'python3', display_name: 'Python 3', language: 'python' },
    language_info: { name: 'python' },
  },
  cells: [
    { cell_type: 'markdown', id: 'a', metadata: {}, source: '# Report <img src=x onerror=alert(1)>' },
    {
      cell_type: 'code',
      id: 'b',
      metadata: {},
      execution_count: 1,
      source: 'print("hi")',
      outputs: [
        { output_type: 'stream', name: 'stdout', text: 'hi\n' },
        { output_type: 'display_data', metadata: {}, data: { 'text/html': '<script>alert(2)</script><b>bold</b>' } },
      ],
    },
  ],
};

describe('/api/nbconvert and /nbconvert', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer();
    await fs.mkdir(nodePath.join(s.root, 'sub dir'));
    await fs.writeFile(nodePath.join(s.root, 'sub dir', 'Report é.ipynb'), JSON.stringify(NOTEBOOK));
    await fs.writeFile(nodePath.join(s.root, 'notes.txt'), 'x');
  });
  afterAll(async () => s.close());

  it('lists the built-in exporters and the installed nbconvert ones', async () => {
    const res = await s.fetch('/api/nbconvert');
    expect(res.status).toBe(200);
    const list = (await res.json()) as Record<string, { output_mimetype: string }>;
    expect(list.html).toEqual({ output_mimetype: 'text/html' });
    expect(list.script).toEqual({ output_mimetype: '' });
    expect(list.notebook).toEqual({ output_mimetype: 'application/json' });
    expect(list.latex).toEqual({ output_mimetype: 'text/latex' });
  });

  it('GET html: sandboxed, rendered outputs, no live script (socket and in-process)', async () => {
    for (const send of [s.fetch, s.request]) {
      const res = await send(`/nbconvert/html/sub%20dir/${encodeURIComponent('Report é.ipynb')}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(res.headers.get('content-security-policy')).toMatch(/^sandbox(;|$)/);
      expect(res.headers.get('cache-control')).toContain('no-store');
      expect(res.headers.get('last-modified')).toMatch(/GMT$/);
      expect(res.headers.get('content-disposition')).toBeNull();
      const html = await res.text();
      expect(html).toContain('<b>bold</b>');
      expect(html).toContain('<title>Report é</title>');
      expect(html).not.toMatch(/<script/i);
    }
  });

  it('GET script with ?download=true is an attachment named after the notebook', async () => {
    const res = await s.fetch(`/nbconvert/script/sub%20dir/${encodeURIComponent('Report é.ipynb')}?download=true`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/x-python; charset=utf-8');
    expect(res.headers.get('content-disposition')).toBe(
      `attachment; filename="Report e.py"; filename*=UTF-8''${encodeURIComponent('Report é.py')}`,
    );
    expect(await res.text()).toContain('# In[1]:\n\n\nprint("hi")');
  });

  it('POST converts the notebook in the body (v4 and v3)', async () => {
    const res = await s.fetch('/nbconvert/markdown', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'Posted.ipynb', content: NOTEBOOK }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    expect(await res.text()).toContain('```python\nprint("hi")\n```');
    const v3 = v3Notebook('old', [v3CodeCell('x = 1', 1)]);
    const fromV3 = await s.fetch('/nbconvert/script?download=true', {
      method: 'POST',
      body: JSON.stringify({ name: 'old.ipynb', content: v3 }),
    });
    expect(fromV3.status).toBe(200);
    expect(fromV3.headers.get('content-disposition')).toContain('filename="old.py"');
    expect(await fromV3.text()).toContain('x = 1');
  });

  it("the notebook format is the file without the server's transient keys", async () => {
    const res = await s.fetch(`/nbconvert/notebook/sub%20dir/${encodeURIComponent('Report é.ipynb')}?download=true`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toContain('.ipynb');
    const nb = (await res.json()) as { cells: { metadata: Record<string, unknown> }[] };
    expect(nb.cells.map((c) => c.metadata)).toEqual([{}, {}]);
  });

  it('delegates other formats to nbconvert', async () => {
    const res = await s.fetch(`/nbconvert/latex/sub%20dir/${encodeURIComponent('Report é.ipynb')}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/latex; charset=utf-8');
    expect(await res.text()).toContain('\\begin{document}');
  });

  it('directories and plain files redirect; bad input is a 4xx Jupyter error and changes nothing', async () => {
    const dir = await s.fetch('/nbconvert/html/sub%20dir');
    expect(dir.status).toBe(302);
    expect(dir.headers.get('location')).toBe('/tree/sub%20dir');
    const file = await s.fetch('/nbconvert/html/notes.txt');
    expect(file.status).toBe(302);
    expect(file.headers.get('location')).toBe('/files/notes.txt');

    const before = await fs.readdir(s.root);
    const cases: [string, RequestInit, number, RegExp][] = [
      ['/nbconvert/docx/notes.txt', {}, 404, /No exporter for format: docx/],
      ['/nbconvert/html/missing.ipynb', {}, 404, /missing\.ipynb/],
      ['/nbconvert/html/a%2Fb.ipynb', {}, 400, /slash|segment/],
      ['/nbconvert/ht-ml/x.ipynb', {}, 400, /format/],
      ['/nbconvert/html', { method: 'POST', body: 'not json' }, 400, /JSON/],
      ['/nbconvert/html', { method: 'POST', body: '[]' }, 400, /contents model/],
      ['/nbconvert/html', { method: 'POST', body: JSON.stringify({ content: { nbformat: 4 } }) }, 400, /notebook/],
      ['/nbconvert/nope', { method: 'POST', body: JSON.stringify({ content: NOTEBOOK }) }, 404, /No exporter/],
    ];
    for (const [path, init, status, message] of cases) {
      const res = await s.fetch(path, init);
      expect(res.status, path).toBe(status);
      expect((await jupyterError(res)).message, path).toMatch(message);
    }
    expect(await fs.readdir(s.root)).toEqual(before);
  });

  it('needs authentication', async () => {
    expect((await s.fetch('/api/nbconvert', { auth: false })).status).toBe(403);
    const page = await s.fetch('/nbconvert/html/notes.txt', { auth: false });
    expect(page.status).toBe(302);
    expect(page.headers.get('location')).toMatch(/^\/login\?next=/);
  });
});
