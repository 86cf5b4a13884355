import { ApiError, api, type ContentsModel, contentsRoute, getContents, type KernelSpecs } from '../lib/api.js';
import { pageConfig } from '../lib/config.js';
import { confirmDialog, promptDialog, showDialog } from '../lib/dialog.js';
import { h, toast } from '../lib/dom.js';
import { icon } from '../lib/icons.js';
import { basename, dirname, joinPath, url } from '../lib/paths.js';
import { installCommandKeys, SHORTCUT_HELP } from './command-keys.js';
import { CommandRegistry } from './commands.js';
import { type Adoption, KernelConnection, type KernelStatus } from './kernel.js';
import { normaliseNotebook, notebookTrusted } from './model.js';
import { Notebook } from './notebook.js';
import { lockName, type ResumeStorage, ResumeTracker, resumeKey, sweep, takeEntry } from './resume.js';
import { SaveConflict, Saver } from './saving.js';

/** Every 2 minutes, as the classic Notebook; `autosave_interval` (ms) in the `notebook` config section overrides it. */
const AUTOSAVE_MS = 120_000;

/** The notebook page: header, menus, toolbar, kernel, saving, all around one Notebook. */
export class NotebookApp {
  private path: string;
  private readonly kernel = new KernelConnection();
  private readonly storage = localStorageOrUndefined();
  private readonly resume = new ResumeTracker(this.storage);
  private resumeKey: string | undefined;
  private readonly notebook = new Notebook(this.kernel, this.resume);
  private readonly commands = new CommandRegistry();
  private readonly saver: Saver;
  private specs: KernelSpecs | undefined;
  private readonly nameEl = h('button', { type: 'button', className: 'notebook-name', title: 'Rename notebook' });
  private readonly saveState = h('span', { className: 'save-state' });
  private readonly kernelName = h('span', { className: 'kernel-name' });
  private readonly kernelStatus = h('span', {
    className: 'kernel-status',
    'data-status': 'connecting',
    role: 'status',
  });
  private readonly trustEl = h('button', { type: 'button', className: 'trust-state' });
  private readonly modeEl = h('span', { className: 'mode-indicator' });
  private readonly kernelMenu = h('div', { className: 'menu submenu', role: 'menu', hidden: true });

  constructor() {
    this.path = pageConfig().path;
    this.saver = new Saver(this.path);
    this.defineCommands();
  }

  /** `content`: the notebook's contents model, already requested by the page's entry script. */
  async start(content: Promise<ContentsModel>): Promise<void> {
    this.renderChrome();
    const [model, specs] = await Promise.all([content, api<KernelSpecs>('api/kernelspecs').catch(() => undefined)]);
    this.specs = specs;
    this.saver.remember(model);
    const nb = normaliseNotebook(model.content);
    // The server marks every code cell `metadata.trusted` from the notebook's signature.
    this.setTrusted(notebookTrusted(nb));
    this.renderKernelMenu();
    await this.notebook.load(nb, this.notebook.trusted);
    this.updateName();
    this.updateSaveState(model.last_modified);

    this.notebook.onDirty = () => this.updateSaveState();
    this.notebook.onModeChange = (mode) => {
      this.modeEl.textContent = mode === 'edit' ? '✎' : '';
      this.modeEl.title = mode === 'edit' ? 'Edit mode' : 'Command mode';
    };
    this.kernel.onStatus = (s) => this.showKernelStatus(s);
    this.kernel.onKernelInfo = () => this.showKernelStatus(this.kernel.status);
    window.addEventListener('nbserve-error', (e) => toast((e as CustomEvent<string>).detail, 'error'));
    installCommandKeys(this.notebook, this.commands);
    window.addEventListener('beforeunload', (e) => {
      if (!this.notebook.dirty) return;
      e.preventDefault();
      e.returnValue = '';
    });
    // Not on beforeunload: the user may still stay, and a live page must never give its session away.
    window.addEventListener('pagehide', () => this.leave());
    window.addEventListener('pageshow', (e) => {
      if (e.persisted) this.reclaimSession();
    });
    const config = await api<{ autosave_interval?: unknown }>('api/config/notebook').catch(
      (): { autosave_interval?: unknown } => ({}),
    );
    const interval = config.autosave_interval;
    const autosaveMs = typeof interval === 'number' && interval >= 1000 ? interval : AUTOSAVE_MS;
    setInterval(() => {
      if (this.notebook.dirty) void this.save(false, true).catch(() => undefined);
    }, autosaveMs);
    document.body.dataset.ready = 'true';

    const kernelName = (nb.metadata.kernelspec as { name?: string } | undefined)?.name;
    try {
      await this.kernel.start(
        this.path,
        kernelName && specs?.kernelspecs[kernelName] ? kernelName : specs?.default,
        (kernelId) => this.adopt(kernelId),
      );
      this.showKernelStatus(this.kernel.status);
    } catch (error) {
      this.showKernelStatus('no kernel');
      toast(`Could not start a kernel: ${error instanceof Error ? error.message : String(error)}`, 'error');
    }
  }

  // ---- resuming what a closed page left running (resume.ts) ----

  /**
   * Takes the session and running requests a closed page of this notebook left for `kernelId`,
   * if any, and starts recording this page's own. Called once the kernel is known.
   */
  private async adopt(kernelId: string): Promise<Adoption | undefined> {
    const storage = this.storage;
    const key = resumeKey(new URL(pageConfig().baseUrl, location.origin).href, kernelId);
    this.resumeKey = key;
    let entry: ReturnType<typeof takeEntry>;
    if (storage) {
      sweep(storage, Date.now());
      // One take at a time across this browser's tabs, so two pages opened together cannot
      // both take the same session.
      entry = await withLock('nbserve-resume-take', async () => {
        const owned = await ownedLocks();
        return takeEntry(storage, key, Date.now(), (s) => owned === undefined || owned.has(lockName(s)));
      });
    }
    const session = entry?.session ?? this.kernel.clientSession;
    holdLock(lockName(session));
    this.resume.bind(key, session);
    if (!entry || entry.requests.length === 0) return undefined;
    await this.notebook.loaded;
    // The closing page's last save landed if the file is no longer the one it was sent over
    // (or someone else's newer file won; either way the file's outputs are the ones to keep).
    const closeSaved = entry.closeSaveOver !== undefined && entry.closeSaveOver !== this.saver.hash;
    const requests: Adoption['requests'] = new Map();
    for (const r of entry.requests) {
      const handlers = this.notebook.adopt(closeSaved ? { ...r, saved: true } : r);
      if (handlers) requests.set(r.msgId, handlers);
    }
    if (requests.size > 0) {
      const unsaved = !closeSaved && entry.requests.some((r) => !r.saved);
      toast(
        `Reconnected to ${requests.size} running cell${requests.size === 1 ? '' : 's'} of the closed page` +
          (unsaved ? '; output from before it closed that was not saved is not shown' : ''),
      );
    }
    return { session, requests };
  }

  /**
   * The page is being closed or hidden for good. With cells still running, a dirty notebook gets
   * a last autosave (its outputs so far, safe: see Saver.writeOnUnload), and the session is left
   * for the next page of this notebook to take over.
   */
  private leave(): void {
    let closeSaveOver: string | undefined;
    if (this.resume.size > 0 && this.notebook.dirty && this.notebook.fullyBuilt) {
      const hash = this.saver.hash ?? undefined;
      if (this.saver.writeOnUnload(this.notebook.toJSON())) closeSaveOver = hash;
    }
    this.resume.release(closeSaveOver);
  }

  /** Back from the back-forward cache: keep the session unless another page took it meanwhile. */
  private reclaimSession(): void {
    if (this.resume.reclaim() || !this.resumeKey) return;
    this.kernel.renewSession();
    this.notebook.clearRunning();
    holdLock(lockName(this.kernel.clientSession));
    this.resume.bind(this.resumeKey, this.kernel.clientSession);
  }

  // ---- chrome ----

  private renderChrome(): void {
    const { baseUrl } = pageConfig();
    this.nameEl.addEventListener('click', () => this.commands.run('rename'));
    this.trustEl.addEventListener('click', () => this.commands.run('trust'));
    const menu = (label: string, items: (string | '-')[]) => {
      const list = h('div', { className: 'menu', role: 'menu', hidden: true });
      for (const id of items) {
        if (id === '-') {
          list.append(h('hr'));
          continue;
        }
        const c = this.commands.get(id);
        list.append(
          h(
            'button',
            {
              type: 'button',
              className: 'menu-item',
              role: 'menuitem',
              'data-command': id,
              onclick: () => {
                list.hidden = true;
                this.commands.run(id);
              },
            },
            h('span', {}, c.label),
            c.keys ? h('kbd', {}, c.keys) : null,
          ),
        );
      }
      const button = h('button', { type: 'button', className: 'menu-button', 'data-menu': label.toLowerCase() }, label);
      button.addEventListener('click', (e) => {
        e.stopPropagation();
        for (const m of document.querySelectorAll<HTMLElement>('.menubar .menu')) if (m !== list) m.hidden = true;
        list.hidden = !list.hidden;
      });
      return h('div', { className: 'menu-wrap' }, button, list);
    };
    document.addEventListener('click', () => {
      for (const m of document.querySelectorAll<HTMLElement>('.menubar .menu')) m.hidden = true;
    });
    const kernelWrap = menu('Kernel', [
      'interrupt',
      'restart',
      'restart-clear',
      'restart-run-all',
      '-',
      'shutdown-kernel',
    ]);
    const changeKernel = h(
      'button',
      { type: 'button', className: 'menu-item', 'data-command': 'change-kernel' },
      'Change kernel ▸',
    );
    changeKernel.addEventListener('click', (e) => {
      e.stopPropagation();
      this.kernelMenu.hidden = !this.kernelMenu.hidden;
    });
    kernelWrap.querySelector('.menu')?.append(h('hr'), changeKernel, this.kernelMenu);
    const tool = (id: string, iconName: string, text?: string) =>
      h(
        'button',
        {
          type: 'button',
          className: 'tool',
          title: this.commands.get(id).label,
          'aria-label': this.commands.get(id).label,
          'data-command': id,
          onclick: () => this.commands.run(id),
        },
        icon(iconName),
        text ?? null,
      );
    const typeSelect = h(
      'select',
      { className: 'cell-type-select', 'aria-label': 'Cell type' },
      h('option', { value: 'code' }, 'Code'),
      h('option', { value: 'markdown' }, 'Markdown'),
      h('option', { value: 'raw' }, 'Raw'),
    );
    typeSelect.addEventListener('change', () => {
      this.commands.run(`to-${typeSelect.value}`);
      typeSelect.blur();
    });
    document.addEventListener('focusin', () => {
      typeSelect.value = this.notebook.selectedCell?.type ?? 'code';
    });
    document.body.replaceChildren(
      h(
        'header',
        { className: 'topbar notebook-topbar' },
        h('a', { className: 'brand', href: url(baseUrl, 'tree', dirname(this.path)) }, 'nbserve'),
        this.nameEl,
        this.saveState,
        h('div', { className: 'spacer' }),
        this.trustEl,
        this.modeEl,
        this.kernelName,
        this.kernelStatus,
      ),
      h(
        'nav',
        { className: 'menubar' },
        menu('File', [
          'new-notebook',
          'open',
          '-',
          'save',
          'revert',
          'rename',
          '-',
          'download-ipynb',
          'download-script',
          'download-html',
          'print',
          '-',
          'trust',
          'close-halt',
        ]),
        menu('Edit', [
          'cut-cell',
          'copy-cell',
          'paste-below',
          'paste-above',
          'delete-cell',
          'undo-delete',
          '-',
          'move-up',
          'move-down',
        ]),
        menu('Cell', [
          'run-cell',
          'run-and-select-next',
          'run-and-insert-below',
          'run-all',
          'run-above',
          'run-below',
          '-',
          'to-code',
          'to-markdown',
          'to-raw',
          '-',
          'clear-all',
        ]),
        kernelWrap,
        menu('Help', ['show-shortcuts']),
      ),
      h(
        'div',
        { className: 'toolbar notebook-toolbar' },
        tool('save', 'save'),
        tool('insert-below', 'plus'),
        tool('cut-cell', 'cut'),
        tool('copy-cell', 'copy'),
        tool('paste-below', 'paste'),
        tool('move-up', 'arrow-up'),
        tool('move-down', 'arrow-down'),
        tool('run-and-select-next', 'run', 'Run'),
        tool('interrupt', 'stop'),
        tool('restart', 'restart'),
        tool('restart-run-all', 'run-all'),
        typeSelect,
      ),
      h('main', { className: 'notebook-main', id: 'notebook' }, this.notebook.element),
      this.notebook.pager,
    );
    this.notebook.element.tabIndex = -1;
    this.showKernelStatus('connecting');
  }

  private renderKernelMenu(): void {
    const specs = this.specs ? Object.values(this.specs.kernelspecs) : [];
    this.kernelMenu.replaceChildren(
      ...specs.map((s) =>
        h(
          'button',
          {
            type: 'button',
            className: 'menu-item',
            'data-kernel': s.name,
            onclick: () => void this.changeKernel(s.name).catch((e: unknown) => toast(String(e), 'error')),
          },
          s.spec.display_name,
        ),
      ),
    );
  }

  private showKernelStatus(status: KernelStatus): void {
    this.kernelStatus.dataset.status = status;
    this.kernelStatus.textContent = status === 'idle' ? 'Idle' : status[0]?.toUpperCase() + status.slice(1);
    this.kernelStatus.title = `Kernel ${status}`;
    const name = this.kernel.session?.kernel.name;
    this.kernelName.textContent = (name && this.specs?.kernelspecs[name]?.spec.display_name) || name || '';
    if (status === 'restarting' || status === 'dead') this.notebook.clearRunning();
  }

  private updateName(): void {
    this.nameEl.textContent = basename(this.path).replace(/\.ipynb$/, '');
    document.title = `${basename(this.path)} – nbserve`;
  }

  private updateSaveState(lastModified?: string, note?: string): void {
    if (this.notebook.dirty) {
      this.saveState.textContent = '(unsaved changes)';
      this.saveState.dataset.state = 'dirty';
      return;
    }
    const when = lastModified ?? this.saver.lastModified;
    const time = when ? new Date(when).toLocaleTimeString() : '';
    this.saveState.textContent = note ?? (time ? `Last saved ${time}` : '');
    this.saveState.dataset.state = 'saved';
  }

  private setTrusted(trusted: boolean): void {
    this.notebook.trusted = trusted;
    this.trustEl.textContent = trusted ? 'Trusted' : 'Not trusted';
    this.trustEl.dataset.trusted = String(trusted);
  }

  // ---- actions ----

  async save(checkpoint: boolean, auto = false): Promise<void> {
    await this.notebook.loaded;
    // Requests in flight when the content is taken: the file will hold their outputs so far.
    const inFlight = this.resume.inFlight();
    let model: ContentsModel;
    try {
      model = await this.saver.write(this.notebook.toJSON());
    } catch (error) {
      if (!(error instanceof SaveConflict)) throw error;
      if (auto) {
        this.updateSaveState(undefined, 'Autosave paused: the file changed on disk');
        return;
      }
      const choice = await this.saver.askConflict();
      if (choice === 'cancel') return;
      if (choice === 'reload') {
        await this.reload();
        return;
      }
      model = await this.saver.write(this.notebook.toJSON(), true);
    }
    this.resume.saved(inFlight);
    if (checkpoint) await this.saver.createCheckpoint().catch(() => undefined);
    // The server signed it if every cell was trusted (loaded trusted, or its outputs made here).
    if (this.notebook.fullyTrusted()) this.setTrusted(true);
    this.notebook.setDirty(false);
    this.updateSaveState(model.last_modified, auto ? `Autosaved ${new Date().toLocaleTimeString()}` : undefined);
    if (!auto) toast(checkpoint ? 'Saved and checkpointed' : 'Saved');
  }

  private async reload(): Promise<void> {
    const model = await getContents(this.path, { type: 'notebook', hash: '1' });
    this.saver.remember(model);
    const nb = normaliseNotebook(model.content);
    this.setTrusted(notebookTrusted(nb));
    await this.notebook.load(nb, this.notebook.trusted);
    this.updateSaveState(model.last_modified);
  }

  private async rename(): Promise<void> {
    const current = basename(this.path);
    const name = await promptDialog('Rename notebook', 'Notebook name', current);
    if (name === undefined || name.trim() === '' || name === current) return;
    if (name.includes('/')) throw new Error('A notebook name cannot contain "/"');
    const fileName = name.endsWith('.ipynb') ? name : `${name}.ipynb`;
    const target = joinPath(dirname(this.path), fileName);
    try {
      await api(contentsRoute(this.path), { method: 'PATCH', body: { path: target } });
    } catch (error) {
      if (error instanceof ApiError && error.status === 409) throw new Error(`A file named ${fileName} already exists`);
      throw error;
    }
    this.path = target;
    this.saver.path = target;
    await this.kernel.rename(target).catch(() => undefined);
    history.replaceState(null, '', url(pageConfig().baseUrl, 'notebooks', target));
    this.updateName();
  }

  private async revert(): Promise<void> {
    const checkpoints = await this.saver.listCheckpoints();
    const latest = checkpoints[checkpoints.length - 1];
    if (!latest) {
      toast('There is no checkpoint to revert to');
      return;
    }
    const ok = await confirmDialog(
      'Revert notebook',
      `Revert to the checkpoint of ${new Date(latest.last_modified).toLocaleString()}? Changes since then are lost.`,
      'Revert',
      true,
    );
    if (!ok) return;
    await this.saver.restoreCheckpoint(latest.id);
    await this.reload();
  }

  private async changeKernel(name: string): Promise<void> {
    await this.kernel.changeKernel(name);
    const kernelId = this.kernel.kernelId;
    if (kernelId) {
      this.resumeKey = resumeKey(new URL(pageConfig().baseUrl, location.origin).href, kernelId);
      this.resume.clear();
      this.resume.bind(this.resumeKey, this.kernel.clientSession);
    }
    const spec = this.specs?.kernelspecs[name];
    if (spec) {
      this.notebook.metadata.kernelspec = { name, display_name: spec.spec.display_name, language: spec.spec.language };
      this.notebook.metadata.language_info = { name: spec.spec.language };
    }
    for (const c of this.notebook.cells) c.resetEditor();
    this.notebook.setDirty(true);
    this.showKernelStatus(this.kernel.status);
  }

  private async restart(runAll: boolean, clear: boolean): Promise<void> {
    const ok = await confirmDialog('Restart kernel', 'Restart the kernel? All variables are lost.', 'Restart', true);
    if (!ok) return;
    await this.kernel.restart();
    this.notebook.clearRunning();
    if (clear) this.notebook.clearAllOutputs();
    if (runAll) await this.notebook.runAll();
  }

  private async trust(): Promise<void> {
    if (this.notebook.trusted) {
      toast('This notebook is already trusted');
      return;
    }
    const ok = await confirmDialog(
      'Trust this notebook?',
      'A trusted notebook may run the JavaScript in its outputs when it is opened. Only trust notebooks you wrote or whose author you trust.',
      'Trust',
    );
    if (!ok) return;
    if (this.notebook.dirty) await this.save(false);
    await api(`${contentsRoute(this.path)}/trust`, { method: 'POST' });
    this.setTrusted(true);
    await this.reload();
    toast('Notebook trusted');
  }

  private download(format: 'ipynb' | 'script' | 'html'): void {
    const { baseUrl } = pageConfig();
    const href =
      format === 'ipynb'
        ? `${url(baseUrl, 'files', this.path)}?download=1`
        : `${url(baseUrl, `nbconvert/${format}`, this.path)}?download=true`;
    const a = h('a', { href, download: '' });
    document.body.append(a);
    a.click();
    a.remove();
  }

  private showShortcuts(): void {
    const table = h('table', { className: 'shortcuts' });
    for (const [keys, what] of SHORTCUT_HELP)
      table.append(h('tr', {}, h('td', {}, h('kbd', {}, keys)), h('td', {}, what)));
    void showDialog({
      title: 'Keyboard shortcuts',
      body: table,
      cancel: undefined,
      buttons: [{ label: 'Close', value: undefined, primary: true }],
    });
  }

  private defineCommands(): void {
    const nb = this.notebook;
    const { baseUrl } = pageConfig();
    this.commands.add(
      { id: 'edit-cell', label: 'Edit cell', keys: 'Enter', run: () => nb.enterEdit() },
      { id: 'run-cell', label: 'Run cell', keys: 'Ctrl-Enter', run: () => nb.runSelected('stay') },
      {
        id: 'run-and-select-next',
        label: 'Run cell and select below',
        keys: 'Shift-Enter',
        run: () => nb.runSelected('next'),
      },
      {
        id: 'run-and-insert-below',
        label: 'Run cell and insert below',
        keys: 'Alt-Enter',
        run: () => nb.runSelected('insert'),
      },
      { id: 'run-all', label: 'Run all', run: () => nb.runAll() },
      { id: 'run-above', label: 'Run all above', run: () => nb.runAbove() },
      { id: 'run-below', label: 'Run selected and below', run: () => nb.runBelow() },
      { id: 'insert-above', label: 'Insert cell above', keys: 'A', run: () => nb.insertAbove() },
      { id: 'insert-below', label: 'Insert cell below', keys: 'B', run: () => nb.insertBelow() },
      { id: 'cut-cell', label: 'Cut cell', keys: 'X', run: () => nb.cutSelected() },
      { id: 'copy-cell', label: 'Copy cell', keys: 'C', run: () => nb.copySelected() },
      { id: 'paste-below', label: 'Paste cell below', keys: 'V', run: () => nb.paste(false) },
      { id: 'paste-above', label: 'Paste cell above', keys: 'Shift-V', run: () => nb.paste(true) },
      { id: 'delete-cell', label: 'Delete cell', keys: 'D D', run: () => nb.deleteSelected() },
      { id: 'undo-delete', label: 'Undo cell deletion', keys: 'Z', run: () => nb.undoDelete() },
      { id: 'move-up', label: 'Move cell up', run: () => nb.moveSelected(-1) },
      { id: 'move-down', label: 'Move cell down', run: () => nb.moveSelected(1) },
      { id: 'to-code', label: 'Cell type: code', keys: 'Y', run: () => nb.changeType('code') },
      { id: 'to-markdown', label: 'Cell type: markdown', keys: 'M', run: () => nb.changeType('markdown') },
      { id: 'to-raw', label: 'Cell type: raw', keys: 'R', run: () => nb.changeType('raw') },
      { id: 'select-previous', label: 'Select previous cell', keys: 'K', run: () => nb.select(nb.selected - 1) },
      { id: 'select-next', label: 'Select next cell', keys: 'J', run: () => nb.select(nb.selected + 1) },
      { id: 'clear-all', label: 'Clear all outputs', run: () => nb.clearAllOutputs() },
      { id: 'interrupt', label: 'Interrupt', keys: 'I I', run: () => this.kernel.interrupt() },
      { id: 'restart', label: 'Restart', keys: '0 0', run: () => this.restart(false, false) },
      { id: 'restart-clear', label: 'Restart & clear output', run: () => this.restart(false, true) },
      { id: 'restart-run-all', label: 'Restart & run all', run: () => this.restart(true, true) },
      {
        id: 'shutdown-kernel',
        label: 'Shut down kernel',
        run: async () => {
          if (this.kernel.session) await api(`api/sessions/${this.kernel.session.id}`, { method: 'DELETE' });
          this.kernel.close();
          this.notebook.clearRunning(); // nothing more comes, and nothing is left for a next page
          this.showKernelStatus('no kernel');
        },
      },
      { id: 'save', label: 'Save and checkpoint', keys: 'Ctrl-S', run: () => this.save(true) },
      { id: 'revert', label: 'Revert to checkpoint', run: () => this.revert() },
      { id: 'rename', label: 'Rename…', run: () => this.rename() },
      { id: 'download-ipynb', label: 'Download as notebook (.ipynb)', run: () => this.download('ipynb') },
      { id: 'download-script', label: 'Download as script', run: () => this.download('script') },
      { id: 'download-html', label: 'Download as HTML', run: () => this.download('html') },
      {
        id: 'print',
        label: 'Print preview',
        run: () => void window.open(url(baseUrl, 'print', this.path), '_blank', 'noopener'),
      },
      { id: 'trust', label: 'Trust notebook', run: () => this.trust() },
      { id: 'new-notebook', label: 'New notebook', run: () => void window.open(`${baseUrl}new`, '_blank', 'noopener') },
      {
        id: 'open',
        label: 'Open…',
        run: () => void window.open(url(baseUrl, 'tree', dirname(this.path)), '_blank', 'noopener'),
      },
      {
        id: 'close-halt',
        label: 'Close and halt',
        run: async () => {
          if (this.notebook.dirty && !(await confirmDialog('Unsaved changes', 'Close without saving?', 'Close', true)))
            return;
          if (this.kernel.session) await api(`api/sessions/${this.kernel.session.id}`, { method: 'DELETE' });
          this.notebook.clearRunning();
          this.notebook.setDirty(false);
          location.href = url(baseUrl, 'tree', dirname(this.path));
        },
      },
      { id: 'show-shortcuts', label: 'Keyboard shortcuts', keys: 'H', run: () => this.showShortcuts() },
    );
  }
}

function localStorageOrUndefined(): ResumeStorage | undefined {
  try {
    return window.localStorage;
  } catch {
    return undefined; // storage disabled
  }
}

/** Names of the Web Locks held in this origin, or undefined where the browser has no Web Locks. */
async function ownedLocks(): Promise<Set<string> | undefined> {
  if (!navigator.locks) return undefined;
  const state = await navigator.locks.query();
  return new Set((state.held ?? []).map((l) => l.name ?? ''));
}

/** Holds a Web Lock until the page goes away (the browser releases it then, even after a crash). */
function holdLock(name: string): void {
  void navigator.locks?.request(name, () => new Promise<void>(() => {}));
}

async function withLock<T>(name: string, run: () => Promise<T>): Promise<T> {
  if (!navigator.locks) return run();
  return navigator.locks.request(name, run);
}
