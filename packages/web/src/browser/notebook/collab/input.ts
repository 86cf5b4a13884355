import type { YCodeCell } from '@jupyter/ydoc';
import { api } from '../../lib/api.js';
import type { Cell } from '../cell.js';

/** A run's pending `input()`, as the server keeps it under the cell's `input_request` key. */
interface PendingInput {
  request_id: string;
  kernel_id: string;
  prompt: string;
  password: boolean;
}

/** The request each cell's shown prompt answers. */
const shown = new WeakMap<Cell, string>();

function pendingInput(ycell: YCodeCell): PendingInput | undefined {
  const value = ycell.ymodel.get('input_request') as Partial<PendingInput> | undefined;
  if (typeof value?.request_id !== 'string' || typeof value.kernel_id !== 'string') return undefined;
  return {
    request_id: value.request_id,
    kernel_id: value.kernel_id,
    prompt: String(value.prompt ?? ''),
    password: value.password === true,
  };
}

/**
 * Shows the prompt of a server-side run waiting in `input()` / `getpass()` (the same box as
 * without collaboration; every page on the notebook shows it) and posts the answer to
 * `POST /api/kernels/<id>/requests/<request_id>/input`; the server echoes it into the cell.
 * Removes the box once the prompt is answered (here or elsewhere) or the run ended.
 */
export function showInputRequest(cell: Cell, ycell: YCodeCell): void {
  const area = cell.outputArea;
  if (!area) return;
  const pending = pendingInput(ycell);
  if (!pending) {
    shown.delete(cell);
    area.dropInputPrompts();
    return;
  }
  // Still shown (a redraw that cleared the outputs removes it: then it is drawn again).
  if (area.element.querySelector('.stdin') && shown.get(cell) === pending.request_id) return;
  area.dropInputPrompts();
  shown.set(cell, pending.request_id);
  // Focus the box unless someone types elsewhere (another cell's editor, another prompt, a
  // dialog): a prompt must not pull a collaborator out of what they are typing.
  const active = document.activeElement;
  const typing = active instanceof HTMLElement && (active.isContentEditable || active.matches('input, textarea'));
  const focus = !typing || cell.element.contains(active);
  void area.askInput(pending.prompt, pending.password, { echo: false, focus }).then((value) => {
    shown.delete(cell);
    const route = `api/kernels/${encodeURIComponent(pending.kernel_id)}/requests/${encodeURIComponent(pending.request_id)}/input`;
    // 409: someone else answered first, or the run was interrupted; the document says the rest.
    return api(route, { method: 'POST', body: { value } }).catch(() => undefined);
  });
}
