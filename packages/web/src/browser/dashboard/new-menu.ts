import { encodePath, url } from '../../shared/paths.js';
import { api, type ContentsModel, contentsRoute, type KernelSpecs } from '../lib/api.js';
import { pageConfig } from '../lib/config.js';
import { h, toast } from '../lib/dom.js';

/**
 * The Files tab's "New" menu: a notebook for each kernel, a text file, a folder. A new notebook
 * or text file opens in its page; a new folder is handed to `folderCreated` (to be renamed).
 */
export function renderNewMenu(
  menu: HTMLElement,
  specs: KernelSpecs | undefined,
  dir: () => string,
  folderCreated: (model: ContentsModel) => Promise<void>,
): void {
  const item = (label: string, fn: () => Promise<void>, logo?: string) => {
    const el = h(
      'button',
      { type: 'button', className: 'menu-item', role: 'menuitem' },
      logo ? h('img', { src: logo, alt: '', className: 'kernel-logo' }) : null,
      label,
    );
    el.addEventListener('click', () => {
      menu.hidden = true;
      void fn().catch((e: unknown) => toast(e instanceof Error ? e.message : String(e), 'error'));
    });
    return el;
  };
  const kernels = specs ? Object.values(specs.kernelspecs) : [];
  kernels.sort((a, b) => a.spec.display_name.localeCompare(b.spec.display_name));
  menu.append(h('div', { className: 'menu-title' }, 'Notebook:'));
  for (const spec of kernels) {
    const logo = spec.resources['logo-32x32'] ?? spec.resources['logo-64x64'] ?? spec.resources['logo-svg'];
    menu.append(item(spec.spec.display_name, () => newNotebook(dir(), specs, spec.name), logo));
  }
  if (kernels.length === 0) menu.append(h('div', { className: 'menu-note' }, 'No kernels found'));
  menu.append(
    h('hr'),
    item('Text File', async () => {
      const model = await api<ContentsModel>(contentsRoute(dir()), {
        method: 'POST',
        body: { type: 'file', ext: '.txt' },
      });
      location.href = url(pageConfig().baseUrl, 'edit', model.path);
    }),
    item('Folder', async () => {
      const model = await api<ContentsModel>(contentsRoute(dir()), { method: 'POST', body: { type: 'directory' } });
      await folderCreated(model);
    }),
  );
  if (pageConfig().terminals === true) {
    menu.append(
      h('hr'),
      item('Terminal', async () => {
        // started in the directory the dashboard shows, as Notebook 6 and JupyterLab do
        const terminal = await api<{ name: string }>('api/terminals', { method: 'POST', body: { cwd: dir() } });
        location.href = `${pageConfig().baseUrl}terminals/${encodePath(terminal.name)}`;
      }),
    );
  }
}

async function newNotebook(dir: string, specs: KernelSpecs | undefined, kernelName: string): Promise<void> {
  const model = await api<ContentsModel>(contentsRoute(dir), { method: 'POST', body: { type: 'notebook' } });
  const spec = specs?.kernelspecs[kernelName];
  if (spec) {
    // Record the chosen kernel in the notebook so its page starts that kernel.
    await api(contentsRoute(model.path), {
      method: 'PUT',
      body: {
        type: 'notebook',
        format: 'json',
        content: {
          nbformat: 4,
          nbformat_minor: 5,
          metadata: {
            kernelspec: { name: spec.name, display_name: spec.spec.display_name, language: spec.spec.language },
            language_info: { name: spec.spec.language },
          },
          cells: [],
        },
      },
    });
  }
  location.href = url(pageConfig().baseUrl, 'notebooks', model.path);
}
