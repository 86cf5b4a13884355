import * as fs from 'node:fs/promises';
import http from 'node:http';
import * as net from 'node:net';
import * as nodePath from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../../testing/server.js';
import { TOKEN } from '../../../testing/token.js';

/**
 * How JSON bodies are read over a real socket: with a Content-Length straight from the Node
 * request (readJsonBody's fast path), chunked through the Fetch API; both decode strict UTF-8.
 */
describe('JSON request bodies over a real socket', () => {
  let server: TestServer;
  let port: number;

  beforeAll(async () => {
    server = await startServer();
    port = server.port;
  });
  afterAll(() => server.close());

  /** A PUT with the body as given: whole with a Content-Length, or in chunks without one. */
  function put(path: string, body: Buffer, chunked = false): Promise<{ status: number; json: unknown }> {
    return new Promise((resolve, reject) => {
      const req = http.request({
        port,
        host: '127.0.0.1',
        method: 'PUT',
        path: `/api/contents/${path}`,
        headers: {
          authorization: `token ${TOKEN}`,
          'content-type': 'application/json',
          ...(chunked ? { 'transfer-encoding': 'chunked' } : { 'content-length': String(body.byteLength) }),
        },
      });
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, json: text ? JSON.parse(text) : null });
        });
      });
      req.on('error', reject);
      if (chunked) {
        for (let at = 0; at < body.byteLength; at += 1000) req.write(body.subarray(at, at + 1000));
        req.end();
      } else req.end(body);
    });
  }

  const stored = (path: string) => fs.readFile(nodePath.join(server.root, path), 'utf8');

  it.each([false, true])('saves text with non-ASCII characters as sent (chunked: %s)', async (chunked) => {
    const content = 'ünïcödé — 日本語 🎉\n'.repeat(1000);
    const body = Buffer.from(JSON.stringify({ type: 'file', format: 'text', content }));
    const name = `unicode-${chunked}.txt`;
    expect((await put(name, body, chunked)).status).toBe(201);
    expect(await stored(name)).toBe(content);
  });

  it('saves a multi-megabyte ASCII notebook and answers with its hash', async () => {
    const png = Buffer.alloc(3_000_000, 7).toString('base64');
    const notebook = {
      cells: [
        {
          cell_type: 'code',
          id: 'c1',
          metadata: {},
          source: 'plot()',
          execution_count: 1,
          outputs: [{ output_type: 'display_data', metadata: {}, data: { 'image/png': png } }],
        },
      ],
      metadata: {},
      nbformat: 4,
      nbformat_minor: 5,
    };
    const res = await put('big.ipynb', Buffer.from(JSON.stringify({ type: 'notebook', content: notebook })));
    expect(res.status).toBe(201);
    const text = await stored('big.ipynb');
    expect(JSON.parse(text).cells[0].outputs[0].data['image/png']).toBe(png);
    const { createHash } = await import('node:crypto');
    expect((res.json as { hash: string }).hash).toBe(createHash('sha256').update(text).digest('hex'));
  });

  it('reads big bodies one after another and at once, each exactly (the body buffer is reused)', async () => {
    const body = (fill: string, size: number) =>
      Buffer.from(JSON.stringify({ type: 'file', format: 'text', content: fill.repeat(size) }));
    for (const [fill, size] of [
      ['a', 3_000_000],
      ['b', 1_200_000],
      ['c', 4_000_000],
    ] as const) {
      expect((await put(`seq-${fill}.txt`, body(fill, size))).status).toBe(201);
      expect(await stored(`seq-${fill}.txt`)).toBe(fill.repeat(size));
    }
    const fills = ['d', 'e', 'f', 'g'];
    const results = await Promise.all(fills.map((fill, i) => put(`par-${fill}.txt`, body(fill, 2_000_000 + i))));
    expect(results.map((r) => r.status)).toEqual([201, 201, 201, 201]);
    for (const [i, fill] of fills.entries()) expect(await stored(`par-${fill}.txt`)).toBe(fill.repeat(2_000_000 + i));
  });

  it('drops a byte order mark; refuses bytes that are not UTF-8 with a 400 and writes nothing', async () => {
    const json = Buffer.from(JSON.stringify({ type: 'file', format: 'text', content: 'a#b' }));
    const bom = Buffer.from([0xef, 0xbb, 0xbf]);
    const bad = Buffer.from(json.toString('latin1').replace('#', '\u00ff'), 'latin1'); // a lone 0xff byte
    for (const chunked of [false, true]) {
      const good = `bom-${chunked}.txt`;
      expect((await put(good, Buffer.concat([bom, json]), chunked)).status).toBe(201);
      expect(await stored(good)).toBe('a#b');
      const name = `bad-utf8-${chunked}.txt`;
      const res = await put(name, Buffer.concat([bom, bad]), chunked);
      expect(res.status).toBe(400);
      expect(res.json).toEqual({ message: 'The request body is not valid UTF-8', reason: 'bad encoding' });
      await expect(stored(name)).rejects.toThrow();
    }
  });

  it('answers 400 for invalid JSON and an empty body creates an untitled file', async () => {
    expect((await put('bad.ipynb', Buffer.from('{"type": "notebook", '))).status).toBe(400);
    await expect(stored('bad.ipynb')).rejects.toThrow();
    await fs.mkdir(nodePath.join(server.root, 'empty'));
    expect((await put('empty', Buffer.alloc(0))).status).toBe(201);
    expect(await fs.readdir(nodePath.join(server.root, 'empty'))).toEqual(['untitled']);
  });

  it('refuses JSON nested deeper than 1000 levels with a 400 on every route that reads JSON, writing nothing', async () => {
    // Found by the API fuzzer: JSON.parse takes any depth, but PUT /api/config/<section> then ran
    // JSON.stringify on 100,000 levels and answered 500 (stack overflow).
    const depth = 100_000;
    const deep = `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
    const notebook = (metadata: string) => `{"nbformat":4,"nbformat_minor":5,"metadata":${metadata},"cells":[]}`;
    const send = (method: string, path: string, body: string) =>
      fetch(`http://127.0.0.1:${port}${path}`, {
        method,
        headers: { authorization: `token ${TOKEN}`, 'content-type': 'application/json' },
        body,
      });
    const cases: Array<[string, string, string]> = [
      ['PUT', '/api/config/deep', deep],
      ['PATCH', '/api/config/deep', `{"x":${deep}}`],
      ['PUT', '/api/contents/deep.ipynb', `{"type":"notebook","format":"json","content":${notebook(deep)}}`],
      ['PUT', '/api/contents/deep.txt', `{"type":"file","format":"text","content":"x","extra":${deep}}`],
      ['POST', '/api/sessions', `{"path":"deep.ipynb","type":"notebook","kernel":${deep}}`],
      ['POST', '/api/kernels', `{"name":"x","env":${deep}}`],
      ['PATCH', '/api/me', `{"color":${deep}}`],
      ['POST', '/nbconvert/html', `{"content":${notebook(deep)}}`],
      ['POST', '/notebooks', notebook(deep)],
    ];
    for (const [method, path, body] of cases) {
      const res = await send(method, path, body);
      expect(res.status, `${method} ${path}`).toBe(400);
      expect(await res.json(), `${method} ${path}`).toMatchObject({
        message: expect.stringMatching(/nested more than 1000 levels/),
      });
    }
    // At the limit it is still accepted.
    const limit = `${'['.repeat(999)}1${']'.repeat(999)}`;
    expect((await send('PUT', '/api/config/deep', `{"x":${limit}}`)).status).toBe(204);
    expect(await fs.readdir(server.root)).not.toContain('deep.ipynb');
    expect(await fs.readdir(server.root)).not.toContain('deep.txt');
    expect(
      (await fetch(`http://127.0.0.1:${port}/api/status`, { headers: { authorization: `token ${TOKEN}` } })).status,
    ).toBe(200);
  });

  it('a client that closes before sending its whole body changes nothing and the server keeps serving', async () => {
    const body = JSON.stringify({ type: 'file', format: 'text', content: 'x'.repeat(10_000) });
    await new Promise<void>((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1', () => {
        socket.write(
          `PUT /api/contents/cut.txt HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: token ${TOKEN}\r\n` +
            `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 5000)}`,
          () => socket.destroy(), // once half the body is out
        );
      });
      socket.on('close', () => resolve());
      socket.on('error', reject);
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    await expect(stored('cut.txt')).rejects.toThrow();
    const again = await put('after.txt', Buffer.from(JSON.stringify({ type: 'file', format: 'text', content: 'ok' })));
    expect(again.status).toBe(201);
  });
});
