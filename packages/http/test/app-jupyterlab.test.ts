import { promises as fs } from 'node:fs';
import path from 'node:path';
import { ConfigSectionManager, ConfigWithDefaults, ServerConnection, UserAPI } from '@jupyterlab/services';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { createTestApp, type TestApp } from '../../../testing/server.js';
import { TOKEN } from '../../../testing/token.js';
import { type RunningServer, serve } from '../src/serve.js';

/** JupyterLab's own client library against a live nbserve: config sections, the user, raw requests. */
describe('@jupyterlab/services against the foundation routes', () => {
  let f: TestApp;
  let running: RunningServer;
  let serverSettings: ServerConnection.ISettings;

  beforeAll(async () => {
    f = await createTestApp();
    running = await serve({
      root: path.join(f.dir, 'root'),
      configDir: path.join(f.dir, 'config'),
      dataDir: path.join(f.dir, 'data'),
      token: TOKEN,
      baseUrl: '/lab-client/',
      logger: f.logger,
      port: 0,
    });
    serverSettings = ServerConnection.makeSettings({
      baseUrl: running.url,
      token: TOKEN,
      WebSocket: WebSocket as unknown as typeof globalThis.WebSocket,
      fetch: globalThis.fetch,
    });
  });
  afterAll(async () => {
    await running.close();
    await f.close();
  });

  it('ConfigSectionManager loads and updates a section; the file on disk follows', async () => {
    const manager = new ConfigSectionManager({ serverSettings });
    const section = await manager.create({ name: 'notebook' });
    expect(section.data).toEqual({});
    await section.update({ Cell: { cm_config: { lineNumbers: true } } });
    const merged = await section.update({ Cell: { cm_config: { tabSize: 4 } }, theme: 'dark' });
    expect(merged).toEqual({ Cell: { cm_config: { lineNumbers: true, tabSize: 4 } }, theme: 'dark' });
    const onDisk = JSON.parse(await fs.readFile(path.join(f.dir, 'config', 'nbconfig', 'notebook.json'), 'utf8'));
    expect(onDisk).toEqual(merged);

    const again = await manager.create({ name: 'notebook' });
    const withDefaults = new ConfigWithDefaults({ section: again, defaults: { autosave: 120 }, className: 'Cell' });
    expect(withDefaults.get('cm_config')).toEqual({ lineNumbers: true, tabSize: 4 });
    expect(withDefaults.get('autosave')).toBe(120);
  });

  it("the user API client (UserManager's REST layer; the manager itself needs a browser) reads /api/me", async () => {
    const client = new UserAPI.UserAPIClient({ serverSettings });
    const user = await client.get();
    expect(user.identity.username).toMatch(/^[0-9a-f]{32}$/);
    expect(user.identity.display_name).toMatch(/^Anonymous /);
    expect(user.permissions).toEqual({ updatable_fields: ['color'] });
  });

  it('makeRequest reaches /api and /api/status, and a wrong token is refused', async () => {
    const version = await ServerConnection.makeRequest(`${running.url}api`, {}, serverSettings);
    expect(await version.json()).toEqual({ version: expect.any(String) });
    const status = await ServerConnection.makeRequest(`${running.url}api/status`, {}, serverSettings);
    expect(Object.keys(await status.json())).toEqual(['connections', 'kernels', 'last_activity', 'started']);
    const wrong = ServerConnection.makeSettings({ ...serverSettings, token: 'nope' });
    const refused = await ServerConnection.makeRequest(`${running.url}api/status`, {}, wrong);
    expect(refused.status).toBe(403);
  });
});
