import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../testing/server.js';
import { TOKEN } from '../../../testing/token.js';

/**
 * Text that is not valid Unicode never becomes U+FFFD on disk: raw bytes that are not UTF-8 in a
 * body, and lone surrogates (`"\ud800"`) in JSON strings that become file content or names, are
 * a 400 with a Jupyter error body, and nothing is written. Reading a file that is not UTF-8 as
 * text is a 400 too, and malformed escapes in paths and queries are a 4xx, never a 500.
 */

const AUTH = { authorization: `token ${TOKEN}` };
const INVALID = [
  Buffer.from([0xff]),
  Buffer.from([0xc3]),
  Buffer.from([0xed, 0xa0, 0x80]),
  Buffer.from([0xe2, 0x28, 0xa1]),
];

/** JSON text around raw bytes: `before` + bytes + `after`. */
function withBytes(before: string, bytes: Buffer, after: string): Buffer {
  return Buffer.concat([Buffer.from(before), bytes, Buffer.from(after)]);
}

describe('invalid UTF-8 and lone surrogates are refused, not replaced', () => {
  let f: TestApp;
  let root: string;
  const request = (method: string, url: string, body?: Buffer | string, type = 'application/json') =>
    f.app.request(`http://localhost${url}`, {
      method,
      headers: { ...AUTH, ...(body === undefined ? {} : { 'content-type': type }) },
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : new Uint8Array(body) }),
    });
  /** What the root holds, checkpoints aside (notebook saves in these tests make some). */
  const listing = async () =>
    (await fs.readdir(root, { recursive: true })).filter((p) => !p.startsWith('.ipynb_checkpoints')).sort();

  async function expect400(res: Response, message: RegExp): Promise<void> {
    expect(res.status).toBe(400);
    const body = (await res.json()) as { message: string; reason: unknown };
    expect(body.message).toMatch(message);
    expect(body).toHaveProperty('reason');
  }

  beforeAll(async () => {
    f = await createTestApp();
    root = path.join(f.dir, 'root');
    await fs.writeFile(path.join(root, 'keep.txt'), 'kept');
    await fs.writeFile(path.join(root, 'latin1.txt'), Buffer.from([0x63, 0x61, 0x66, 0xe9]));
  });

  afterAll(async () => {
    await f?.close();
  });

  it.each(INVALID.map((bytes) => [bytes.toString('hex'), bytes]))(
    'raw bytes %s in a body: POST and PUT /api/contents, PATCH, /api/sessions, /api/config, legacy POST /notebooks, rstservice',
    async (_hex, bytes) => {
      const before = await listing();
      const cases: Array<[string, string, Buffer, string?]> = [
        [
          'POST',
          '/api/contents',
          withBytes('{"type": "file", "ext": ".txt", "content": "', bytes, '", "format": "text"}'),
        ],
        ['PUT', '/api/contents/new.txt', withBytes('{"type": "file", "format": "text", "content": "a', bytes, 'b"}')],
        [
          'PUT',
          '/api/contents/new.ipynb',
          withBytes(
            '{"type": "notebook", "content": {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [{"cell_type": "raw", "id": "r", "metadata": {}, "source": "',
            bytes,
            '"}]}}',
          ),
        ],
        ['PATCH', '/api/contents/keep.txt', withBytes('{"path": "k', bytes, '.txt"}')],
        [
          'POST',
          '/api/sessions',
          withBytes('{"path": "s', bytes, '.ipynb", "type": "notebook", "kernel": {"name": "x"}}'),
        ],
        ['PATCH', '/api/config/notebook', withBytes('{"key": "', bytes, '"}')],
        [
          'POST',
          '/notebooks?name=legacy',
          withBytes('{"nbformat": 4, "nbformat_minor": 5, "metadata": {"x": "', bytes, '"}, "cells": []}'),
        ],
        ['POST', '/rstservice/render', withBytes('Title ', bytes, '\n=====\n'), 'text/plain'],
      ];
      for (const [method, url, body, type] of cases) {
        const res = await request(method, url, body, type);
        expect(res.status, `${method} ${url}`).toBe(400);
        expect(await res.json()).toEqual({ message: 'The request body is not valid UTF-8', reason: 'bad encoding' });
      }
      expect(await listing()).toEqual(before);
      expect(await fs.readFile(path.join(root, 'keep.txt'), 'utf8')).toBe('kept');
    },
  );

  it('a format:text file whose content holds a lone surrogate is a 400, nothing written', async () => {
    const before = await listing();
    for (const lone of ['\\ud800', '\\udfff', 'a\\ud83d', '\\ude00b']) {
      const res = await request(
        'PUT',
        '/api/contents/e.txt',
        `{"type": "file", "format": "text", "content": "${lone}"}`,
      );
      await expect400(res, /lone surrogate/);
      expect(await listing()).toEqual(before);
      const notebook = `{"type": "notebook", "format": "json", "content": {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [{"cell_type": "raw", "id": "r", "metadata": {}, "source": "${lone}"}]}}`;
      // Inside a notebook the JSON keeps it as the same escape: saved exactly, nothing replaced.
      expect((await request('PUT', '/api/contents/e.ipynb', notebook)).status).toBe(201);
      const saved = await fs.readFile(path.join(root, 'e.ipynb'), 'utf8');
      expect(saved).not.toContain('\ufffd');
      expect([JSON.parse(saved).cells[0].source].flat().join('')).toBe(JSON.parse(`"${lone}"`));
      await fs.rm(path.join(root, 'e.ipynb'));
    }
    // A surrogate pair is one character and is saved exactly.
    const pair = await request(
      'PUT',
      '/api/contents/e.txt',
      '{"type": "file", "format": "text", "content": "\\ud83d\\ude00"}',
    );
    expect(pair.status).toBe(201);
    expect(await fs.readFile(path.join(root, 'e.txt'), 'utf8')).toBe('😀');
    await fs.rm(path.join(root, 'e.txt'));
  });

  it('a path or new name with a lone surrogate is a 400 (PATCH rename, copy)', async () => {
    const before = await listing();
    await expect400(await request('PATCH', '/api/contents/keep.txt', '{"path": "k\\ud800.txt"}'), /Invalid path/);
    await expect400(await request('POST', '/api/contents', '{"copy_from": "keep\\udc00.txt"}'), /Invalid path/);
    expect(await listing()).toEqual(before);
  });

  it('reading a file that is not UTF-8 as text is a 400; without a format it comes as base64', async () => {
    await expect400(await request('GET', '/api/contents/latin1.txt?type=file&format=text'), /not UTF-8/);
    const auto = await request('GET', '/api/contents/latin1.txt');
    expect(auto.status).toBe(200);
    const model = (await auto.json()) as { format: string; content: string };
    expect(model.format).toBe('base64');
    expect(Buffer.from(model.content, 'base64')).toEqual(Buffer.from([0x63, 0x61, 0x66, 0xe9]));
  });

  it.each([
    '/api/contents/%FF',
    '/api/contents/a%ED%A0%80b.txt',
    '/api/contents/%E0%A4%A',
    '/api/contents/keep.txt?type=file&format=%FF',
    '/api/contents/keep.txt?content=%ZZ',
    '/files/%FF',
    '/files/%ED%A0%80',
    '/tree/%FF',
    '/notebooks/%ED%B0%80.ipynb',
    '/edit/%C3',
    '/nbconvert/html/%FF.ipynb',
    '/api/sessions/%FF',
    '/api/kernels/%FF',
    '/api/kernelspecs/%FF',
    '/login?next=%FF',
    '/rstservice/render?text=%FF',
  ])('GET %s answers without a 500', async (url) => {
    const res = await request('GET', url);
    expect(res.status, url).toBeLessThan(500);
    if (res.status >= 400 && url.startsWith('/api/')) expect(await res.json()).toHaveProperty('message');
  });
});
