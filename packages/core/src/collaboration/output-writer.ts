import { YCodeCell, type YNotebook } from '@jupyter/ydoc';
import * as Y from 'yjs';
import { isObject } from '../util/is-object.js';
import { appendStreamText } from '../util/stream-text.js';
import { SERVER_ORIGIN } from './room.js';

type IOutput = Parameters<YCodeCell['setOutputs']>[0][number];

import { replaceText } from './text-merge.js';

/** Display ids of one document: which cells show an output with that id (for update_display_data). */
export type DisplayIndex = Map<string, Set<string>>;

/**
 * Writes one execution's iopub messages into a code cell of a shared notebook, with the page's
 * rules (https://jupyter-client.readthedocs.io/en/stable/messaging.html#messages-on-the-iopub-pub-sub-channel):
 * stream text appends to the last output of the same stream, `\r` rewrites its line;
 * `clear_output` clears now or, with `wait`, just before the next output; `update_display_data`
 * replaces every output shown with that display id in this document. The cell is looked up by id
 * at each write, so it may be moved meanwhile; a deleted cell just stops receiving outputs.
 */
export class OutputWriter {
  readonly #notebook: YNotebook;
  readonly #cellId: string;
  readonly #displays: DisplayIndex;
  /** Display ids of the cell's outputs, index for index, as written by the server. */
  readonly #cellDisplays: Map<string, Array<string | undefined>>;
  #clearPending = false;

  constructor(
    notebook: YNotebook,
    cellId: string,
    displays: DisplayIndex,
    cellDisplays: Map<string, Array<string | undefined>>,
  ) {
    this.#notebook = notebook;
    this.#cellId = cellId;
    this.#displays = displays;
    this.#cellDisplays = cellDisplays;
  }

  cell(): YCodeCell | undefined {
    return findCodeCell(this.#notebook, this.#cellId);
  }

  /** As the page does when a cell is run: outputs cleared, `In [*]`. */
  start(): void {
    this.#write((cell) => {
      cell.clearOutputs();
      this.#cellDisplays.set(this.#cellId, []);
      cell.executionState = 'running';
    });
  }

  finish(executionCount: number | null): void {
    this.#write((cell) => {
      if (executionCount !== null) cell.execution_count = executionCount;
      cell.executionState = 'idle';
    });
  }

  executionCount(count: number): void {
    this.#write((cell) => {
      cell.execution_count = count;
    });
  }

  /**
   * The run's pending `input()` prompt, under the cell's `input_request` key (not part of
   * nbformat, so never saved): every page on the document shows it and may answer it.
   */
  inputRequest(value: Record<string, unknown> | undefined): void {
    this.#write((cell) => {
      if (value) cell.ymodel.set('input_request', value);
      else if (cell.ymodel.has('input_request')) cell.ymodel.delete('input_request');
    });
  }

  /** One iopub message of this execution. */
  handle(msgType: string, content: Record<string, unknown>): void {
    switch (msgType) {
      case 'stream':
        this.#stream(String(content.name ?? 'stdout'), String(content.text ?? ''));
        return;
      case 'display_data':
      case 'execute_result':
      case 'error':
        this.#add(toOutput(msgType, content), displayIdOf(content));
        return;
      case 'update_display_data':
        this.#updateDisplay(content);
        return;
      case 'clear_output':
        if (content.wait === true) this.#clearPending = true;
        else this.#write((cell) => this.#clear(cell));
        return;
      case 'execute_input':
        if (typeof content.execution_count === 'number') this.executionCount(content.execution_count);
        return;
    }
  }

  #write(change: (cell: YCodeCell) => void): void {
    const cell = this.cell();
    if (!cell) return;
    this.#notebook.ydoc.transact(() => change(cell), SERVER_ORIGIN);
  }

  #clear(cell: YCodeCell): void {
    cell.clearOutputs();
    this.#cellDisplays.set(this.#cellId, []);
    this.#clearPending = false;
  }

  #displayList(cell: YCodeCell): Array<string | undefined> {
    let list = this.#cellDisplays.get(this.#cellId);
    // Another client changed the outputs meanwhile: display ids are no longer known for them.
    if (!list || list.length !== cell.youtputs.length) {
      list = new Array<string | undefined>(cell.youtputs.length).fill(undefined);
      this.#cellDisplays.set(this.#cellId, list);
    }
    return list;
  }

  #add(output: IOutput, displayId: string | undefined): void {
    this.#write((cell) => {
      if (this.#clearPending) this.#clear(cell);
      const list = this.#displayList(cell);
      cell.updateOutputs(cell.youtputs.length, cell.youtputs.length, [output]);
      list.push(displayId);
      if (displayId !== undefined) {
        const cells = this.#displays.get(displayId) ?? new Set<string>();
        this.#displays.set(displayId, cells);
        cells.add(this.#cellId);
      }
    });
  }

  #stream(name: string, text: string): void {
    this.#write((cell) => {
      if (this.#clearPending) this.#clear(cell);
      const outputs = cell.youtputs;
      const last = outputs.length > 0 ? outputs.get(outputs.length - 1) : undefined;
      if (last instanceof Y.Map && last.get('output_type') === 'stream' && last.get('name') === name) {
        const current = last.get('text');
        if (current instanceof Y.Text) {
          replaceText(current, appendStreamText(current.toString(), text));
          return;
        }
        const previous = typeof current === 'string' ? current : '';
        const list = this.#displayList(cell);
        cell.updateOutputs(outputs.length - 1, outputs.length, [streamOutput(name, appendStreamText(previous, text))]);
        list[list.length - 1] = undefined;
        return;
      }
      const list = this.#displayList(cell);
      cell.updateOutputs(outputs.length, outputs.length, [streamOutput(name, appendStreamText('', text))]);
      list.push(undefined);
    });
  }

  #updateDisplay(content: Record<string, unknown>): void {
    const displayId = displayIdOf(content);
    if (displayId === undefined) return;
    const output = toOutput('display_data', content);
    for (const cellId of this.#displays.get(displayId) ?? []) {
      const cell = findCodeCell(this.#notebook, cellId);
      const list = this.#cellDisplays.get(cellId);
      if (!cell || !list || list.length !== cell.youtputs.length) continue;
      this.#notebook.ydoc.transact(() => {
        list.forEach((id, index) => {
          if (id !== displayId) return;
          const kind = (cell.youtputs.get(index) as Y.Map<unknown>).get('output_type');
          const replacement =
            kind === 'execute_result'
              ? { ...output, output_type: 'execute_result', execution_count: cell.execution_count ?? null }
              : output;
          cell.updateOutputs(index, index + 1, [replacement as IOutput]);
        });
      }, SERVER_ORIGIN);
    }
  }
}

export function findCodeCell(notebook: YNotebook, cellId: string): YCodeCell | undefined {
  for (const cell of notebook.cells) if (cell.id === cellId) return cell instanceof YCodeCell ? cell : undefined;
  return undefined;
}

function displayIdOf(content: Record<string, unknown>): string | undefined {
  const transient = content.transient;
  return isObject(transient) && typeof transient.display_id === 'string' ? transient.display_id : undefined;
}

function streamOutput(name: string, text: string): IOutput {
  return { output_type: 'stream', name, text } as IOutput;
}

/** The nbformat output for an iopub message (https://nbformat.readthedocs.io/en/latest/format_description.html). */
function toOutput(msgType: string, content: Record<string, unknown>): IOutput {
  if (msgType === 'error') {
    return {
      output_type: 'error',
      ename: String(content.ename ?? ''),
      evalue: String(content.evalue ?? ''),
      traceback: Array.isArray(content.traceback) ? content.traceback.map(String) : [],
    } as IOutput;
  }
  const data = isObject(content.data) ? content.data : {};
  const metadata = isObject(content.metadata) ? content.metadata : {};
  if (msgType === 'execute_result') {
    const count = typeof content.execution_count === 'number' ? content.execution_count : null;
    return { output_type: 'execute_result', data, metadata, execution_count: count } as IOutput;
  }
  return { output_type: 'display_data', data, metadata } as IOutput;
}
