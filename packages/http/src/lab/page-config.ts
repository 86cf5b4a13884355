import type { FederatedExtension } from '@nbserve/core';
import type { Context } from 'hono';
import type { NbserveEnv } from '../env.js';
import type { LabApp } from './app-dir.js';

/**
 * Plugins nbserve turns off whatever the build says: their server endpoints (jupyter-collaboration's
 * fork and timeline APIs) do not exist here, and a plugin left on would only fail.
 */
export const SERVER_DISABLED_PLUGINS: readonly string[] = [
  '@jupyter/docprovider-extension:forkManager',
  '@jupyter/docprovider-extension:statusBarTimeline',
];

/** jupyter_server's version as `notebookVersion` carries it (a JSON string, as JupyterLab's page reads it). */
const SERVER_VERSION_INFO = '[2, 14, 0]';

/** What the URL of a JupyterLab page says (jupyterlab_server's LabHandler). */
export interface PageParams {
  mode: 'multiple-document' | 'single-document';
  workspace: string;
  treePath: string;
}

let storeId = 0;

/**
 * The page config of a JupyterLab page, as jupyterlab_server and JupyterLab's LabApp build it
 * (https://jupyterlab.readthedocs.io/en/stable/user/directories.html#labconfig-directories): app name
 * and version, the URLs of every lab API (relative to the server root, and `full…` with the base
 * URL), the prebuilt extensions, what is disabled, and what the page URL says. No token: the login
 * cookie and the `_xsrf` cookie authenticate the page's requests.
 */
export function labPageConfig(
  c: Context<NbserveEnv>,
  app: LabApp,
  extensions: readonly FederatedExtension[],
  params: PageParams,
): Record<string, unknown> {
  const services = c.get('services');
  const { options, hub } = services;
  const base = c.get('baseUrl');
  const urls: Record<string, string> = {
    appUrl: '/lab',
    labextensionsUrl: '/lab/extensions',
    listingsUrl: '/lab/api/listings',
    licensesUrl: '/lab/api/licenses',
    settingsUrl: '/lab/api/settings',
    themesUrl: '/lab/api/themes',
    translationsApiUrl: '/lab/api/translations',
    treeUrl: '/lab/tree',
    workspacesApiUrl: '/lab/api/workspaces',
    workspacesUrl: '/lab/workspaces',
  };
  const full = Object.fromEntries(
    Object.entries(urls).map(([name, url]) => [
      `full${name[0]?.toUpperCase()}${name.slice(1)}`,
      `${base}${url.slice(1)}`,
    ]),
  );
  const loadable = extensions.filter((extension) => extension.entry !== undefined);
  const disabled = new Set([...app.disabledExtensions, ...SERVER_DISABLED_PLUGINS]);
  // jupyterlab_server: what an extension disables counts unless that extension is itself disabled
  for (const extension of loadable) {
    if (!disabled.has(extension.name)) for (const id of extension.disables) disabled.add(id);
  }
  const config: Record<string, unknown> = {
    appName: 'JupyterLab',
    appNamespace: 'jupyterlab',
    appVersion: app.version,
    baseUrl: base,
    // jupyter_server leaves it empty: the page derives ws(s):// from its own location
    wsUrl: '',
    token: '',
    ...urls,
    ...full,
    fullStaticUrl: `${base}static/lab`,
    // JupyterLab 4 bundles MathJax 3; `fullMathjaxUrl` (MathJax 2) is left out: nothing serves it
    mathjaxConfig: 'TeX-AMS_HTML-full,Safe',
    cacheFiles: true,
    devMode: false,
    buildAvailable: false,
    buildCheck: false,
    quitButton: true,
    notebookStartsKernel: true,
    copyAbsolutePath: false,
    allow_hidden_files: options.allowHidden,
    terminalsAvailable: services.terminals !== null,
    notebookVersion: SERVER_VERSION_INFO,
    exposeAppInBrowser: options.exposeAppInBrowser,
    extensionManager: { name: 'readonly', can_install: false, install_path: null },
    serverRoot: options.root,
    preferredPath: '/',
    store_id: storeId++,
    ignorePlugins: [],
    deferredExtensions: [],
    disabledExtensions: [...disabled],
    federated_extensions: loadable.map((extension) => extension.entry),
    mode: params.mode,
    workspace: params.workspace,
    treePath: params.treePath,
  };
  if (hub) {
    // JupyterLab's LabApp under JupyterHub: the hub menu and share links
    config.hubPrefix = hub.config.hubPrefix;
    config.hubHost = hub.config.hubHost;
    config.hubUser = hub.config.user;
    config.hubServerName = hub.config.serverName;
    config.shareUrl = `${hub.config.hubPrefix.replace(/\/?$/, '/')}user-redirect`;
  }
  return config;
}
