import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setCookies } from '../../../testing/cookie-jar.js';
import { writeFederatedExtension, writeLabAppDir } from '../../../testing/lab-app.js';
import { v4Notebook } from '../../../testing/notebooks.js';
import { startServer, type TestServer, TRANSPORTS } from '../../../testing/server.js';
import { makeTempDir, removeDir } from '../../../testing/temp.js';
import { TOKEN } from '../../../testing/token.js';

/** The page config a JupyterLab page carries, parsed from its data block. */
function pageConfigOf(html: string): Record<string, unknown> {
  const json = /<script id="jupyter-config-data" type="application\/json">(.*?)<\/script>/s.exec(html)?.[1];
  if (!json) throw new Error('no page config in the page');
  return JSON.parse(json) as Record<string, unknown>;
}

describe('JupyterLab pages', () => {
  let s: TestServer;
  let appDir: string;
  beforeAll(async () => {
    appDir = await writeLabAppDir(await makeTempDir('nbserve-lab-'), { disabled: ['@jupyterlab/lsp-extension'] });
    s = await startServer({ labAppDir: appDir, exposeAppInBrowser: true });
    await writeFederatedExtension(path.join(s.dir, 'labextensions'), 'nbserve-test-ext', {
      disables: ['@jupyterlab/help-extension:about'],
    });
    await writeFederatedExtension(path.join(s.dir, 'labextensions'), '@scope/ext');
  });
  afterAll(async () => {
    await s.close();
    await removeDir(appDir);
  });

  for (const transport of TRANSPORTS) {
    it(`serves /lab with jupyterlab_server's page config (${transport})`, async () => {
      const res = await s.send(transport)('lab');
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toContain('text/html');
      expect(res.headers.get('cache-control')).toBe('no-store');
      const html = await res.text();
      expect(html).not.toContain(TOKEN);
      expect(html).toContain(`src="${s.prefix}static/lab/main.0123456789abcdef.js"`);
      expect(html).toContain(`data-base="${s.prefix}"`);
      const config = pageConfigOf(html);
      expect(config).toMatchObject({
        appName: 'JupyterLab',
        appNamespace: 'jupyterlab',
        appVersion: '4.6.4',
        appUrl: '/lab',
        baseUrl: s.prefix,
        wsUrl: '',
        token: '',
        fullAppUrl: `${s.prefix}lab`,
        fullStaticUrl: `${s.prefix}static/lab`,
        settingsUrl: '/lab/api/settings',
        fullSettingsUrl: `${s.prefix}lab/api/settings`,
        themesUrl: '/lab/api/themes',
        fullThemesUrl: `${s.prefix}lab/api/themes`,
        workspacesApiUrl: '/lab/api/workspaces',
        fullWorkspacesApiUrl: `${s.prefix}lab/api/workspaces`,
        workspacesUrl: '/lab/workspaces',
        translationsApiUrl: '/lab/api/translations',
        fullTranslationsApiUrl: `${s.prefix}lab/api/translations`,
        listingsUrl: '/lab/api/listings',
        licensesUrl: '/lab/api/licenses',
        fullLicensesUrl: `${s.prefix}lab/api/licenses`,
        labextensionsUrl: '/lab/extensions',
        fullLabextensionsUrl: `${s.prefix}lab/extensions`,
        treeUrl: '/lab/tree',
        treePath: '',
        workspace: 'default',
        mode: 'multiple-document',
        terminalsAvailable: expect.any(Boolean),
        notebookVersion: expect.stringMatching(/^\[2, \d+, \d+\]$/),
        exposeAppInBrowser: true,
        buildAvailable: false,
        buildCheck: false,
        devMode: false,
      });
      const notebookVersion = JSON.parse(String(config.notebookVersion)) as number[];
      expect(notebookVersion[0]).toBe(2);
      const disabled = config.disabledExtensions as string[];
      expect(disabled).toContain('@jupyterlab/lsp-extension'); // from build.json
      expect(disabled).toContain('@jupyterlab/help-extension:about'); // from an extension's package.json
      expect(disabled).toContain('@jupyter/docprovider-extension:forkManager'); // no fork API here
      expect(config.federated_extensions).toEqual([
        {
          name: '@scope/ext',
          load: 'static/remoteEntry.abcdef0123456789.js',
          extension: './extension',
          style: './style',
        },
        {
          name: 'nbserve-test-ext',
          load: 'static/remoteEntry.abcdef0123456789.js',
          extension: './extension',
          style: './style',
        },
      ]);
    });
  }

  it('reads tree paths, workspaces and single-document mode from the URL', async () => {
    const cases: Array<[string, Record<string, unknown>]> = [
      ['lab/tree/dir/a%20b.ipynb', { treePath: 'dir/a b.ipynb', workspace: 'default', mode: 'multiple-document' }],
      ['lab/workspaces/foo', { treePath: '', workspace: 'foo', mode: 'multiple-document' }],
      ['lab/workspaces/foo/tree/x.ipynb', { treePath: 'x.ipynb', workspace: 'foo', mode: 'multiple-document' }],
      ['doc/tree/x.ipynb', { treePath: 'x.ipynb', workspace: 'default', mode: 'single-document' }],
    ];
    for (const [url, expected] of cases) {
      const res = await s.fetch(url);
      expect(res.status, url).toBe(200);
      expect(pageConfigOf(await res.text()), url).toMatchObject(expected);
    }
  });

  it('escapes the page config so a file name cannot close the script block', async () => {
    const res = await s.fetch('lab/tree/%3C%2Fscript%3E%3Cscript%3Ealert(1)%3C%2Fscript%3E.ipynb');
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).not.toContain('<script>alert(1)');
    expect(pageConfigOf(html).treePath).toBe('</script><script>alert(1)</script>.ipynb');
  });

  it('404s workspace names the URL pattern does not take, and strips a trailing slash', async () => {
    expect((await s.fetch('lab/workspaces/a.b')).status).toBe(404);
    const slash = await s.fetch('lab/');
    expect(slash.status).toBe(302);
    expect(slash.headers.get('location')).toBe(`${s.prefix}lab`);
  });

  it('logs in with ?token=, sets the login and _xsrf cookies, and drops the token from the URL', async () => {
    const res = await s.fetch(`lab/tree/x.ipynb?token=${TOKEN}`, {
      auth: false,
      headers: { 'sec-fetch-mode': 'navigate' },
    });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe(`${s.prefix}lab/tree/x.ipynb`);
    const cookies = setCookies(res);
    expect(cookies.get('_xsrf')?.value).toBeTruthy();
    expect([...cookies.keys()].some((name) => name.startsWith('username-'))).toBe(true);
    const login = [...cookies].find(([name]) => name.startsWith('username-'));
    const page = await s.fetch('lab', { auth: false, headers: { cookie: `${login?.[0]}=${login?.[1].value}` } });
    expect(page.status).toBe(200);
    expect(setCookies(page).get('_xsrf')?.value).toBeTruthy();
  });

  it('sends a browser without credentials to the login page, and API clients a 403', async () => {
    const page = await s.fetch('lab', { auth: false });
    expect(page.status).toBe(302);
    expect(page.headers.get('location')).toContain(`${s.prefix}login?next=`);
    const api = await s.fetch('lab/api/settings', { auth: false });
    expect(api.status).toBe(403);
    expect(await api.json()).toMatchObject({ message: expect.any(String) });
  });
});

describe('where JupyterLab is reached from', () => {
  let s: TestServer;
  let appDir: string;
  beforeAll(async () => {
    appDir = await writeLabAppDir(await makeTempDir('nbserve-lab-'));
    s = await startServer({ labAppDir: appDir, defaultUrl: '/lab', baseUrl: '/a%40b/' });
    await fs.mkdir(path.join(s.root, 'my dir'));
    await fs.writeFile(path.join(s.root, 'my dir', 'n.ipynb'), JSON.stringify(v4Notebook([])));
  });
  afterAll(async () => {
    await s.close();
    await removeDir(appDir);
  });

  it('--default-url /lab: the root goes to JupyterLab under the base URL', async () => {
    const root = await s.fetch('');
    expect(root.status).toBe(302);
    expect(root.headers.get('location')).toBe('/a%40b/lab');
    expect((await s.fetch('lab')).status).toBe(200);
  });

  it('the dashboard and the notebook page link to the same place in JupyterLab', async () => {
    const tree = await (await s.fetch('tree/my%20dir')).text();
    expect(tree).toContain('href="/a%40b/lab/tree/my%20dir">Open in JupyterLab</a>');
    const notebook = await (await s.fetch('notebooks/my%20dir/n.ipynb')).text();
    const config = JSON.parse(/id="nbserve-config">(.*?)<\/script>/s.exec(notebook)?.[1] ?? '{}') as Record<
      string,
      unknown
    >;
    expect(config.labAvailable).toBe(true);
  });
});

describe('JupyterLab pages without a build', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer({ labAppDir: await makeTempDir('nbserve-nolab-') });
  });
  afterAll(() => s.close());

  it('answers /lab with a 404 that says how to build it, and the lab API with a Jupyter error', async () => {
    const page = await s.fetch('lab');
    expect(page.status).toBe(404);
    expect(await page.text()).toContain('JupyterLab is not built here: run pnpm build');
    const api = await s.fetch('lab/api/settings');
    expect(api.status).toBe(404);
    expect(await api.json()).toEqual({ message: 'JupyterLab is not built here: run pnpm build', reason: null });
    expect((await s.fetch('api/status')).status).toBe(200);
  });

  it('links no page to JupyterLab', async () => {
    const tree = await (await s.fetch('tree')).text();
    expect(tree).toContain('<header');
    expect(tree).not.toContain('Open in JupyterLab');
    expect(tree).not.toContain('labAvailable');
  });
});
