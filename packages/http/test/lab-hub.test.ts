/**
 * JupyterLab behind JupyterHub (a JupyterHub API double): the spawner's default URL `/lab` lands
 * on JupyterLab after the hub's OAuth login, and the page config carries the hub's prefix, user and
 * server name (JupyterLab's hub extension reads them) and no token.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CookieJar } from '../../../testing/cookie-jar.js';
import { type HubDouble, startHubDouble } from '../../../testing/hub-double.js';
import { writeLabAppDir } from '../../../testing/lab-app.js';
import { startServer, type TestServer } from '../../../testing/server.js';
import { makeTempDir, removeDir } from '../../../testing/temp.js';

describe('JupyterLab in hub mode at /user/a%40b/', () => {
  const user = 'a@b';
  const prefix = '/user/a%40b/';
  let hub: HubDouble;
  let s: TestServer;
  let appDir: string;
  beforeAll(async () => {
    hub = await startHubDouble();
    appDir = await writeLabAppDir(await makeTempDir('nbserve-lab-'));
    const config = hub.config(user, prefix, { JUPYTERHUB_DEFAULT_URL: '/lab' });
    s = await startServer({
      baseUrl: prefix,
      hub: config,
      defaultUrl: config.defaultUrl ?? '/tree',
      labAppDir: appDir,
    });
  });
  afterAll(async () => {
    await s.close();
    await hub.close();
    await removeDir(appDir);
  });

  /** A request as a browser sends it: the jar's cookies, no token. */
  async function browse(jar: CookieJar, relative: string) {
    const path = s.path(relative).split('?')[0] as string;
    const cookie = jar.header(path);
    const response = await s.fetch(relative, { auth: false, headers: cookie ? { cookie } : {} });
    jar.store(response, path);
    return response;
  }

  it('logs in through the hub, lands on /lab, and gives the page the hub settings', async () => {
    const jar = new CookieJar();
    const login = await browse(jar, '');
    expect(login.status).toBe(302);
    const authorize = new URL(login.headers.get('location') as string, 'http://proxy.invalid');
    expect(authorize.pathname).toBe('/hub/api/oauth2/authorize');
    hub.codes.set('code-1', 'user-token');
    hub.tokens.set('user-token', { name: user, scopes: [`access:servers!server=${user}/`] });
    const query = new URLSearchParams({ code: 'code-1', state: authorize.searchParams.get('state') ?? '' });
    const back = await browse(jar, `oauth_callback?${query}`);
    expect(back.status).toBe(302);
    expect(back.headers.get('location')).toBe(prefix);
    const root = await browse(jar, '');
    expect(root.status).toBe(302);
    expect(root.headers.get('location')).toBe(`${prefix}lab`);
    const page = await browse(jar, 'lab');
    expect(page.status).toBe(200);
    const html = await page.text();
    const config = JSON.parse(
      /id="jupyter-config-data" type="application\/json">(.*?)<\/script>/s.exec(html)?.[1] ?? '{}',
    );
    expect(config).toMatchObject({
      baseUrl: prefix,
      token: '',
      hubPrefix: '/hub/',
      hubUser: user,
      hubServerName: '',
      shareUrl: '/hub/user-redirect',
    });
    expect(html).not.toContain(hub.apiToken);
  });
});
