import { labUrl } from '../../shared/paths.js';
import type { ContentsModel, KernelSpecs } from '../lib/api.js';
import { pageConfig } from '../lib/config.js';
import { h } from '../lib/dom.js';
import { themeToggle } from '../lib/theme.js';
import { ClustersView } from './clusters.js';
import { FilesView } from './files.js';
import { RunningView } from './running.js';

/**
 * The dashboard page (`/tree/<path>`): Files, Running and Clusters tabs. `firstPage` is the
 * first page of the page's folder, requested before this code was loaded.
 */
export async function startDashboard(
  firstPage: Promise<ContentsModel>,
  specs: Promise<KernelSpecs | undefined>,
): Promise<void> {
  const config = pageConfig();
  const files = new FilesView(specs);
  const running = new RunningView();
  const clusters = new ClustersView();
  const views = { files, running, clusters } as const;
  type Tab = keyof typeof views;
  const tabButtons = new Map<Tab, HTMLElement>();
  const panel = h('div', { className: 'tab-panel' });
  const select = (tab: Tab, load = true) => {
    for (const [name, button] of tabButtons) button.setAttribute('aria-selected', String(name === tab));
    panel.replaceChildren(views[tab].element);
    if (load) void views[tab].load();
  };
  const tabs = h('div', { className: 'tabs', role: 'tablist' });
  for (const [tab, label] of [
    ['files', 'Files'],
    ['running', 'Running'],
    ['clusters', 'Clusters'],
  ] as const) {
    const b = h(
      'button',
      { type: 'button', role: 'tab', className: 'tab', 'data-tab': tab, onclick: () => select(tab) },
      label,
    );
    tabButtons.set(tab, b);
    tabs.append(b);
  }
  document.body.replaceChildren(
    h(
      'header',
      { className: 'topbar' },
      h('a', { className: 'brand', href: `${config.baseUrl}tree` }, 'nbserve'),
      h('div', { className: 'spacer' }),
      // JupyterLab is built here: open the folder shown (whatever it is by then) in it.
      config.labAvailable === true
        ? h(
            'a',
            {
              className: 'btn btn-small lab-link',
              href: labUrl(config.baseUrl, config.path),
              onclick: (event: Event) => {
                (event.currentTarget as HTMLAnchorElement).href = labUrl(config.baseUrl, files.path);
              },
            },
            'Open in JupyterLab',
          )
        : null,
      // Served by JupyterHub: the way back to the hub's home (start, stop, other servers).
      typeof config.hubControlPanelUrl === 'string'
        ? h('a', { className: 'btn btn-small', href: config.hubControlPanelUrl }, 'Control panel')
        : null,
      config.authEnabled ? h('a', { className: 'btn btn-small', href: `${config.baseUrl}logout` }, 'Log out') : null,
      themeToggle(),
    ),
    h('main', { className: 'dashboard' }, tabs, panel),
  );
  select('files', false);
  await Promise.all([files.open(config.path, false, firstPage), specs]);
  window.addEventListener('popstate', () => {
    const prefix = `${config.baseUrl}tree`;
    const rest = decodeURIComponent(location.pathname.startsWith(prefix) ? location.pathname.slice(prefix.length) : '');
    void files.open(rest.replace(/^\/+/, ''), false);
  });
  // Coming back to the tab (e.g. after creating a notebook in another one) shows what changed.
  window.addEventListener('focus', () => {
    if (panel.firstElementChild === files.element) void files.load();
  });
  document.body.dataset.ready = 'true';
}
