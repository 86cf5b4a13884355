import { promises as fs } from 'node:fs';
import path from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAIN_JS, writeFederatedExtension, writeLabAppDir } from '../../../testing/lab-app.js';
import { startServer, type TestServer, TRANSPORTS } from '../../../testing/server.js';
import { makeTempDir, removeDir } from '../../../testing/temp.js';

const MAIN = 'static/lab/main.0123456789abcdef.js';

describe('JupyterLab static files', () => {
  let s: TestServer;
  let appDir: string;
  let outside: string;
  beforeAll(async () => {
    appDir = await writeLabAppDir(await makeTempDir('nbserve-lab-'));
    outside = await makeTempDir('nbserve-outside-');
    await fs.writeFile(path.join(outside, 'secret.txt'), 'secret');
    await fs.symlink(path.join(outside, 'secret.txt'), path.join(appDir, 'static', 'link.txt'));
    await fs.writeFile(path.join(appDir, 'secret-beside-static.txt'), 'secret');
    s = await startServer({ labAppDir: appDir });
    const ext = await writeFederatedExtension(path.join(s.dir, 'labextensions'), '@scope/ext');
    await fs.symlink(path.join(outside, 'secret.txt'), path.join(ext, 'static', 'link.js'));
  });
  afterAll(async () => {
    await s.close();
    await removeDir(appDir);
    await removeDir(outside);
  });

  for (const transport of TRANSPORTS) {
    it(`sends the brotli body to a client that takes it, gzip to one that takes only gzip (${transport})`, async () => {
      const send = s.send(transport);
      const br = await send(MAIN, { auth: false, headers: { 'accept-encoding': 'gzip, deflate, br' } });
      expect(br.status).toBe(200);
      expect(br.headers.get('content-encoding')).toBe('br');
      expect(br.headers.get('vary')).toBe('Accept-Encoding');
      expect(br.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
      expect(br.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      const brBytes = Buffer.from(await br.arrayBuffer());
      expect(brBytes.length).toBeLessThan(MAIN_JS.length / 5);
      expect(brotliDecompressSync(brBytes).toString()).toBe(MAIN_JS);
      const gz = await send(MAIN, { auth: false, headers: { 'accept-encoding': 'gzip' } });
      expect(gz.headers.get('content-encoding')).toBe('gzip');
      expect(gunzipSync(Buffer.from(await gz.arrayBuffer())).toString()).toBe(MAIN_JS);
      const plain = await send(MAIN, { auth: false, headers: { 'accept-encoding': 'identity' } });
      expect(plain.headers.get('content-encoding')).toBeNull();
      expect(await plain.text()).toBe(MAIN_JS);
    });
  }

  it('revalidates unhashed names with an ETag (304)', async () => {
    const first = await s.fetch('static/lab/style.css', { auth: false });
    expect(first.status).toBe(200);
    expect(first.headers.get('cache-control')).toBe('no-cache');
    const etag = first.headers.get('etag') ?? '';
    expect(etag).toMatch(/^".+"$/);
    const again = await s.fetch('static/lab/style.css', { auth: false, headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
  });

  it('keeps every path inside the build folder (.., encoded .., symlinks, the .br itself)', async () => {
    for (const url of [
      'static/lab/%2e%2e/secret-beside-static.txt',
      'static/lab/..%2Fsecret-beside-static.txt',
      'static/lab/%2E%2E%2Fsecret-beside-static.txt',
      'static/lab/link.txt',
      'static/lab/..%5Csecret-beside-static.txt',
      'static/lab/%00',
      `${MAIN}.br`,
      'static/lab/',
      'static/lab/nope.js',
    ]) {
      const res = await s.fetch(url, { auth: false });
      expect(res.status, url).toBeGreaterThanOrEqual(300);
      expect(await res.text(), url).not.toContain('secret');
    }
  });

  it("serves a prebuilt extension's files under lab/extensions/<name>/, kept inside its folder", async () => {
    const entry = await s.fetch('lab/extensions/@scope/ext/static/remoteEntry.abcdef0123456789.js');
    expect(entry.status).toBe(200);
    expect(entry.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(await entry.text()).toContain('remote entry of @scope/ext');
    expect((await s.fetch('lab/extensions/%40scope/ext/package.json')).status).toBe(200);
    for (const url of [
      'lab/extensions/@scope/ext/static/link.js',
      'lab/extensions/@scope/ext/..%2F..%2F..%2Fconfig',
      'lab/extensions/@scope/nope/package.json',
      'lab/extensions/@scope',
    ]) {
      const res = await s.fetch(url);
      expect(res.status, url).toBe(404);
      expect(await res.text(), url).not.toContain('secret');
    }
    // like every page, it needs a login: a browser without one goes to the login page
    expect((await s.fetch('lab/extensions/@scope/ext/package.json', { auth: false })).status).toBe(302);
  });
});
