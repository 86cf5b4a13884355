import { ApiError, api, type ContentsModel, contentsRoute, getContents, type KernelSpecs } from '../lib/api.js';
import { pageConfig } from '../lib/config.js';
import { confirmDialog, promptDialog } from '../lib/dialog.js';
import { clear, formatSize, formatTime, h, toast } from '../lib/dom.js';
import { icon } from '../lib/icons.js';
import { basename, dirname, joinPath, url } from '../lib/paths.js';
import { VirtualList } from '../lib/virtual-list.js';
import { uploadFile } from './upload.js';

type SortKey = 'name' | 'last_modified' | 'size';
const TYPE_ORDER = { directory: 0, notebook: 1, file: 2 } as const;
const ROW_HEIGHT = 36;

/** The Files tab: breadcrumbs, toolbar, the (virtualized) listing, upload and file actions. */
export class FilesView {
  readonly element: HTMLElement;
  private dir = '';
  private entries: ContentsModel[] = [];
  private sorted: ContentsModel[] = [];
  private readonly selected = new Set<string>();
  private lastClicked = -1;
  private sort: { key: SortKey; asc: boolean } = { key: 'name', asc: true };
  private running = new Set<string>();
  private readonly crumbs = h('nav', { className: 'breadcrumbs', 'aria-label': 'Breadcrumbs' });
  private readonly actions = h('div', { className: 'selection-actions' });
  private readonly header = h('div', { className: 'list-header', role: 'row' });
  private readonly list: VirtualList<ContentsModel>;
  private readonly status = h('div', { className: 'list-status' });
  private readonly newMenu = h('div', { className: 'menu', role: 'menu', hidden: true });

  constructor(private readonly specs: KernelSpecs | undefined) {
    this.list = new VirtualList(ROW_HEIGHT, (item, i) => this.renderRow(item, i));
    this.list.element.setAttribute('role', 'grid');
    this.list.element.setAttribute('aria-label', 'Files');
    const fileInput = h('input', { type: 'file', multiple: true, hidden: true, 'data-testid': 'upload-input' });
    fileInput.addEventListener('change', () => {
      void this.upload([...(fileInput.files ?? [])]);
      fileInput.value = '';
    });
    const newButton = h('button', { type: 'button', className: 'btn btn-primary', 'aria-haspopup': 'menu' }, 'New ▾');
    newButton.addEventListener('click', (e) => {
      e.stopPropagation();
      this.newMenu.hidden = !this.newMenu.hidden;
    });
    document.addEventListener('click', () => {
      this.newMenu.hidden = true;
    });
    this.buildNewMenu();
    const toolbar = h(
      'div',
      { className: 'toolbar' },
      this.crumbs,
      h('div', { className: 'spacer' }),
      this.actions,
      h('button', { type: 'button', className: 'btn', onclick: () => fileInput.click() }, 'Upload'),
      h('div', { className: 'menu-wrap' }, newButton, this.newMenu),
      h(
        'button',
        {
          type: 'button',
          className: 'btn',
          title: 'Refresh',
          'aria-label': 'Refresh',
          onclick: () => void this.load(),
        },
        icon('refresh'),
      ),
      fileInput,
    );
    this.element = h('section', { className: 'files-view' }, toolbar, this.header, this.list.element, this.status);
    this.setupDrop();
    this.setupKeys();
  }

  get path(): string {
    return this.dir;
  }

  async open(dir: string, push: boolean): Promise<void> {
    this.dir = dir;
    this.selected.clear();
    this.lastClicked = -1;
    if (push) history.pushState({ dir }, '', url(pageConfig().baseUrl, 'tree', dir));
    document.title = dir ? `${basename(dir)} – nbserve` : 'Home – nbserve';
    await this.load();
  }

  async load(): Promise<void> {
    this.renderCrumbs();
    try {
      const [model, sessions] = await Promise.all([
        getContents(this.dir, { content: '1' }),
        api<{ path: string }[]>('api/sessions').catch(() => []),
      ]);
      this.entries = Array.isArray(model.content) ? (model.content as ContentsModel[]) : [];
      this.running = new Set(sessions.map((s) => s.path));
      this.status.textContent = `${this.entries.length} item${this.entries.length === 1 ? '' : 's'}`;
    } catch (error) {
      this.entries = [];
      this.status.textContent = error instanceof Error ? error.message : String(error);
    }
    for (const p of [...this.selected]) if (!this.entries.some((e) => e.path === p)) this.selected.delete(p);
    this.resort();
  }

  private resort(): void {
    const { key, asc } = this.sort;
    const dir = asc ? 1 : -1;
    const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });
    this.sorted = [...this.entries].sort((a, b) => {
      if (key === 'name') {
        const t = TYPE_ORDER[a.type] - TYPE_ORDER[b.type];
        return t !== 0 ? t : dir * collator.compare(a.name, b.name);
      }
      if (key === 'size') return dir * ((a.size ?? -1) - (b.size ?? -1));
      return dir * (Date.parse(a.last_modified) - Date.parse(b.last_modified));
    });
    const parent: ContentsModel[] = this.dir
      ? [
          {
            name: '..',
            path: dirname(this.dir),
            type: 'directory',
            writable: true,
            created: '',
            last_modified: '',
            size: null,
            mimetype: null,
            content: null,
            format: null,
          },
        ]
      : [];
    this.sorted = [...parent, ...this.sorted];
    this.renderHeader();
    this.renderActions();
    this.list.setItems(this.sorted);
  }

  private renderHeader(): void {
    const col = (key: SortKey, label: string, cls: string) => {
      const active = this.sort.key === key;
      const arrow = active ? (this.sort.asc ? ' ▲' : ' ▼') : '';
      return h(
        'button',
        {
          type: 'button',
          className: `col ${cls} sort${active ? ' active' : ''}`,
          'data-sort': key,
          onclick: () => {
            this.sort = { key, asc: active ? !this.sort.asc : key === 'name' };
            this.resort();
          },
        },
        label + arrow,
      );
    };
    const all = h('input', { type: 'checkbox', 'aria-label': 'Select all' });
    const selectable = this.sorted.filter((e) => e.name !== '..');
    all.checked = selectable.length > 0 && selectable.every((e) => this.selected.has(e.path));
    all.addEventListener('change', () => {
      if (all.checked) for (const e of selectable) this.selected.add(e.path);
      else this.selected.clear();
      this.renderActions();
      this.list.refresh();
    });
    this.header.replaceChildren(
      h('span', { className: 'col col-check' }, all),
      col('name', 'Name', 'col-name'),
      col('last_modified', 'Last modified', 'col-date'),
      col('size', 'File size', 'col-size'),
    );
  }

  private renderRow(item: ContentsModel, index: number): HTMLElement {
    const isParent = item.name === '..';
    const selected = this.selected.has(item.path) && !isParent;
    const href = this.hrefFor(item);
    const link = h('a', { className: 'entry-link', href }, item.name);
    link.addEventListener('click', (e) => {
      if (item.type === 'directory' && !e.ctrlKey && !e.metaKey) {
        e.preventDefault();
        void this.open(item.path, true);
      }
    });
    const check = h('input', { type: 'checkbox', 'aria-label': `Select ${item.name}` });
    check.checked = selected;
    check.disabled = isParent;
    check.addEventListener('click', (e) => {
      e.stopPropagation();
      this.toggle(index, (e as MouseEvent).shiftKey, true);
    });
    const row = h(
      'div',
      {
        className: `row${selected ? ' selected' : ''}`,
        role: 'row',
        'data-path': item.path,
        'data-name': item.name,
        'aria-selected': selected ? 'true' : 'false',
      },
      h('span', { className: 'col col-check' }, check),
      h(
        'span',
        { className: 'col col-name' },
        icon(isParent ? 'up' : item.type),
        link,
        this.running.has(item.path) ? h('span', { className: 'badge-running' }, 'Running') : null,
      ),
      h('span', { className: 'col col-date', title: item.last_modified }, formatTime(item.last_modified)),
      h('span', { className: 'col col-size' }, formatSize(item.size)),
    );
    row.addEventListener('click', (e) => {
      if ((e.target as HTMLElement).closest('a,input')) return;
      if (isParent) return;
      this.toggle(index, e.shiftKey, e.ctrlKey || e.metaKey);
    });
    row.addEventListener('dblclick', () => {
      if (item.type === 'directory') void this.open(item.path, true);
      else location.href = href;
    });
    return row;
  }

  private hrefFor(item: ContentsModel): string {
    const base = pageConfig().baseUrl;
    if (item.type === 'directory') return url(base, 'tree', item.path);
    if (item.type === 'notebook') return url(base, 'notebooks', item.path);
    if (
      item.mimetype?.startsWith('text/') ||
      /\.(txt|md|py|js|ts|json|ya?ml|toml|cfg|ini|csv|sh|r|jl)$/i.test(item.name)
    )
      return url(base, 'edit', item.path);
    return url(base, 'files', item.path);
  }

  private toggle(index: number, range: boolean, additive: boolean): void {
    const item = this.sorted[index];
    if (!item) return;
    if (range && this.lastClicked >= 0) {
      const [a, b] = [Math.min(this.lastClicked, index), Math.max(this.lastClicked, index)];
      for (let i = a; i <= b; i++) {
        const e = this.sorted[i];
        if (e && e.name !== '..') this.selected.add(e.path);
      }
    } else if (additive) {
      if (this.selected.has(item.path)) this.selected.delete(item.path);
      else this.selected.add(item.path);
    } else {
      this.selected.clear();
      this.selected.add(item.path);
    }
    this.lastClicked = index;
    this.renderActions();
    this.renderHeader();
    this.list.refresh();
  }

  private selection(): ContentsModel[] {
    return this.sorted.filter((e) => this.selected.has(e.path) && e.name !== '..');
  }

  private renderActions(): void {
    const sel = this.selection();
    const one = sel.length === 1 ? sel[0] : undefined;
    const btn = (label: string, fn: () => Promise<void>, enabled: boolean, danger = false) =>
      h(
        'button',
        {
          type: 'button',
          className: `btn${danger ? ' btn-danger' : ''}`,
          disabled: !enabled,
          'data-action': label.toLowerCase(),
          onclick: () => void fn().catch((e: unknown) => toast(e instanceof Error ? e.message : String(e), 'error')),
        },
        label,
      );
    clear(this.actions);
    if (sel.length === 0) return;
    const anyRunning = sel.some((e) => this.running.has(e.path));
    this.actions.append(
      h('span', { className: 'selection-count' }, `${sel.length} selected`),
      btn('Rename', () => this.rename(one as ContentsModel), one !== undefined),
      btn(
        'Duplicate',
        () => this.duplicate(sel),
        sel.every((e) => e.type !== 'directory'),
      ),
      btn('Move', () => this.move(sel), true),
      btn(
        'Download',
        () => this.download(sel),
        sel.every((e) => e.type !== 'directory'),
      ),
      btn('Shutdown', () => this.shutdown(sel), anyRunning),
      btn('Delete', () => this.remove(sel), true, true),
    );
  }

  private renderCrumbs(): void {
    const base = pageConfig().baseUrl;
    const parts = this.dir ? this.dir.split('/') : [];
    const link = (label: string, path: string) => {
      const a = h('a', { href: url(base, 'tree', path), className: 'crumb' }, label);
      a.addEventListener('click', (e) => {
        e.preventDefault();
        void this.open(path, true);
      });
      return a;
    };
    const home = link('', '');
    home.append(icon('home'), 'Home');
    const items: Node[] = [home];
    parts.forEach((part, i) => {
      items.push(h('span', { className: 'crumb-sep' }, '/'), link(part, parts.slice(0, i + 1).join('/')));
    });
    this.crumbs.replaceChildren(...items);
  }

  private buildNewMenu(): void {
    const item = (label: string, fn: () => Promise<void>, logo?: string) => {
      const el = h(
        'button',
        { type: 'button', className: 'menu-item', role: 'menuitem' },
        logo ? h('img', { src: logo, alt: '', className: 'kernel-logo' }) : null,
        label,
      );
      el.addEventListener('click', () => {
        this.newMenu.hidden = true;
        void fn().catch((e: unknown) => toast(e instanceof Error ? e.message : String(e), 'error'));
      });
      return el;
    };
    const specs = this.specs ? Object.values(this.specs.kernelspecs) : [];
    specs.sort((a, b) => a.spec.display_name.localeCompare(b.spec.display_name));
    this.newMenu.append(h('div', { className: 'menu-title' }, 'Notebook:'));
    for (const spec of specs) {
      const logo = spec.resources['logo-32x32'] ?? spec.resources['logo-64x64'] ?? spec.resources['logo-svg'];
      this.newMenu.append(item(spec.spec.display_name, () => this.newNotebook(spec.name), logo));
    }
    if (specs.length === 0) this.newMenu.append(h('div', { className: 'menu-note' }, 'No kernels found'));
    this.newMenu.append(
      h('hr'),
      item('Text File', () => this.newItem({ type: 'file', ext: '.txt' })),
      item('Folder', () => this.newItem({ type: 'directory' })),
    );
  }

  private async newNotebook(kernelName: string): Promise<void> {
    const model = await api<ContentsModel>(contentsRoute(this.dir), { method: 'POST', body: { type: 'notebook' } });
    const spec = this.specs?.kernelspecs[kernelName];
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

  private async newItem(body: { type: string; ext?: string }): Promise<void> {
    const model = await api<ContentsModel>(contentsRoute(this.dir), { method: 'POST', body });
    if (body.type === 'file') {
      location.href = url(pageConfig().baseUrl, 'edit', model.path);
      return;
    }
    await this.load();
    this.selected.clear();
    this.selected.add(model.path);
    await this.rename(model);
  }

  private async rename(item: ContentsModel): Promise<void> {
    const name = await promptDialog(`Rename ${item.type}`, 'New name', item.name);
    if (name === undefined || name === item.name || name.trim() === '') return;
    if (name.includes('/')) throw new Error('A name cannot contain "/"; use Move instead');
    await api(contentsRoute(item.path), { method: 'PATCH', body: { path: joinPath(dirname(item.path), name) } });
    this.selected.clear();
    await this.load();
  }

  private async duplicate(items: ContentsModel[]): Promise<void> {
    for (const item of items) {
      await api(contentsRoute(this.dir), { method: 'POST', body: { copy_from: item.path } });
    }
    await this.load();
  }

  private async move(items: ContentsModel[]): Promise<void> {
    const target = await promptDialog(
      `Move ${items.length} item${items.length === 1 ? '' : 's'}`,
      'Destination folder (relative to the root)',
      this.dir,
    );
    if (target === undefined) return;
    const dest = target.replace(/^\/+|\/+$/g, '');
    for (const item of items) {
      await api(contentsRoute(item.path), { method: 'PATCH', body: { path: joinPath(dest, item.name) } });
    }
    this.selected.clear();
    await this.load();
  }

  private async download(items: ContentsModel[]): Promise<void> {
    for (const item of items) {
      const a = h('a', { href: `${url(pageConfig().baseUrl, 'files', item.path)}?download=1`, download: item.name });
      document.body.append(a);
      a.click();
      a.remove();
    }
  }

  private async shutdown(items: ContentsModel[]): Promise<void> {
    const sessions = await api<{ id: string; path: string }[]>('api/sessions');
    for (const s of sessions) {
      if (items.some((i) => i.path === s.path)) await api(`api/sessions/${s.id}`, { method: 'DELETE' });
    }
    await this.load();
  }

  private async remove(items: ContentsModel[]): Promise<void> {
    const names = items.map((i) => i.name).join(', ');
    const ok = await confirmDialog(
      'Delete',
      `Are you sure you want to permanently delete ${items.length === 1 ? `"${names}"` : `these ${items.length} items: ${names}`}?`,
      'Delete',
      true,
    );
    if (!ok) return;
    for (const item of items) await api(contentsRoute(item.path), { method: 'DELETE' });
    this.selected.clear();
    await this.load();
  }

  async upload(files: File[]): Promise<void> {
    for (const file of files) {
      const exists = this.entries.some((e) => e.name === file.name);
      if (exists && !(await confirmDialog('Replace file', `"${file.name}" already exists. Replace it?`, 'Replace'))) {
        continue;
      }
      const progress = h('div', { className: 'upload-progress' }, `Uploading ${file.name}…`);
      this.status.replaceChildren(progress);
      try {
        await uploadFile(this.dir, file, (f) => {
          progress.textContent = `Uploading ${file.name}… ${Math.round(f * 100)}%`;
        });
        toast(`Uploaded ${file.name}`);
      } catch (error) {
        const message = error instanceof ApiError || error instanceof Error ? error.message : String(error);
        toast(`Upload of ${file.name} failed: ${message}`, 'error');
      }
    }
    await this.load();
  }

  private setupDrop(): void {
    const zone = this.element;
    zone.addEventListener('dragover', (e) => {
      if (!e.dataTransfer?.types.includes('Files')) return;
      e.preventDefault();
      zone.classList.add('drop-target');
    });
    zone.addEventListener('dragleave', (e) => {
      if (e.target === zone || !zone.contains(e.relatedTarget as Node)) zone.classList.remove('drop-target');
    });
    zone.addEventListener('drop', (e) => {
      e.preventDefault();
      zone.classList.remove('drop-target');
      const files = [...(e.dataTransfer?.files ?? [])];
      if (files.length > 0) void this.upload(files);
    });
  }

  private setupKeys(): void {
    this.list.element.tabIndex = 0;
    this.list.element.addEventListener('keydown', (e) => {
      if (e.key === 'Delete' && this.selected.size > 0) void this.remove(this.selection());
      if (e.key === 'F2' && this.selected.size === 1) void this.rename(this.selection()[0] as ContentsModel);
    });
  }
}
