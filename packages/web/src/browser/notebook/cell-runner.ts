import type { Cell } from './cell.js';
import type { KernelConnection, RequestHandlers } from './kernel.js';
import type { KernelMessage } from './messages.js';
import { blankCell, type CellData } from './model.js';
import type { OutputArea } from './output-area.js';
import type { Pager } from './pager.js';
import { type InFlight, MAX_SOURCE_CHARS, type ResumeTracker } from './resume.js';

/** What running cells needs of the notebook: its cells, where a new one goes, and what a run changes. */
export interface RunnerNotebook {
  readonly cells: readonly Cell[];
  readonly selected: number;
  insertCell(index: number, data: CellData): Cell;
  setDirty(dirty: boolean): void;
  onExecutionChange(): void;
  /** Where a `?` payload's text goes. */
  readonly pager: Pick<Pager, 'show'>;
}

/**
 * Runs the notebook's cells through the kernel: execute requests, their outputs, prompts, stdin
 * and payloads, and the record of requests in flight that a later page can take over.
 */
export class CellRunner {
  /** Set while the notebook is shared (collab/): code cells run on the server, which writes their outputs into the document. */
  remote: ((cell: Cell) => void) | undefined;

  constructor(
    private readonly nb: RunnerNotebook,
    private readonly kernel: KernelConnection,
    /** Records the execute requests in flight, for a page that takes over after this one closes. */
    private readonly resume: ResumeTracker,
  ) {}

  /** Runs a code cell (a markdown cell is rendered); its outputs replace the old ones. */
  run(cell: Cell): void {
    if (cell.type === 'markdown') {
      cell.renderMarkdown();
      return;
    }
    if (cell.type !== 'code' || !cell.outputArea) return;
    if (this.remote) {
      this.remote(cell);
      return;
    }
    const area = cell.outputArea;
    if (cell.text.trim() === '') {
      area.clear();
      cell.setExecutionCount(null);
      return;
    }
    area.clear();
    area.trusted = true; // outputs this session produced are ours
    cell.setRunning(true);
    this.nb.setDirty(true);
    this.nb.onExecutionChange();
    const msgId = this.kernel.request(
      'shell',
      'execute_request',
      {
        code: cell.text,
        silent: false,
        store_history: true,
        user_expressions: {},
        allow_stdin: true,
        stop_on_error: true,
      },
      this.executeHandlers(cell, area, () => msgId),
    );
    const source = cell.text.length <= MAX_SOURCE_CHARS ? cell.text : undefined;
    this.resume.started({
      msgId,
      cellId: cell.data.id ?? '',
      index: this.nb.cells.indexOf(cell),
      count: null,
      saved: false,
      ...(source === undefined ? {} : { source }),
    });
  }

  /**
   * Takes over a request an earlier page of this notebook left running (see resume.ts): puts its
   * cell back into the running state and returns the handlers its replayed outputs go to. A cell
   * that is not in the saved file (never saved) is put back from the stored source, if any.
   */
  adopt(request: InFlight): (RequestHandlers & { onOrphaned?(): void }) | undefined {
    let cell = this.nb.cells.find((c) => c.data.id === request.cellId);
    if (!cell && request.source !== undefined && request.cellId) {
      const data = blankCell('code');
      data.id = request.cellId;
      data.source = request.source;
      cell = this.nb.insertCell(Math.min(request.index, this.nb.cells.length), data);
    }
    const area = cell?.outputArea;
    if (!cell || !area || cell.type !== 'code') return undefined;
    // Outputs in the file from before this run are stale unless the notebook was saved while it ran.
    if (!request.saved) {
      area.clear();
      cell.setExecutionCount(request.count);
    } else if (request.count !== null) {
      cell.setExecutionCount(request.count);
    }
    area.trusted = true; // produced by code the user ran, as in run
    cell.setRunning(true);
    this.nb.onExecutionChange();
    this.resume.started({ ...request });
    const target = cell;
    return {
      ...this.executeHandlers(cell, area, () => request.msgId),
      onOrphaned: () => {
        this.resume.finished(request.msgId);
        target.setRunning(false);
        this.nb.onExecutionChange();
      },
    };
  }

  private executeHandlers(cell: Cell, area: OutputArea, msgId: () => string): RequestHandlers {
    return {
      onIOPub: (msg) => {
        if (msg.header.msg_type === 'execute_input') {
          const count = (msg.content.execution_count as number) ?? null;
          cell.setExecutionCount(count);
          this.resume.counted(msgId(), count);
        } else {
          area.handle(msg);
          if (msg.header.msg_type === 'execute_result')
            cell.setExecutionCount((msg.content.execution_count as number) ?? null);
        }
        this.nb.setDirty(true);
      },
      onStdin: (msg) => {
        if (msg.header.msg_type !== 'input_request') return;
        void area
          .askInput(String(msg.content.prompt ?? ''), Boolean(msg.content.password))
          .then((value) => this.kernel.replyInput(value, msg));
      },
      onReply: (msg) => {
        const count = msg.content.execution_count;
        if (typeof count === 'number') cell.setExecutionCount(count);
        this.handlePayload(msg);
      },
      onDone: () => {
        this.resume.finished(msgId());
        area.dropInputPrompts(); // an interrupted input() leaves nothing to answer
        cell.setRunning(false);
        this.nb.onExecutionChange();
      },
    };
  }

  /** The execute reply may ask to set the next input (`%load`) or show a pager (`?`). */
  private handlePayload(msg: KernelMessage): void {
    const payload = msg.content.payload;
    if (!Array.isArray(payload)) return;
    for (const p of payload as { source?: string; data?: Record<string, string>; text?: string }[]) {
      if (p.source === 'page' && p.data) this.nb.pager.show(p.data['text/plain'] ?? '');
      if (p.source === 'set_next_input' && typeof p.text === 'string') {
        const data = blankCell('code');
        data.source = p.text;
        this.nb.insertCell(this.nb.selected + 1, data);
      }
    }
  }

  /** A kernel restart clears every running marker. */
  clearRunning(): void {
    this.resume.clear();
    for (const cell of this.nb.cells) if (cell.running) cell.setRunning(false);
    this.nb.onExecutionChange();
  }
}
