import { basename, dirname, joinPath, url } from '../../shared/paths.js';
import { ApiError, api, type ContentsModel, contentsRoute, getContents, type KernelSpecs } from '../lib/api.js';
import { pageConfig } from '../lib/config.js';
import { confirmDialog, promptDialog } from '../lib/dialog.js';
import { h, toast } from '../lib/dom.js';
import type { DiffCell } from './checkpoint-diff.js';
import { LiveNotebook } from './collab/live.js';
import { type CommandActions, CommandRegistry } from './commands.js';
import { Notebook } from './document.js';
import { downloadSubmenu } from './download-menu.js';
import { NotebookChrome } from './header.js';
import { type Adoption, KernelConnection, type KernelStatus } from './kernel.js';
import { KernelNotice } from './kernel-notice.js';
import { normaliseNotebook, notebookTrusted } from './model.js';
import { installCommandKeys } from './page-keys.js';
import { pageToolActions } from './page-tools.js';
import { lockName, type ResumeStorage, ResumeTracker, resumeKey, sweep, takeEntry } from './resume.js';
import { chooseCheckpoint } from './revert-dialog.js';
import { SaveConflict, Saver } from './saving.js';
import { showShortcuts } from './shortcut-help.js';

/** Every 2 minutes, as the classic Notebook; `autosave_interval` (ms) in the `notebook` config section overrides it. */
const AUTOSAVE_MS = 120_000;

/** The notebook page: kernel, saving, resuming and the commands' actions, all around one Notebook. */
export class NotebookApp {
  private path: string;
  private readonly kernel = new KernelConnection();
  private readonly storage = localStorageOrUndefined();
  private readonly resume = new ResumeTracker(this.storage);
  private resumeKey: string | undefined;
  private readonly notebook = new Notebook(this.kernel, this.resume, (id) => this.commands.run(id));
  private readonly commands = new CommandRegistry(this.commandActions());
  private readonly chrome = new NotebookChrome(this.notebook, this.commands);
  private readonly saver: Saver;
  private readonly notice = new KernelNotice(this.kernel, () => this.startNewKernel());
  private specs: KernelSpecs | undefined;
  /** The shared document, when the server offers collaboration (collab/live.ts). */
  private live: LiveNotebook | undefined;

  constructor() {
    this.path = pageConfig().path;
    this.saver = new Saver(this.path);
  }

  /** `content`: the notebook's contents model, already requested by the page's entry script. */
  async start(content: Promise<ContentsModel>): Promise<void> {
    const downloadAs = (format: string) => void this.download(format).catch((e: unknown) => toast(String(e), 'error'));
    this.chrome.render(this.path, { File: downloadSubmenu(downloadAs) });
    document.querySelector('.notebook-header')?.append(this.notice.element);
    this.showKernelStatus('connecting');
    const [model, specs] = await Promise.all([content, api<KernelSpecs>('api/kernelspecs').catch(() => undefined)]);
    this.specs = specs;
    this.saver.remember(model);
    const nb = normaliseNotebook(model.content);
    // The server marks every code cell `metadata.trusted` from the notebook's signature.
    this.setTrusted(notebookTrusted(nb));
    this.chrome.showKernelSpecs(
      specs,
      (name) => void this.changeKernel(name).catch((e: unknown) => toast(String(e), 'error')),
    );
    this.live = await LiveNotebook.open(this.notebook, this.kernel, this.path, nb);
    if (!this.live) await this.notebook.load(nb, this.notebook.trusted);
    this.chrome.showName(this.path);
    this.chrome.watchKernelUsage(() => this.kernel.kernelId);
    this.updateSaveState(model.last_modified);

    this.notebook.onDirty = () => this.updateSaveState();
    if (this.live) this.live.onQuiet = () => void this.save(false, true).catch(() => undefined);
    this.notebook.onModeChange = (mode) => this.chrome.showMode(mode);
    this.kernel.onStatus = (s) => this.showKernelStatus(s);
    this.kernel.onKernelInfo = () => this.showKernelStatus(this.kernel.status);
    window.addEventListener('nbserve-error', (e) => toast((e as CustomEvent<string>).detail, 'error'));
    installCommandKeys(this.notebook, this.commands);
    window.addEventListener('beforeunload', (e) => {
      if (!this.notebook.dirty || this.live?.connected) return; // a shared notebook lives on in the server
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
      if (this.notebook.dirty && !this.live) void this.save(false, true).catch(() => undefined);
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
      const handlers = this.notebook.runner.adopt(closeSaved ? { ...r, saved: true } : r);
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
    this.notebook.runner.clearRunning();
    holdLock(lockName(this.kernel.clientSession));
    this.resume.bind(this.resumeKey, this.kernel.clientSession);
  }

  // ---- chrome ----

  private showKernelStatus(status: KernelStatus): void {
    const name = this.kernel.session?.kernel.name;
    this.chrome.showKernelStatus(status, (name && this.specs?.kernelspecs[name]?.spec.display_name) || name || '');
    if (status === 'restarting' || status === 'dead') this.notebook.runner.clearRunning();
    this.notice.status(status);
  }

  private updateSaveState(lastModified?: string, note?: string): void {
    this.chrome.showSaveState(this.notebook.dirty, lastModified ?? this.saver.lastModified, note);
  }

  private setTrusted(trusted: boolean): void {
    this.notebook.trusted = trusted;
    this.chrome.showTrusted(trusted);
  }

  // ---- actions ----

  async save(checkpoint: boolean, auto = false): Promise<void> {
    await this.notebook.loaded;
    // Requests in flight when the content is taken: the file will hold their outputs so far.
    const inFlight = this.resume.inFlight();
    let model: ContentsModel;
    try {
      // A shared notebook is saved by the server, from the document everyone edits.
      model = this.live ? await this.live.save(this.path) : await this.saver.write(this.notebook.toJSON());
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
    // A shared notebook follows its file by itself: the server loads a changed file into it.
    if (this.live) await this.live.follow(nb);
    else await this.notebook.load(nb, this.notebook.trusted);
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
    this.chrome.showName(this.path);
  }

  private async revert(): Promise<void> {
    const checkpoints = await this.saver.listCheckpoints();
    if (checkpoints.length === 0) {
      toast('There is no checkpoint to revert to');
      return;
    }
    const cellsNow = () => (this.notebook.toJSON().cells ?? []) as DiffCell[];
    const id = await chooseCheckpoint(this.path, checkpoints, cellsNow);
    if (id === undefined) return;
    await this.saver.restoreCheckpoint(id);
    await this.reload();
  }

  private async changeKernel(name: string): Promise<void> {
    await this.kernel.changeKernel(name);
    this.rebindResume();
    const spec = this.specs?.kernelspecs[name];
    if (spec) {
      this.notebook.metadata.kernelspec = { name, display_name: spec.spec.display_name, language: spec.spec.language };
      this.notebook.metadata.language_info = { name: spec.spec.language };
      this.live?.shareMetadata();
    }
    for (const c of this.notebook.cells) c.resetEditor();
    this.notebook.setDirty(true);
    this.showKernelStatus(this.kernel.status);
  }

  /** Running requests are recorded under the kernel they run on (resume.ts). */
  private rebindResume(): void {
    const kernelId = this.kernel.kernelId;
    if (!kernelId) return;
    this.resumeKey = resumeKey(new URL(pageConfig().baseUrl, location.origin).href, kernelId);
    this.resume.clear();
    this.resume.bind(this.resumeKey, this.kernel.clientSession);
  }

  /** A new kernel of the notebook's kernelspec, in place of one shut down elsewhere or dead. */
  private async startNewKernel(): Promise<void> {
    this.notebook.runner.clearRunning();
    const name = (this.notebook.metadata.kernelspec as { name?: string } | undefined)?.name;
    try {
      await this.kernel.replaceKernel(this.path, name && this.specs?.kernelspecs[name] ? name : this.specs?.default);
    } catch (error) {
      this.showKernelStatus('dead');
      throw error;
    }
    this.rebindResume();
    this.showKernelStatus(this.kernel.status);
  }

  private async restart(runAll: boolean, clear: boolean): Promise<void> {
    // Nothing to restart (shut down here or elsewhere, or dead): start a new one, as Notebook 6.4.
    if (this.kernel.status === 'dead' || this.kernel.status === 'no kernel' || !this.kernel.kernelId) {
      await this.startNewKernel();
      if (clear) this.notebook.clearAllOutputs();
      if (runAll) await this.notebook.runAll();
      return;
    }
    const ok = await confirmDialog('Restart kernel', 'Restart the kernel? All variables are lost.', 'Restart', true);
    if (!ok) return;
    await this.kernel.restart();
    this.notebook.runner.clearRunning();
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

  /** Saves first (as Notebook does), so the download is what the page shows. */
  private async download(format: string): Promise<void> {
    if (this.notebook.dirty) await this.save(false);
    if (this.notebook.dirty) return; // the save was cancelled (conflict dialog)
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

  /** What each command of the table (commands.ts) does on this page. */
  private commandActions(): CommandActions {
    const nb = this.notebook;
    const { baseUrl } = pageConfig();
    const openTab = (href: string) => void window.open(href, '_blank', 'noopener');
    return {
      'new-notebook': () => openTab(`${baseUrl}new`),
      open: () => openTab(url(baseUrl, 'tree', dirname(this.path))),
      save: () => this.save(true),
      revert: () => this.revert(),
      rename: () => this.rename(),
      'download-ipynb': () => this.download('ipynb'),
      'download-script': () => this.download('script'),
      'download-html': () => this.download('html'),
      print: () => openTab(url(baseUrl, 'print', this.path)),
      trust: () => this.trust(),
      'close-halt': async () => {
        if (this.notebook.dirty && !(await confirmDialog('Unsaved changes', 'Close without saving?', 'Close', true)))
          return;
        if (this.kernel.session) await api(`api/sessions/${this.kernel.session.id}`, { method: 'DELETE' });
        this.notebook.runner.clearRunning();
        this.notebook.setDirty(false);
        location.href = url(baseUrl, 'tree', dirname(this.path));
      },
      'cut-cell': () => nb.cutSelected(),
      'copy-cell': () => nb.copySelected(),
      'paste-below': () => nb.paste(false),
      'paste-above': () => nb.paste(true),
      'delete-cell': () => nb.deleteSelected(),
      'undo-delete': () => nb.undoDelete(),
      'move-up': () => nb.moveSelected(-1),
      'move-down': () => nb.moveSelected(1),
      'run-cell': () => nb.runSelected('stay'),
      'run-and-select-next': () => nb.runSelected('next'),
      'run-and-insert-below': () => nb.runSelected('insert'),
      'run-all': () => nb.runAll(),
      'run-above': () => nb.runAbove(),
      'run-below': () => nb.runBelow(),
      'to-code': () => nb.changeType('code'),
      'to-markdown': () => nb.changeType('markdown'),
      'to-raw': () => nb.changeType('raw'),
      'clear-all': () => nb.clearAllOutputs(),
      interrupt: () => this.kernel.interrupt(),
      restart: () => this.restart(false, false),
      'restart-clear': () => this.restart(false, true),
      'restart-run-all': () => this.restart(true, true),
      'shutdown-kernel': async () => {
        if (this.kernel.session) await api(`api/sessions/${this.kernel.session.id}`, { method: 'DELETE' });
        this.kernel.close();
        this.notebook.runner.clearRunning(); // nothing more comes, and nothing is left for a next page
        this.showKernelStatus('no kernel');
      },
      'show-shortcuts': () => showShortcuts(this.commands.specs),
      'edit-cell': () => nb.enterEdit(),
      'insert-above': () => nb.insertAbove(),
      'insert-below': () => nb.insertBelow(),
      'select-previous': () => nb.select(nb.selected - 1),
      'select-next': () => nb.select(nb.selected + 1),
      ...pageToolActions(nb, () => this.commands),
    };
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
