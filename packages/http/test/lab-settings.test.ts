import { promises as fs } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { THEMES_SCHEMA, writeFederatedExtension, writeLabAppDir } from '../../../testing/lab-app.js';
import { startServer, type TestServer, TRANSPORTS } from '../../../testing/server.js';
import { makeTempDir, removeDir, snapshotTree } from '../../../testing/temp.js';

const THEMES = '@jupyterlab/apputils-extension:themes';

describe('/lab/api/settings', () => {
  let s: TestServer;
  let appDir: string;
  let settingsFile: string;
  beforeAll(async () => {
    appDir = await writeLabAppDir(await makeTempDir('nbserve-lab-'));
    // the app's overrides.json changes a default, as jupyterlab_server honours it
    await fs.mkdir(path.join(appDir, 'settings'));
    await fs.writeFile(
      path.join(appDir, 'settings', 'overrides.json'),
      JSON.stringify({ [THEMES]: { theme: 'JupyterLab Dark', overrides: { 'code-font-size': '15px' } } }),
    );
    s = await startServer({ labAppDir: appDir });
    await writeFederatedExtension(path.join(s.dir, 'labextensions'), 'nbserve-test-ext');
    settingsFile = path.join(
      s.dir,
      'config',
      'lab',
      'user-settings',
      '@jupyterlab',
      'apputils-extension',
      'themes.jupyterlab-settings',
    );
  });
  afterAll(async () => {
    await s.close();
    await removeDir(appDir);
  });

  for (const transport of TRANSPORTS) {
    it(`lists every plugin as {settings: [...]}, ids only with ?ids_only=true (${transport})`, async () => {
      const send = s.send(transport);
      const ids = await send('lab/api/settings?ids_only=true');
      expect(ids.status).toBe(200);
      expect(await ids.json()).toEqual({
        settings: [
          { id: 'nbserve-test-ext:plugin' },
          { id: '@jupyterlab/shortcuts-extension:shortcuts' },
          { id: THEMES },
        ],
      });
      const all = (await (await send('lab/api/settings/')).json()) as { settings: Array<Record<string, unknown>> };
      expect(all.settings.map((p) => p.id)).toEqual([
        'nbserve-test-ext:plugin',
        '@jupyterlab/shortcuts-extension:shortcuts',
        THEMES,
      ]);
      for (const plugin of all.settings) {
        expect(Object.keys(plugin).sort()).toEqual([
          'created',
          'id',
          'last_modified',
          'raw',
          'schema',
          'settings',
          'version',
        ]);
      }
    });
  }

  it('compresses its answers when the client accepts gzip (JupyterLab fetches them with no-store on every load)', async () => {
    const plain = await s.fetch('lab/api/settings');
    expect(plain.headers.get('content-encoding')).toBeNull();
    const zipped = await s.fetch('lab/api/settings', { headers: { 'accept-encoding': 'gzip, deflate, br' } });
    expect(zipped.status).toBe(200);
    expect(zipped.headers.get('content-encoding')).toBe('gzip');
    expect(zipped.headers.get('vary')).toContain('Accept-Encoding');
    const body = gunzipSync(Buffer.from(await zipped.arrayBuffer())).toString('utf8');
    expect(JSON.parse(body)).toEqual(await plain.json());
  });

  it("answers one plugin with its schema (overrides applied), version and the user's settings", async () => {
    const res = await s.fetch(`lab/api/settings/${THEMES}`);
    expect(res.status).toBe(200);
    const plugin = (await res.json()) as {
      schema: { title: string; properties: Record<string, { default: unknown }> };
    } & Record<string, unknown>;
    expect(plugin).toMatchObject({
      id: THEMES,
      version: '4.6.4',
      raw: '{}',
      settings: {},
      last_modified: null,
      created: null,
    });
    expect(plugin.schema.title).toBe(THEMES_SCHEMA.title);
    expect(plugin.schema.properties.theme?.default).toBe('JupyterLab Dark');
    expect(plugin.schema.properties.overrides?.default).toEqual({ 'code-font-size': '15px' });
    const ext = (await (await s.fetch('lab/api/settings/nbserve-test-ext:plugin')).json()) as Record<string, unknown>;
    expect(ext).toMatchObject({ id: 'nbserve-test-ext:plugin', version: '1.0.0' });
  });

  it('stores a PUT of raw JSON5 verbatim, comments included, where jupyterlab_server stores it', async () => {
    const raw = '{\n  // my theme\n  theme: "JupyterLab Dark",\n  "theme-scrollbars": true,\n}';
    const put = await s.fetch(`lab/api/settings/${THEMES}`, { method: 'PUT', json: { raw } });
    expect(put.status).toBe(204);
    expect(await fs.readFile(settingsFile, 'utf8')).toBe(raw);
    const plugin = (await (await s.request(`lab/api/settings/${THEMES}`)).json()) as Record<string, unknown>;
    expect(plugin).toMatchObject({ raw, settings: { theme: 'JupyterLab Dark', 'theme-scrollbars': true } });
    expect(typeof plugin.last_modified).toBe('string');
  });

  it('refuses settings that are not JSON5 or break the schema with a 400 naming the problem, file untouched', async () => {
    const before = await snapshotTree(path.join(s.dir, 'config'));
    const cases: Array<[unknown, RegExp]> = [
      [{ raw: '{ theme: ' }, /JSON5/],
      [{ raw: '{"theme": 3}' }, /theme.*must be string/],
      [{ raw: '{"nope": true}' }, /additional properties/],
      [{ raw: '[1, 2]' }, /must be object/],
      [{ raw: `{"overrides": {"x": ${'['.repeat(100_000)}${']'.repeat(100_000)}}}` }, /nested more than 1000 levels/],
      [{ raw: 5 }, /Must be in the form \{'raw': \.\.\.\}/],
      [{}, /Must be in the form/],
      [[], /Must be in the form/],
    ];
    for (const [json, message] of cases) {
      const res = await s.fetch(`lab/api/settings/${THEMES}`, { method: 'PUT', json });
      expect(res.status, JSON.stringify(json)).toBe(400);
      const body = (await res.json()) as { message: string; reason: unknown };
      expect(body.message, JSON.stringify(json)).toMatch(message);
      expect(body).toHaveProperty('reason');
    }
    const notJson = await s.fetch(`lab/api/settings/${THEMES}`, {
      method: 'PUT',
      body: '{raw',
      headers: { 'content-type': 'application/json' },
    });
    expect(notJson.status).toBe(400);
    expect(await snapshotTree(path.join(s.dir, 'config'))).toEqual(before);
  });

  it('404s unknown plugin ids and ids that would name a path', async () => {
    for (const id of [
      '@jupyterlab/nope-extension:x',
      'no-colon',
      '..%2F..%2Fetc:passwd',
      '@jupyterlab/apputils-extension:..',
    ]) {
      const get = await s.fetch(`lab/api/settings/${id}`);
      expect([400, 404], id).toContain(get.status);
      expect(await get.json()).toHaveProperty('message');
      const put = await s.fetch(`lab/api/settings/${id}`, { method: 'PUT', json: { raw: '{}' } });
      expect([400, 404], id).toContain(put.status);
    }
    const unknown = await s.fetch('lab/api/settings/@jupyterlab/nope-extension:x', {
      method: 'PUT',
      json: { raw: '{}' },
    });
    expect(unknown.status).toBe(404);
  });

  it('keeps one of two concurrent PUTs whole', async () => {
    const a = `{"theme": "${'A'.repeat(50_000)}"}`;
    const b = `{"theme": "${'B'.repeat(70_000)}"}`;
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        s.fetch(`lab/api/settings/${THEMES}`, { method: 'PUT', json: { raw: i % 2 ? a : b } }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(10).fill(204));
    expect([a, b]).toContain(await fs.readFile(settingsFile, 'utf8'));
    const leftovers = (await fs.readdir(path.dirname(settingsFile))).filter((n) => !n.endsWith('.jupyterlab-settings'));
    expect(leftovers).toEqual([]);
  });

  it('ignores a stored file that no longer fits the schema, as jupyterlab_server does', async () => {
    await fs.writeFile(settingsFile, '{"theme": 42}');
    const plugin = (await (await s.fetch(`lab/api/settings/${THEMES}`)).json()) as Record<string, unknown>;
    expect(plugin).toMatchObject({ raw: '{}', settings: {} });
    expect(s.logger.lines.some((line) => line.includes('do not validate'))).toBe(true);
  });
});
