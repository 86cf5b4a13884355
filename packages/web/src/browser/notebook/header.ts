import { basename, dirname, labUrl, url } from '../../shared/paths.js';
import type { KernelSpecs } from '../lib/api.js';
import { pageConfig } from '../lib/config.js';
import { h } from '../lib/dom.js';
import { icon } from '../lib/icons.js';
import { watchKernelUsage } from '../lib/kernel-usage.js';
import { themeToggle } from '../lib/theme.js';
import type { CommandId, CommandRegistry, MenuName } from './commands.js';
import type { Mode, Notebook } from './document.js';
import type { KernelStatus } from './kernel.js';
import { renderMenuBar } from './menus.js';
import type { CellType } from './model.js';

/** The toolbar's buttons: command, icon, and text beside the icon if any. */
export const TOOLBAR: readonly (readonly [CommandId, string, string?])[] = [
  ['save', 'save'],
  ['insert-below', 'plus'],
  ['cut-cell', 'cut'],
  ['copy-cell', 'copy'],
  ['paste-below', 'paste'],
  ['move-up', 'arrow-up'],
  ['move-down', 'arrow-down'],
  ['run-and-select-next', 'run', 'Run'],
  ['interrupt', 'stop'],
  ['restart', 'restart'],
  ['restart-run-all', 'run-all'],
];

/** The notebook page around the cells: header (name, save state, trust, mode, kernel), menus, toolbar. */
export class NotebookChrome {
  private readonly nameEl = h('button', { type: 'button', className: 'notebook-name', title: 'Rename notebook' });
  private readonly saveState = h('span', { className: 'save-state' });
  private readonly kernelName = h('span', { className: 'kernel-name' });
  private readonly kernelStatus = h('span', {
    className: 'kernel-status',
    'data-status': 'connecting',
    role: 'status',
  });
  private readonly kernelUsageEl = h('span', { className: 'kernel-usage', 'aria-live': 'off' });
  private readonly trustEl = h('button', { type: 'button', className: 'trust-state' });
  private readonly modeEl = h('span', { className: 'mode-indicator' });
  private readonly kernelMenu = h('div', { className: 'menu submenu', role: 'menu', hidden: true });

  constructor(
    private readonly notebook: Notebook,
    private readonly commands: CommandRegistry,
  ) {}

  /** Builds the whole page around the notebook's cells; `extra` adds items to the end of menus. */
  render(path: string, extra: Partial<Record<MenuName, Node[]>> = {}): void {
    this.nameEl.addEventListener('click', () => this.commands.run('rename'));
    this.trustEl.addEventListener('click', () => this.commands.run('trust'));
    const changeKernel = h(
      'button',
      { type: 'button', className: 'menu-item', 'data-command': 'change-kernel' },
      'Change kernel ▸',
    );
    changeKernel.addEventListener('click', (e) => {
      e.stopPropagation();
      this.kernelMenu.hidden = !this.kernelMenu.hidden;
    });
    // One sticky block, so header, menus and toolbar stay on screen together whatever their heights.
    const header = h(
      'div',
      { className: 'notebook-header' },
      h(
        'header',
        { className: 'topbar notebook-topbar' },
        h('a', { className: 'brand', href: url(pageConfig().baseUrl, 'tree', dirname(path)) }, 'nbserve'),
        this.nameEl,
        this.saveState,
        h('div', { className: 'spacer' }),
        this.trustEl,
        this.modeEl,
        this.kernelName,
        this.kernelStatus,
        // JupyterLab is built here: the same notebook in it
        pageConfig().labAvailable === true
          ? h(
              'a',
              { className: 'btn btn-small lab-link', href: labUrl(pageConfig().baseUrl, path) },
              'Open in JupyterLab',
            )
          : null,
        this.kernelUsageEl,
        themeToggle(),
      ),
      renderMenuBar(this.commands, { ...extra, Kernel: [changeKernel, this.kernelMenu] }),
      this.renderToolbar(),
    );
    document.body.replaceChildren(
      header,
      h('main', { className: 'notebook-main', id: 'notebook' }, this.notebook.element),
      this.notebook.pager.element,
    );
    this.notebook.element.tabIndex = -1;
  }

  private renderToolbar(): HTMLElement {
    const tool = ([id, iconName, text]: (typeof TOOLBAR)[number]) => {
      const { label } = this.commands.get(id);
      return h(
        'button',
        {
          type: 'button',
          className: 'tool',
          title: label,
          'aria-label': label,
          'data-command': id,
          onclick: () => this.commands.run(id),
        },
        icon(iconName),
        text ?? null,
      );
    };
    const typeSelect = h(
      'select',
      { className: 'cell-type-select', 'aria-label': 'Cell type' },
      h('option', { value: 'code' }, 'Code'),
      h('option', { value: 'markdown' }, 'Markdown'),
      h('option', { value: 'raw' }, 'Raw'),
    );
    typeSelect.addEventListener('change', () => {
      this.commands.run(`to-${typeSelect.value as CellType}`);
      typeSelect.blur();
    });
    const follow = () => {
      typeSelect.value = this.notebook.selectedCell?.type ?? 'code';
    };
    document.addEventListener('focusin', follow);
    this.notebook.onSelect = follow; // also on load, and on J/K in command mode
    return h('div', { className: 'toolbar notebook-toolbar' }, ...TOOLBAR.map(tool), typeSelect);
  }

  /** The Kernel menu's "Change kernel" list. */
  showKernelSpecs(specs: KernelSpecs | undefined, pick: (name: string) => void): void {
    this.kernelMenu.replaceChildren(
      ...Object.values(specs?.kernelspecs ?? {}).map((s) =>
        h(
          'button',
          { type: 'button', className: 'menu-item', 'data-kernel': s.name, onclick: () => pick(s.name) },
          s.spec.display_name,
        ),
      ),
    );
  }

  showKernelStatus(status: KernelStatus, kernelName: string): void {
    this.kernelStatus.dataset.status = status;
    this.kernelStatus.textContent = status === 'dead' ? 'Dead kernel' : status[0]?.toUpperCase() + status.slice(1);
    this.kernelStatus.title = `Kernel ${status}`;
    this.kernelName.textContent = kernelName;
  }

  /** Keeps the kernel's memory and CPU beside its status, asked for every few seconds. */
  watchKernelUsage(kernelId: () => string | undefined): void {
    watchKernelUsage(this.kernelUsageEl, kernelId);
  }

  showName(path: string): void {
    this.nameEl.textContent = basename(path).replace(/\.ipynb$/, '');
    document.title = `${basename(path)} – nbserve`;
  }

  /** "(unsaved changes)" while dirty; otherwise `note`, or when it was last saved. */
  showSaveState(dirty: boolean, lastModified: string | undefined, note?: string): void {
    if (dirty) {
      this.saveState.textContent = '(unsaved changes)';
      this.saveState.dataset.state = 'dirty';
      return;
    }
    const time = lastModified ? new Date(lastModified).toLocaleTimeString() : '';
    this.saveState.textContent = note ?? (time ? `Last saved ${time}` : '');
    this.saveState.dataset.state = 'saved';
  }

  showTrusted(trusted: boolean): void {
    this.trustEl.textContent = trusted ? 'Trusted' : 'Not trusted';
    this.trustEl.dataset.trusted = String(trusted);
  }

  showMode(mode: Mode): void {
    this.modeEl.textContent = mode === 'edit' ? '✎' : '';
    this.modeEl.title = mode === 'edit' ? 'Edit mode' : 'Command mode';
  }
}
