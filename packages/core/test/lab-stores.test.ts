/**
 * JupyterLab's server-side stores without HTTP: settings (schemas, overrides, JSON5, validation),
 * workspaces (jupyterlab_server's file names), prebuilt extension discovery in Jupyter's data
 * paths, and license reports.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writeFederatedExtension, writeLabAppDir } from '../../../testing/lab-app.js';
import { makeTempDir, removeDir } from '../../../testing/temp.js';
import {
  checkWorkspaceName,
  findFederatedExtensions,
  LabSettings,
  LabWorkspaces,
  labExtensionDirs,
  licenseReport,
  workspaceSlug,
} from '../src/index.js';

const dirs: string[] = [];
async function tempDir(): Promise<string> {
  const dir = await makeTempDir('nbserve-lab-core-');
  dirs.push(dir);
  return dir;
}
afterEach(async () => {
  for (const dir of dirs.splice(0)) await removeDir(dir);
});

const THEMES = '@jupyterlab/apputils-extension:themes';

describe('workspaces', () => {
  it("names files with jupyterlab_server's slug", () => {
    // jupyterlab_server's own test data: foo-2c26.jupyterlab-workspace, foo-92dd.jupyterlab-workspace
    expect(workspaceSlug('foo')).toBe('foo-2c26');
    expect(workspaceSlug('Foo.Bar_x-y')).toMatch(/^foobar_x-y-[0-9a-f]{4}$/);
  });

  it('refuses names that are not plain words', () => {
    for (const bad of ['', '.', '..', 'a/b', 'a\0b', 'a b', 'é', 'x'.repeat(101)]) {
      expect(() => checkWorkspaceName(bad), JSON.stringify(bad)).toThrow(/Invalid workspace name/);
    }
    expect(checkWorkspaceName('auto-3.x_y')).toBe('auto-3.x_y');
  });

  it('saves verbatim, loads with file times, lists and deletes', async () => {
    const dir = path.join(await tempDir(), 'workspaces');
    const store = new LabWorkspaces(dir);
    expect(await store.list()).toEqual([]);
    expect(await store.get('foo')).toEqual({ data: {}, metadata: { id: '/foo' } });
    const raw = '{"data": {"a": 1}, "metadata": {"id": "/foo"}}';
    await store.save('foo', raw);
    expect(await fs.readFile(path.join(dir, 'foo-2c26.jupyterlab-workspace'), 'utf8')).toBe(raw);
    const got = await store.get('foo');
    expect(got.data).toEqual({ a: 1 });
    expect(got.metadata).toMatchObject({ id: '/foo', created: expect.any(String), last_modified: expect.any(String) });
    await store.save('bar', '{"data": {}, "metadata": {"id": "bar"}}');
    expect((await store.list()).map((w) => w.metadata.id)).toEqual(['bar', '/foo']);
    await expect(store.save('foo', '{"data": {}, "metadata": {"id": "bar"}}')).rejects.toThrow(/mismatch/);
    await store.delete('foo');
    await expect(store.delete('foo')).rejects.toMatchObject({ kind: 'not-found' });
  });
});

describe('settings', () => {
  it('lists ids descending, applies overrides in order, and validates saves', async () => {
    const root = await tempDir();
    const app = await writeLabAppDir(path.join(root, 'app'));
    const settingsDir = path.join(app, 'settings');
    await fs.mkdir(path.join(settingsDir, 'overrides.d'), { recursive: true });
    await fs.writeFile(path.join(settingsDir, 'overrides.d', 'a.json'), JSON.stringify({ [THEMES]: { theme: 'A' } }));
    await fs.writeFile(path.join(settingsDir, 'overrides.d', 'b.json5'), `{ "${THEMES}": { theme: 'B' } }`);
    const userOverrides = path.join(root, 'user');
    await fs.mkdir(userOverrides);
    await fs.writeFile(
      path.join(userOverrides, 'overrides.json'),
      JSON.stringify({ [THEMES]: { 'theme-scrollbars': true } }),
    );
    const warnings: string[] = [];
    const store = new LabSettings({
      schemasDir: path.join(app, 'schemas'),
      userSettingsDir: path.join(root, 'user-settings'),
      overridesDirs: [settingsDir, userOverrides],
      warn: (message) => warnings.push(message),
    });
    expect(await store.list(true)).toEqual([{ id: '@jupyterlab/shortcuts-extension:shortcuts' }, { id: THEMES }]);
    const themes = await store.get(THEMES);
    const properties = themes.schema.properties as Record<string, { default: unknown }>;
    expect(properties.theme?.default).toBe('B');
    expect(properties['theme-scrollbars']?.default).toBe(true);
    expect(themes.version).toBe('4.6.4');
    expect((await store.get('@jupyterlab/shortcuts-extension:shortcuts')).version).toBe('N/A');
    await store.save(THEMES, '// mine\n{ theme: "X" }');
    expect((await store.get(THEMES)).settings).toEqual({ theme: 'X' });
    await expect(store.save(THEMES, '{ theme: 1 }')).rejects.toMatchObject({ kind: 'bad-request' });
    await expect(store.save(THEMES, '{')).rejects.toThrow(/JSON5/);
    await expect(store.get('@jupyterlab/x:y')).rejects.toMatchObject({ kind: 'not-found' });
    await expect(store.get('../../etc:passwd')).rejects.toMatchObject({ kind: 'not-found' });
    expect(warnings).toEqual([]);
  });

  it("takes a prebuilt extension's schema over the build's", async () => {
    const root = await tempDir();
    const app = await writeLabAppDir(path.join(root, 'app'));
    const ext = await writeFederatedExtension(path.join(root, 'labextensions'), '@jupyterlab/apputils-extension', {
      version: '9.9.9',
    });
    await fs.writeFile(
      path.join(ext, 'schemas', '@jupyterlab/apputils-extension', 'themes.json'),
      JSON.stringify({ type: 'object', properties: { mine: { type: 'number' } } }),
    );
    await fs.writeFile(
      path.join(ext, 'schemas', '@jupyterlab/apputils-extension', 'package.json.orig'),
      JSON.stringify({ version: '9.9.9' }),
    );
    const store = new LabSettings({
      schemasDir: path.join(app, 'schemas'),
      userSettingsDir: path.join(root, 'user-settings'),
      overridesDirs: [],
      extensionSchemas: async () => new Map([['@jupyterlab/apputils-extension', path.join(ext, 'schemas')]]),
    });
    const themes = await store.get(THEMES);
    expect(themes.version).toBe('9.9.9');
    expect(Object.keys(themes.schema.properties as object)).toEqual(['mine']);
  });
});

describe('prebuilt extensions', () => {
  it("are found in Jupyter's data paths, the first folder holding a name winning", async () => {
    const root = await tempDir();
    const first = path.join(root, 'first', 'labextensions');
    const second = path.join(root, 'second', 'labextensions');
    await writeFederatedExtension(first, 'shared', { version: '1.0.0' });
    await writeFederatedExtension(second, 'shared', { version: '2.0.0' });
    await writeFederatedExtension(second, '@scope/ext', { disables: ['x:y'] });
    await fs.mkdir(path.join(second, 'broken'));
    await fs.writeFile(path.join(second, 'broken', 'package.json'), '{not json');
    await fs.mkdir(path.join(second, 'no-build'));
    await fs.writeFile(
      path.join(second, 'no-build', 'package.json'),
      JSON.stringify({ name: 'no-build', version: '1' }),
    );
    await fs.mkdir(path.join(second, 'bad-name'));
    await fs.writeFile(
      path.join(second, 'bad-name', 'package.json'),
      JSON.stringify({ name: '../../x', version: '1' }),
    );
    const found = await findFederatedExtensions([first, second, path.join(root, 'missing')]);
    expect(found.map((e) => [e.name, e.version])).toEqual([
      ['shared', '1.0.0'],
      ['@scope/ext', '1.0.0'],
      ['no-build', '1'],
    ]);
    expect(found[1]?.disables).toEqual(['x:y']);
    expect(found[1]?.entry).toEqual({
      name: '@scope/ext',
      load: 'static/remoteEntry.abcdef0123456789.js',
      extension: './extension',
      style: './style',
    });
    expect(found[2]?.entry).toBeUndefined();
  });

  it("look where JupyterLab looks: JUPYTER_PATH, the user's data dir, then the system's", () => {
    const env = { JUPYTER_PATH: '/a:/b/', JUPYTER_DATA_DIR: '/home/u/.local/share/jupyter' };
    expect(labExtensionDirs({ env })).toEqual([
      '/a/labextensions',
      '/b/labextensions',
      '/home/u/.local/share/jupyter/labextensions',
      '/usr/local/share/jupyter/labextensions',
      '/usr/share/jupyter/labextensions',
    ]);
    expect(
      labExtensionDirs({ env: { JUPYTER_DATA_DIR: '/d', JUPYTER_PREFER_ENV_PATH: '1' }, envPrefix: '/venv' }),
    ).toEqual([
      '/venv/share/jupyter/labextensions',
      '/d/labextensions',
      '/usr/local/share/jupyter/labextensions',
      '/usr/share/jupyter/labextensions',
    ]);
  });
});

describe('license reports', () => {
  it('say so for a bundle without licenses', () => {
    expect(licenseReport({ empty: { packages: [] } }, 'markdown', true)).toBe('# empty\n\n> No licenses found\n');
    expect(JSON.parse(licenseReport({ empty: { packages: [] } }, 'json', true))).toEqual({
      bundles: { empty: { packages: [] } },
    });
  });
});
