// needs: kernel
/**
 * The `nbserve` command as a JupyterHub spawner starts it: hub mode from the environment (or
 * `--hub`), the spawner's arguments and variables, the start-up check of the hub, activity at
 * start, and the stop the hub asks for (SIGINT, then SIGTERM) leaving no kernel behind. The hub
 * here is the API double; packages/cli/test/hub-e2e.test.ts runs the real one.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { isolated, killLeftovers, runCli, useCliDirs } from '../../../testing/cli.js';
import { type HubDouble, startHubDouble } from '../../../testing/hub-double.js';
import { processesUnder } from '../../../testing/jupyterhub.js';
import { freePort } from '../../../testing/ports.js';
import { expandAliases } from '../src/command-line-rewrites.js';
import { hubSettings, waitForHub } from '../src/hub-mode.js';

let hub: HubDouble;
const dirs = useCliDirs();

beforeAll(async () => {
  hub = await startHubDouble();
});
afterEach(() => {
  hub.mode = 'ok';
  hub.tokens.clear();
  hub.requests.length = 0;
  killLeftovers();
});
afterAll(async () => {
  await hub.close();
});

describe('the spawner’s arguments', () => {
  it('reads JupyterHub’s aliases as nbserve flags', () => {
    expect(expandAliases(['--debug', '--SingleUserNotebookApp.default_url=/tree/x', '--port=9'])).toEqual([
      '--log-level=debug',
      '--default-url=/tree/x',
      '--port=9',
    ]);
    expect(expandAliases(['--SingleUserNotebookApp.default_url', '/lab', '--', '--debug'])).toEqual([
      '--default-url',
      '/lab',
      '--',
      '--debug',
    ]);
    expect(() => expandAliases(['--debug=yes'])).toThrow('--debug takes no value');
  });
});

describe('hubSettings', () => {
  const env = (extra: Record<string, string> = {}) => ({ ...hub.env('alice', '/user/alice/'), ...extra });

  it('listens where JUPYTERHUB_SERVICE_URL says, under the service prefix, unless flags say otherwise', () => {
    const settings = hubSettings({}, env({ JUPYTERHUB_SERVICE_URL: 'http://0.0.0.0:8888/user/alice/' }));
    expect(settings).toMatchObject({ ip: '0.0.0.0', port: 8888, portRetries: 0, baseUrl: '/user/alice/' });
    expect(settings?.allowRemoteAccess).toBe(true);
    const flagged = hubSettings({ ip: '127.0.0.2', port: 9999, baseUrl: '/x/', allowRemoteAccess: false }, env());
    expect(flagged).toMatchObject({ ip: '127.0.0.2', port: 9999, baseUrl: '/x/', allowRemoteAccess: false });
    const ipv6 = hubSettings({}, env({ JUPYTERHUB_SERVICE_URL: 'http://[::1]:7000/user/alice/' }));
    expect(ipv6).toMatchObject({ ip: '::1', port: 7000 });
  });

  it('takes the 3.0 spawner variables: root dir (~ expanded), default URL, debug, user config', () => {
    const settings = hubSettings(
      {},
      env({
        HOME: '/home/alice',
        JUPYTERHUB_ROOT_DIR: '~/work',
        JUPYTERHUB_DEFAULT_URL: '/tree/work',
        JUPYTERHUB_DEBUG: '1',
        JUPYTERHUB_DISABLE_USER_CONFIG: '1',
      }),
    );
    expect(settings).toMatchObject({
      rootDir: '/home/alice/work',
      defaultUrl: '/tree/work',
      logLevel: 'debug',
      disableUserConfig: true,
    });
    expect(hubSettings({ defaultUrl: '/tree', logLevel: 'warn' }, env({ JUPYTERHUB_DEBUG: '1' }))).toMatchObject({
      defaultUrl: '/tree',
      logLevel: 'warn',
    });
  });

  it('is on with the hub’s variables or --hub, off with --no-hub or without them', () => {
    expect(hubSettings({}, env())).not.toBeNull();
    expect(hubSettings({ hubMode: false }, env())).toBeNull();
    expect(hubSettings({}, { JUPYTERHUB_API_TOKEN: 'x' })).toBeNull();
    expect(() => hubSettings({ hubMode: true }, {})).toThrow(/JUPYTERHUB_API_TOKEN is not set/);
    expect(() => hubSettings({}, env({ JUPYTERHUB_SERVICE_URL: 'https://127.0.0.1:1/user/alice/' }))).toThrow(
      /internal_ssl is not supported/,
    );
  });

  it('asks the hub a few times at start before giving up', async () => {
    hub.mode = 'error';
    const waits: number[] = [];
    const { logger } = { logger: { info: () => {}, warn: () => {}, error: () => {} } };
    const config = hubSettings({}, env())?.hub;
    if (!config) throw new Error('no hub settings');
    await expect(waitForHub(config, logger, async (ms) => void waits.push(ms))).rejects.toThrow(
      /JupyterHub answered 500 to GET \/hub\/api .*5 attempts/,
    );
    expect(waits).toEqual([2000, 4000, 8000, 16000]);
    hub.mode = 'ok';
    await waitForHub(config, logger, async () => {});
  });
});

describe('nbserve spawned with a hub’s environment', () => {
  async function spawned(args: string[] = [], extra: Record<string, string> = {}) {
    const port = await freePort();
    const env = hub.env('alice', '/user/alice/', {
      JUPYTERHUB_SERVICE_URL: `http://127.0.0.1:${port}/user/alice/`,
      ...extra,
    });
    const [configDir, dataDir, runtimeDir] = isolated(dirs).slice(0, 3);
    const cli = runCli([configDir as string, dataDir as string, runtimeDir as string, ...args], { env });
    return { cli, port, url: await cli.url };
  }

  it('serves the hub’s prefix on the spawner’s port, checks the hub, reports activity, and takes the spawner’s flags', async () => {
    const { cli, port, url } = await spawned([
      `--notebook-dir=${dirs.root}`,
      '--SingleUserNotebookApp.default_url=/tree/sub',
      '--debug',
      '--disable-user-config',
    ]);
    expect(url).toBe(`http://127.0.0.1:${port}/user/alice/`);
    expect(cli.stdout()).toContain(`nbserve is serving ${dirs.root} for JupyterHub user alice`);
    expect(hub.requests[0]).toMatchObject({ method: 'GET', path: '/hub/api', authorization: `token ${hub.apiToken}` });
    await expect.poll(() => hub.requests.some((r) => r.path === '/hub/api/users/alice/activity')).toBe(true);
    const probe = await fetch(url, { redirect: 'manual' });
    expect(probe.status).toBe(302);
    expect(probe.headers.get('location')).toMatch(/^\/hub\/api\/oauth2\/authorize\?client_id=jupyterhub-user-alice&/);
    hub.tokens.set('alice-token', { name: 'alice', scopes: ['access:servers!user=alice'] });
    const auth = { Authorization: 'token alice-token' };
    const home = await fetch(url, { headers: auth, redirect: 'manual' });
    expect(home.headers.get('location')).toBe('/user/alice/tree/sub');
    const started = await fetch(`${url}api/kernels`, { method: 'POST', headers: auth, body: '{"name":"javascript"}' });
    expect(started.status).toBe(201);
    await expect.poll(() => processesUnder(dirs.root).length, { timeout: 30_000 }).toBeGreaterThan(0);
    expect(cli.stderr()).toMatch(/201 POST \/user\/alice\/api\/kernels/); // --debug logs every request

    // The hub stops a server with SIGINT: kernels shut down, the process exits 0.
    cli.child.kill('SIGINT');
    expect((await cli.exit).code).toBe(0);
    expect(cli.stdout()).toContain('nbserve stopped.');
    expect(processesUnder(dirs.root)).toEqual([]);
    expect(`${cli.stdout()}${cli.stderr()}`).not.toContain(hub.apiToken);
  }, 120_000);

  it('stops at once, kernels included, when SIGTERM follows SIGINT', async () => {
    const { cli, url } = await spawned([`--notebook-dir=${dirs.root}`]);
    hub.tokens.set('alice-token', { name: 'alice', scopes: ['access:servers!user=alice'] });
    const auth = { Authorization: 'token alice-token' };
    const started = await fetch(`${url}api/kernels`, { method: 'POST', headers: auth, body: '{"name":"javascript"}' });
    expect(started.status).toBe(201);
    await expect.poll(() => processesUnder(dirs.root).length, { timeout: 30_000 }).toBeGreaterThan(0);
    cli.child.kill('SIGINT');
    cli.child.kill('SIGTERM');
    await cli.exit;
    await expect.poll(() => processesUnder(dirs.root), { timeout: 10_000 }).toEqual([]);
  }, 120_000);

  it('stays a plain token server with --no-hub, and refuses a broken hub environment', async () => {
    const { cli, url } = await spawned(['--no-hub', `--port=0`]);
    expect(url).toMatch(/\?token=[0-9a-f]{48}$/);
    expect(hub.requests).toEqual([]);
    cli.child.kill('SIGINT');
    await cli.exit;
    const broken = runCli(['--hub', ...isolated(dirs)], { env: { JUPYTERHUB_API_TOKEN: 'x' } });
    expect((await broken.exit).code).toBe(2);
    expect(broken.stderr()).toContain('JUPYTERHUB_CLIENT_ID is not set');
    expect(broken.stderr()).not.toContain('JUPYTERHUB_API_TOKEN is not set');
  }, 120_000);
});
