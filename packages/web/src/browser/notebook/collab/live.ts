import type { YNotebook } from '@jupyter/ydoc';
import { replaceSharedNotebook } from '@nbserve/core/ycells';
import { api, type ContentsModel, contentsRoute } from '../../lib/api.js';
import { toast } from '../../lib/dom.js';
import type { Cell } from '../cell.js';
import type { Notebook } from '../document.js';
import type { KernelConnection } from '../kernel.js';
import type { NotebookData } from '../model.js';
import { NotebookBinding } from './binding.js';
import { toSharedCell } from './cells.js';
import { executeOnServer, whenStarted } from './execute.js';
import { Presence } from './presence.js';
import { RoomSaver } from './save.js';
import { joinRoom, requestCollabSession, type SharedNotebook } from './session.js';

/**
 * The notebook page on a server that shares the notebook (docs/collaboration.md): the page shows
 * the shared document, every tab and person on the notebook edits the same one, and cells run on
 * the server, which writes their outputs into the document even when no page is open.
 */
/** The server saves a second after the last change; the page asks a little later, to show it. */
const QUIET_MS = 1500;
/** The server watches the file; a restored file should be in the document well before this. */
const FOLLOW_MS = 4000;

export class LiveNotebook {
  readonly presence: Presence;
  private readonly saver: RoomSaver;
  private quietTimer: ReturnType<typeof setTimeout> | undefined;
  /** A while after the document last changed (the page then asks for a save, to show it saved). */
  onQuiet: () => void = () => {};

  private constructor(
    private readonly nb: Notebook,
    private readonly kernel: KernelConnection,
    readonly binding: NotebookBinding,
  ) {
    this.presence = new Presence(nb, binding.ynotebook.awareness);
    binding.onStructure = () => this.presence.draw();
    nb.runner.remote = (cell) => this.run(cell);
    this.saver = new RoomSaver(binding.shared.provider);
    binding.ynotebook.ydoc.on('update', () => {
      clearTimeout(this.quietTimer);
      this.quietTimer = setTimeout(() => this.onQuiet(), QUIET_MS);
    });
    document.body.dataset.collaboration = 'on';
    document.querySelector('.save-state')?.after(this.presence.element);
  }

  /**
   * Opens the shared notebook at `path` if the server offers collaboration, else undefined (the
   * page then works on its own, as before). `file`: the notebook as the contents API read it,
   * for the cells the server vouched for.
   */
  static async open(
    nb: Notebook,
    kernel: KernelConnection,
    path: string,
    file: NotebookData,
  ): Promise<LiveNotebook | undefined> {
    const session = await requestCollabSession(path);
    if (!session) return undefined;
    let shared: SharedNotebook;
    try {
      shared = await joinRoom(session);
    } catch (error) {
      toast(`Working without live collaboration: ${error instanceof Error ? error.message : String(error)}`, 'error');
      return undefined;
    }
    const binding = new NotebookBinding(nb, shared);
    const trusted = new Set(file.cells.filter((c) => c.metadata.trusted === true).map((c) => c.id ?? ''));
    await binding.open(trusted);
    return new LiveNotebook(nb, kernel, binding);
  }

  /** The room's id, which the execute route names the document by. */
  get documentId(): string {
    const { format, type, fileId } = this.binding.shared.session;
    return `${format}:${type}:${fileId}`;
  }

  /** The notebook's metadata (kernelspec, language_info) changed in the page: share it. */
  shareMetadata(): void {
    this.binding.ynotebook.updateMetadata(this.nb.metadata as Parameters<YNotebook['updateMetadata']>[0]);
  }

  /** Connected to the room: every change made here has been sent to the server. */
  get connected(): boolean {
    return this.binding.shared.provider.wsconnected;
  }

  /** Has the server write the document to `path` now; resolves with the file's model. */
  async save(path: string): Promise<ContentsModel> {
    // The widgets' state is the page's to give (its manager holds it), as without sharing.
    const { widgets } = this.nb.widgets.metadataForSave(this.nb.metadata);
    if (widgets !== undefined)
      this.binding.ynotebook.updateMetadata({ widgets } as Parameters<YNotebook['updateMetadata']>[0]);
    if (!(await this.saver.save())) throw new Error('The server could not save the notebook');
    return api<ContentsModel>(contentsRoute(path), { query: { content: '0', hash: '1' } });
  }

  /**
   * The file was replaced underneath (a checkpoint restored): the server merges it into the
   * document as soon as its watch sees it (docs/collaboration.md, "Changes on disk"), keeping
   * edits made since the last save. Should the document still not hold the file after FOLLOW_MS,
   * the page replaces the document with it: a revert is meant to undo those edits too.
   * Outputs are then drawn with the file's trust.
   */
  async follow(file: NotebookData): Promise<void> {
    const nb = this.binding.ynotebook;
    const holds = () =>
      nb.cells.length === file.cells.length &&
      nb.cells.every((c, i) => c.cell_type === file.cells[i]?.cell_type && c.getSource() === file.cells[i]?.source);
    for (let waited = 0; waited < FOLLOW_MS && !holds(); waited += 250) await new Promise((r) => setTimeout(r, 250));
    if (!holds()) {
      const content = { ...file, cells: file.cells.map(toSharedCell) };
      replaceSharedNotebook(nb, content as unknown as Parameters<YNotebook['fromJSON']>[0]);
    }
    // The file's trust (a notebook just trusted, or signed cells) decides how outputs are shown.
    this.binding.retrust((i) => this.nb.trusted || file.cells[i]?.metadata.trusted === true);
  }

  /** Runs a code cell on the server; its outputs come back through the document. */
  private run(cell: Cell): void {
    const ycell = this.binding.ycell(cell);
    const kernelId = this.kernel.kernelId;
    if (ycell?.cell_type !== 'code') return;
    if (ycell.getSource().trim() === '') {
      // As without a shared document: an empty cell is cleared, not sent to the kernel.
      this.binding.ynotebook.transact(() => {
        ycell.clearOutputs();
        ycell.execution_count = null;
      }, false);
      return;
    }
    if (!kernelId) {
      toast('There is no kernel to run the cell', 'error');
      return;
    }
    this.kernel.onExecute(); // as a run sent on the page's own socket (kernel-notice.ts)
    this.binding.queued.add(cell);
    cell.setRunning(true);
    this.nb.onExecutionChange();
    const done = () => {
      this.binding.queued.delete(cell);
      this.binding.drawOutputs(cell, ycell);
      this.nb.onExecutionChange();
    };
    executeOnServer({ kernelId, documentId: this.documentId, cellId: ycell.id, code: ycell.getSource() })
      .then((request) => whenStarted(kernelId, request.request_id, () => this.binding.queued.has(cell)))
      .then((request) => {
        if (request && request.status !== 'running') done();
      })
      .catch((error: unknown) => {
        done();
        toast(`Could not run the cell: ${error instanceof Error ? error.message : String(error)}`, 'error');
      });
  }
}
