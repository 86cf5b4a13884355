import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../testing/server.js';
import { TOKEN } from '../../../testing/token.js';
import { attachmentHeader } from '../src/routes/attachment.js';

/** RFC 6266 `filename="…"` and RFC 8187 `filename*=UTF-8''…` of a Content-Disposition header. */
function parseDisposition(header: string | null): { type: string; fallback: string; exact: string } {
  expect(header).not.toBeNull();
  const value = header as string;
  // The whole header is printable ASCII: no control character, no raw non-ASCII byte.
  expect(value).toMatch(/^[\x20-\x7e]+$/);
  const match = /^(attachment); filename="([^"\\]*)"; filename\*=UTF-8''([A-Za-z0-9!#$&+\-.^_`|~%]+)$/.exec(value);
  expect(match, value).not.toBeNull();
  const [, type = '', fallback = '', exact = ''] = match as RegExpExecArray;
  return { type, fallback, exact: decodeURIComponent(exact) };
}

const NAMES = [
  '<script>alert(1).ipynb',
  'quote " here.ipynb',
  "it's (1) *star*.ipynb",
  'résumé 履歴書 ☃.ipynb',
  'per%20cent;semi.ipynb',
  'tab\tnew\nline\r.ipynb',
];

describe('every download names its file safely (RFC 6266 / RFC 8187)', () => {
  let f: TestApp;
  const get = (url: string) =>
    f.app.request(`http://localhost${url}`, { headers: { authorization: `token ${TOKEN}` } });

  beforeAll(async () => {
    f = await createTestApp();
    const notebook = JSON.stringify({ nbformat: 4, nbformat_minor: 5, metadata: {}, cells: [] });
    for (const name of NAMES) await fs.writeFile(path.join(f.dir, 'root', name), notebook);
  });

  afterAll(async () => {
    await f?.close();
  });

  it.each(NAMES)('%j from /files, /files?download=1, /nbconvert/* and the legacy /notebooks/<id>', async (name) => {
    const stem = name.replace(/\.ipynb$/, '');
    const encoded = encodeURIComponent(name);
    const expectations: Array<[string, string]> = [
      [`/files/${encoded}`, name],
      [`/files/${encoded}?download=1`, name],
      [`/nbconvert/html/${encoded}?download=true`, `${stem}.html`],
      [`/nbconvert/script/${encoded}?download=true`, `${stem}.py`],
      [`/nbconvert/notebook/${encoded}?download=true`, `${stem}.ipynb`],
    ];
    for (const [url, filename] of expectations) {
      const res = await get(url);
      expect(res.status, url).toBe(200);
      const disposition = parseDisposition(res.headers.get('content-disposition'));
      expect(disposition.exact, url).toBe(filename);
      expect(disposition.fallback, url).not.toMatch(/[<>%]/);
    }
    const list = (await (await get('/notebooks')).json()) as Array<{ notebook_id: string; name: string }>;
    const id = list.find((entry) => entry.name === stem)?.notebook_id;
    expect(id).toBeDefined();
    for (const [query, ext] of [
      ['', '.ipynb'],
      ['?format=py', '.py'],
    ] as const) {
      const res = await get(`/notebooks/${id}${query}`);
      expect(res.status).toBe(200);
      expect(parseDisposition(res.headers.get('content-disposition')).exact).toBe(`${stem}${ext}`);
    }
  });

  it('POST /nbconvert names the download after the posted name; a lone surrogate is a 400', async () => {
    const post = (name: string) =>
      f.app.request('http://localhost/nbconvert/html?download=true', {
        method: 'POST',
        headers: { authorization: `token ${TOKEN}`, 'content-type': 'application/json' },
        body: `{"name": ${JSON.stringify(name).replace('LONE', '\\ud800')}, "content": {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": []}}`,
      });
    const ok = await post('dir/<b>x.ipynb');
    expect(ok.status).toBe(200);
    expect(parseDisposition(ok.headers.get('content-disposition')).exact).toBe('<b>x.html');
    const lone = await post('aLONEb.ipynb');
    expect(lone.status).toBe(400);
    expect(await lone.json()).toMatchObject({ message: expect.stringContaining('Unicode') });
  });

  it('the fallback: printable ASCII, accents dropped, never empty', () => {
    expect(attachmentHeader('<script>alert(1).html')).toBe(
      `attachment; filename="_script_alert(1).html"; filename*=UTF-8''%3Cscript%3Ealert%281%29.html`,
    );
    expect(attachmentHeader('a"b\\c\u0007.txt')).toBe(
      `attachment; filename="a_b_c_.txt"; filename*=UTF-8''a%22b%5Cc%07.txt`,
    );
    expect(attachmentHeader('é.txt')).toBe(`attachment; filename="e.txt"; filename*=UTF-8''%C3%A9.txt`);
    expect(attachmentHeader('☃')).toBe(`attachment; filename="_"; filename*=UTF-8''%E2%98%83`);
    expect(attachmentHeader(' ')).toBe(`attachment; filename="download"; filename*=UTF-8''%20`);
  });
});
