import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFederatedExtension, writeLabAppDir } from '../../../testing/lab-app.js';
import { startServer, type TestServer, TRANSPORTS } from '../../../testing/server.js';
import { makeTempDir, removeDir } from '../../../testing/temp.js';

describe('/lab/api/themes, translations and licenses', () => {
  let s: TestServer;
  let appDir: string;
  beforeAll(async () => {
    appDir = await writeLabAppDir(await makeTempDir('nbserve-lab-'));
    s = await startServer({ labAppDir: appDir });
    const ext = await writeFederatedExtension(path.join(s.dir, 'labextensions'), 'nbserve-test-theme');
    await fs.mkdir(path.join(ext, 'themes', 'nbserve-test-theme'), { recursive: true });
    await fs.writeFile(path.join(ext, 'themes', 'nbserve-test-theme', 'index.css'), 'a { background: url("bg.png") }');
  });
  afterAll(async () => {
    await s.close();
    await removeDir(appDir);
  });

  for (const transport of TRANSPORTS) {
    it(`serves a theme's CSS with its relative URLs under the themes URL (${transport})`, async () => {
      const res = await s.send(transport)('lab/api/themes/@jupyterlab/theme-light-extension/index.css');
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/css; charset=utf-8');
      const css = await res.text();
      expect(css).toContain(`url('${s.prefix}lab/api/themes/@jupyterlab/theme-light-extension/images/logo.svg')`);
      expect(css).toContain("url('/abs.svg')");
    });
  }

  it("gives a theme's CSS an ETag and answers 304 when it still matches, as a reload revalidates it", async () => {
    const url = 'lab/api/themes/@jupyterlab/theme-light-extension/index.css';
    const first = await s.fetch(url);
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(first.headers.get('cache-control')).toBe('no-cache');
    // the weak form is what the browser holds once the answer went out compressed
    for (const sent of [etag ?? '', `W/${etag}`, `"other", ${etag}`]) {
      const again = await s.fetch(url, { headers: { 'if-none-match': sent } });
      expect(again.status, sent).toBe(304);
      expect(await again.text(), sent).toBe('');
    }
    const zipped = await s.fetch(url, { headers: { 'accept-encoding': 'gzip' } });
    expect(zipped.headers.get('content-encoding')).toBe('gzip');
    expect(zipped.headers.get('etag')).toBe(`W/${etag}`);
    const changed = await s.fetch(url, { headers: { 'if-none-match': '"other"' } });
    expect(changed.status).toBe(200);
    expect(await changed.text()).toContain('logo.svg');
  });

  it("serves a theme's other files, and themes of prebuilt extensions", async () => {
    const svg = await s.fetch('lab/api/themes/@jupyterlab/theme-light-extension/images/logo.svg');
    expect(svg.status).toBe(200);
    expect(svg.headers.get('content-type')).toContain('image/svg+xml');
    const ext = await s.fetch('lab/api/themes/nbserve-test-theme/index.css');
    expect(await ext.text()).toContain(`url("${s.prefix}lab/api/themes/nbserve-test-theme/bg.png")`);
    for (const url of [
      'lab/api/themes/..%2F..%2Fbuild.json',
      'lab/api/themes/@jupyterlab/nope.css',
      'lab/api/themes/%2e%2e/build.json',
    ]) {
      const res = await s.fetch(url);
      expect(res.status, url).toBe(404);
      expect(await res.text(), url).not.toContain('4.6.4');
    }
  });

  it('lists English as the one language, and answers any locale as jupyterlab_server does', async () => {
    expect(await (await s.fetch('lab/api/translations')).json()).toEqual({
      data: { en: { displayName: 'English', nativeName: 'English' } },
      message: '',
    });
    expect(await (await s.fetch('lab/api/translations/en')).json()).toEqual({ data: {}, message: '' });
    expect(await (await s.fetch('lab/api/translations/default')).json()).toEqual({ data: {}, message: '' });
    expect(await (await s.fetch('lab/api/translations/fr_FR')).json()).toEqual({
      data: {},
      message: "Language pack 'fr_FR' not installed!",
    });
    expect(await (await s.fetch('lab/api/translations/%3Cb%3E')).json()).toEqual({
      data: {},
      message: "Language pack '<b>' not valid!",
    });
  });

  it('reports licenses as JSON {bundles}, Markdown and CSV', async () => {
    const json = (await (await s.fetch('lab/api/licenses')).json()) as {
      bundles: Record<string, { packages: unknown[] }>;
    };
    expect(Object.keys(json.bundles).sort()).toEqual(['@nbserve/jupyterlab', 'nbserve-test-theme']);
    expect(json.bundles['@nbserve/jupyterlab']?.packages).toHaveLength(2);
    expect(json.bundles['@nbserve/jupyterlab']?.packages[0]).toEqual({
      name: '@lumino/widgets',
      versionInfo: '2.7.1',
      licenseId: 'BSD-3-Clause',
      extractedText: 'Copyright (c) Lumino',
    });
    const md = await s.fetch('lab/api/licenses?format=markdown&full_text=true');
    expect(md.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    const text = await md.text();
    expect(text).toContain('# @nbserve/jupyterlab');
    expect(text).toMatch(/## \*\*@lumino\/widgets\*\*\s+`2\.7\.1`\s+BSD-3-Clause/);
    expect(text).toContain('Copyright (c) Lumino');
    const short = await (await s.fetch('lab/api/licenses?format=markdown&full_text=false')).text();
    expect(short).not.toContain('Copyright (c) Lumino');
    const some = (await (await s.fetch(`lab/api/licenses?bundles=${encodeURIComponent('nbserve-.+|x')}`)).json()) as {
      bundles: object;
    };
    expect(Object.keys(some.bundles)).toEqual(['nbserve-test-theme']);
    const csv = await s.fetch('lab/api/licenses?format=csv&bundles=@nbserve&download=1');
    expect(csv.headers.get('content-disposition')).toBe('attachment; filename="jupyterlab-licenses.csv"');
    const lines = (await csv.text()).trim().split('\r\n');
    expect(lines[0]).toBe('bundle,name,versionInfo,licenseId,extractedText');
    expect(lines[2]).toBe('@nbserve/jupyterlab,marked,16.0.0,MIT,"MIT, with ""quotes"", and commas"');
    expect(lines).toHaveLength(3);
  });

  it('refuses unknown formats, flags and bad patterns with a 400', async () => {
    const nested = encodeURIComponent('(n+)+$');
    for (const query of [
      'format=pdf',
      'full_text=maybe',
      'bundles=(',
      `bundles=${'a'.repeat(300)}`,
      `bundles=${nested}`,
    ]) {
      const res = await s.fetch(`lab/api/licenses?${query}`);
      expect(res.status, query).toBe(400);
      expect(await res.json()).toMatchObject({ message: expect.any(String) });
    }
  });
});
