import {
  byKindThenName,
  entryHref,
  FILE_ROW_TIMING,
  NAME_COLLATION,
  parentEntry,
  ROW_HEIGHT,
} from '../../shared/file-rows.js';
import { firstPageRoute } from '../../shared/first-page.js';
import { formatSize, formatTime } from '../../shared/format.js';
import { basename, url } from '../../shared/paths.js';
import { ApiError, api, type ContentsModel, getContents, type KernelSpecs } from '../lib/api.js';
import { pageConfig } from '../lib/config.js';
import { confirmDialog } from '../lib/dialog.js';
import { clear, h, toast } from '../lib/dom.js';
import { icon } from '../lib/icons.js';
import { VirtualList } from '../lib/virtual-list.js';
import { breadcrumbs } from './breadcrumbs.js';
import {
  deleteEntries,
  downloadEntries,
  duplicateEntries,
  moveEntries,
  renameEntry,
  shutDownSessionsOf,
} from './file-actions.js';
import { renderNewMenu } from './new-menu.js';
import { uploadFile } from './upload.js';

type SortKey = 'name' | 'last_modified' | 'size';
/** Made once (a collator costs tens of milliseconds to create): the first and the whole listing share it. */
let collator: Intl.Collator | undefined;

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
  /** Counts `load()` calls: an answer for a folder left meanwhile is dropped. */
  private loads = 0;
  private readonly crumbs = h('nav', { className: 'breadcrumbs', 'aria-label': 'Breadcrumbs' });
  private readonly actions = h('div', { className: 'selection-actions' });
  private readonly header = h('div', { className: 'list-header', role: 'row' });
  private readonly list: VirtualList<ContentsModel>;
  private readonly status = h('div', { className: 'list-status' });
  private readonly newMenu = h('div', { className: 'menu', role: 'menu', hidden: true });

  constructor(specs: Promise<KernelSpecs | undefined>) {
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
    // the kernels are known a little later than the first rows are
    void specs.then((known) =>
      renderNewMenu(
        this.newMenu,
        known,
        () => this.dir,
        (model) => this.folderCreated(model),
      ),
    );
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

  /** Shows `dir`; `firstPage`, when given, is its first page already requested. */
  async open(dir: string, push: boolean, firstPage?: Promise<ContentsModel>): Promise<void> {
    this.dir = dir;
    this.selected.clear();
    this.lastClicked = -1;
    if (push) history.pushState({ dir }, '', url(pageConfig().baseUrl, 'tree', dir));
    document.title = dir ? `${basename(dir)} – nbserve` : 'Home – nbserve';
    await this.load(firstPage);
  }

  async load(firstPage?: Promise<ContentsModel>): Promise<void> {
    this.crumbs.replaceChildren(...breadcrumbs(this.dir, (path) => void this.open(path, true)));
    const dir = this.dir;
    const generation = ++this.loads;
    try {
      // A first page (nbserve's paged listing, docs/contents-api.md) shows the top rows of a huge
      // folder at once; only a folder bigger than it is then fetched whole, behind those rows.
      // The rows do not wait for the running sessions: their badges follow when those are known.
      const sessions = api<{ path: string }[]>('api/sessions')
        .catch(() => [])
        .then((list) => {
          if (generation !== this.loads) return;
          this.running = new Set(list.map((s) => s.path));
          this.list.refresh();
        });
      const page = await (firstPage ?? api<ContentsModel>(firstPageRoute(dir)));
      if (generation !== this.loads) return;
      const rows = Array.isArray(page.content) ? (page.content as ContentsModel[]) : [];
      const total = page.total ?? rows.length;
      this.show(rows, total);
      if (rows.length >= total) return await sessions;
      // the rest once those rows are on screen (the server's work for it would compete with that
      // frame); a hidden tab, which paints no frames, goes on after 100 ms
      await new Promise<void>((resolve) => {
        requestAnimationFrame(() => setTimeout(resolve, 0));
        setTimeout(resolve, 100);
      });
      if (generation !== this.loads) return;
      const [whole] = await Promise.all([getContents(dir, { content: '1' }), sessions]);
      if (generation !== this.loads) return;
      const all = Array.isArray(whole.content) ? (whole.content as ContentsModel[]) : [];
      this.show(all, all.length);
    } catch (error) {
      if (generation !== this.loads) return;
      this.status.textContent = error instanceof Error ? error.message : String(error);
      this.show([], 0, false);
    }
  }

  private show(entries: ContentsModel[], total: number, status = true): void {
    this.entries = entries;
    if (status) this.status.textContent = `${total} item${total === 1 ? '' : 's'}`;
    // (a first page of a bigger folder is no reason to forget what was selected beyond it)
    if (entries.length >= total) {
      const paths = new Set(entries.map((e) => e.path));
      for (const p of [...this.selected]) if (!paths.has(p)) this.selected.delete(p);
    }
    this.resort(entries.length < total);
  }

  /** `serverOrder`: a first page shown as the server ordered it, sorted when the rest arrives. */
  private resort(serverOrder = false): void {
    const { key, asc } = this.sort;
    const dir = asc ? 1 : -1;
    // Making a collator loads ICU's collation data (tens of ms in a fresh page): the first page of a
    // big folder is on screen before that, in the server's order (directories first, then by name).
    this.sorted = [...this.entries];
    if (!serverOrder) {
      collator ??= new Intl.Collator(undefined, NAME_COLLATION);
      if (key === 'name') this.sorted.sort(byKindThenName(collator, dir));
      else if (key === 'size') this.sorted.sort((a, b) => dir * ((a.size ?? -1) - (b.size ?? -1)));
      else this.sorted.sort((a, b) => dir * (Date.parse(a.last_modified) - Date.parse(b.last_modified)));
    }
    if (this.dir) this.sorted.unshift(parentEntry(this.dir));
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
    const href = entryHref(pageConfig().baseUrl, item);
    const link = h('a', { className: 'entry-link', href, elementtiming: FILE_ROW_TIMING }, item.name);
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
        async () => downloadEntries(sel),
        sel.every((e) => e.type !== 'directory'),
      ),
      btn('Shutdown', () => this.shutdown(sel), anyRunning),
      btn('Delete', () => this.remove(sel), true, true),
    );
  }

  private async rename(item: ContentsModel): Promise<void> {
    if (!(await renameEntry(item))) return;
    this.selected.clear();
    await this.load();
  }

  private async duplicate(items: ContentsModel[]): Promise<void> {
    await duplicateEntries(this.dir, items);
    await this.load();
  }

  private async move(items: ContentsModel[]): Promise<void> {
    if (!(await moveEntries(this.dir, items))) return;
    this.selected.clear();
    await this.load();
  }

  private async shutdown(items: ContentsModel[]): Promise<void> {
    await shutDownSessionsOf(items);
    await this.load();
  }

  private async remove(items: ContentsModel[]): Promise<void> {
    if (!(await deleteEntries(items))) return;
    this.selected.clear();
    await this.load();
  }

  /** A folder made with New > Folder: selected, and up for renaming. */
  private async folderCreated(model: ContentsModel): Promise<void> {
    await this.load();
    this.selected.clear();
    this.selected.add(model.path);
    await this.rename(model);
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
