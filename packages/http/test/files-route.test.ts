import * as fs from 'node:fs/promises';
import * as nodePath from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Send, startServer, type TestServer, TRANSPORTS } from '../../../testing/server.js';

describe.each(TRANSPORTS)('GET|HEAD /files/<path> over %s', (kind) => {
  let fx: TestServer;
  let send: Send;
  const big = Buffer.alloc(3 * 1024 * 1024 + 17);
  beforeAll(async () => {
    fx = await startServer();
    send = fx.send(kind);
    for (let i = 0; i < big.length; i++) big[i] = (i * 31) % 251;
    const root = fx.root;
    await fs.writeFile(nodePath.join(root, 'notes.txt'), 'plain text\n');
    await fs.writeFile(nodePath.join(root, 'page.html'), '<script>alert(1)</script>');
    await fs.writeFile(nodePath.join(root, 'README'), 'no extension, but text ✓');
    await fs.writeFile(nodePath.join(root, 'blob'), Buffer.from([0, 1, 2, 3, 0xff]));
    await fs.writeFile(nodePath.join(root, 'big.bin'), big);
    await fs.writeFile(nodePath.join(root, 'n.ipynb'), '{"cells":[],"metadata":{},"nbformat":4,"nbformat_minor":5}');
    await fs.writeFile(nodePath.join(root, '.secret'), 'hidden');
    await fs.mkdir(nodePath.join(root, 'dir ü'));
    await fs.writeFile(nodePath.join(root, 'dir ü', 'résumé (1).txt'), 'nested');
  });
  afterAll(() => fx.close());

  it('serves text with charset, nosniff, a sandbox CSP and Last-Modified', async () => {
    const res = await send('/files/notes.txt');
    expect(res.status).toBe(200);
    expect(res.headers.get('Content-Type')).toBe('text/plain; charset=UTF-8');
    expect(res.headers.get('X-Content-Type-Options')).toBe('nosniff');
    expect(res.headers.get('Content-Security-Policy')).toMatch(/^sandbox allow-scripts/);
    expect(res.headers.get('Content-Disposition')).toBeNull();
    expect(res.headers.get('Last-Modified')).toMatch(/GMT$/);
    expect(res.headers.get('Content-Length')).toBe('11');
    expect(await res.text()).toBe('plain text\n');
  });

  it('sandboxes HTML so its scripts cannot reach the API', async () => {
    const res = await send('/files/page.html');
    expect(res.headers.get('Content-Type')).toBe('text/html');
    expect(res.headers.get('Content-Security-Policy')).toMatch(/^sandbox allow-scripts/);
    expect(await res.text()).toBe('<script>alert(1)</script>');
  });

  it('sniffs files without a known extension', async () => {
    const text = await send('/files/README');
    expect(text.headers.get('Content-Type')).toBe('text/plain; charset=UTF-8');
    expect(await text.text()).toBe('no extension, but text ✓');
    const binary = await send('/files/blob');
    expect(binary.headers.get('Content-Type')).toBe('application/octet-stream');
    expect(Buffer.from(await binary.arrayBuffer())).toEqual(Buffer.from([0, 1, 2, 3, 0xff]));
  });

  it('streams large binaries intact', async () => {
    const res = await send('/files/big.bin');
    expect(res.headers.get('Content-Length')).toBe(String(big.length));
    expect(Buffer.from(await res.arrayBuffer()).equals(big)).toBe(true);
  });

  it('sends notebooks and ?download=1 as attachments', async () => {
    const nb = await send('/files/n.ipynb');
    expect(nb.headers.get('Content-Type')).toBe('application/x-ipynb+json');
    expect(nb.headers.get('Content-Disposition')).toBe(`attachment; filename="n.ipynb"; filename*=UTF-8''n.ipynb`);
    const dl = await send('/files/dir%20%C3%BC/r%C3%A9sum%C3%A9%20(1).txt?download=1');
    expect(dl.status).toBe(200);
    expect(dl.headers.get('Content-Disposition')).toBe(
      `attachment; filename="resume (1).txt"; filename*=UTF-8''r%C3%A9sum%C3%A9%20%281%29.txt`,
    );
    expect(await dl.text()).toBe('nested');
    const inline = await send('/files/notes.txt?download=0');
    expect(inline.headers.get('Content-Disposition')).toBeNull();
  });

  it('serves byte ranges for seeking and resumed downloads', async () => {
    await fs.writeFile(nodePath.join(fx.root, 'clip.mp4'), Buffer.from('0123456789'));
    const part = await send('/files/clip.mp4', { headers: { Range: 'bytes=2-5' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('Content-Range')).toBe('bytes 2-5/10');
    expect(part.headers.get('Content-Length')).toBe('4');
    expect(part.headers.get('Content-Type')).toBe('video/mp4');
    expect(await part.text()).toBe('2345');
    const open = await send('/files/clip.mp4', { headers: { Range: 'bytes=7-' } });
    expect(await open.text()).toBe('789');
    const suffix = await send('/files/clip.mp4', { headers: { Range: 'bytes=-3' } });
    expect(suffix.headers.get('Content-Range')).toBe('bytes 7-9/10');
    expect(await suffix.text()).toBe('789');
    const clamped = await send('/files/clip.mp4', { headers: { Range: 'bytes=8-100' } });
    expect(await clamped.text()).toBe('89');
    const beyond = await send('/files/clip.mp4', { headers: { Range: 'bytes=10-' } });
    expect(beyond.status).toBe(416);
    expect(beyond.headers.get('Content-Range')).toBe('bytes */10');
    const several = await send('/files/clip.mp4', { headers: { Range: 'bytes=0-1,4-5' } });
    expect(several.status).toBe(200);
    expect(await several.text()).toBe('0123456789');
    const full = await send('/files/clip.mp4');
    expect(full.headers.get('Accept-Ranges')).toBe('bytes');
  });

  it('answers 304 to a conditional GET of an unchanged file', async () => {
    const first = await send('/files/notes.txt');
    const lastModified = first.headers.get('Last-Modified') as string;
    await first.arrayBuffer();
    const again = await send('/files/notes.txt', { headers: { 'If-Modified-Since': lastModified } });
    expect(again.status).toBe(304);
    expect((await again.arrayBuffer()).byteLength).toBe(0);
    const older = new Date(Date.parse(lastModified) - 60_000).toUTCString();
    const changed = await send('/files/notes.txt', { headers: { 'If-Modified-Since': older } });
    expect(changed.status).toBe(200);
    expect(await changed.text()).toBe('plain text\n');
  });

  it('answers HEAD with the headers and no body', async () => {
    const res = await send('/files/big.bin', { method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(res.headers.get('Content-Length')).toBe(String(big.length));
    expect((await res.arrayBuffer()).byteLength).toBe(0);
  });

  it('404s hidden files, directories and missing files without leaking anything', async () => {
    for (const path of ['/files/.secret', '/files/dir%20%C3%BC', '/files/missing.txt', '/files/']) {
      const res = await send(path);
      expect(res.status, path).toBe(404);
      expect(await res.text()).not.toContain(fx.root);
    }
  });
});

describe('with allowHidden', () => {
  it('lists, reads and serves dot-files, and still keeps escapes out', async () => {
    const fx = await startServer({ allowHidden: true });
    try {
      await fs.writeFile(nodePath.join(fx.root, '.env'), 'KEY=1');
      await fs.mkdir(nodePath.join(fx.root, '.config'));
      const listing = (await (await fx.request('/api/contents')).json()) as { content: { name: string }[] };
      expect(listing.content.map((m) => m.name).sort()).toEqual(['.config', '.env']);
      const model = (await (await fx.request('/api/contents/.env')).json()) as { content: string };
      expect(model.content).toBe('KEY=1');
      const file = await fx.request('/files/.env');
      expect(file.status).toBe(200);
      expect(await file.text()).toBe('KEY=1');
      const put = await fx.request('/api/contents/.config/settings.json', {
        method: 'PUT',
        body: JSON.stringify({ type: 'file', format: 'text', content: '{}' }),
        headers: { 'Content-Type': 'application/json' },
      });
      expect(put.status).toBe(201);
      const escaped = await fx.request('/api/contents/.config/..%2F..%2Fetc');
      expect(escaped.status).toBe(400);
    } finally {
      await fx.close();
    }
  });
});
