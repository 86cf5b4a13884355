import { api, type ContentsModel, contentsRoute } from '../lib/api.js';
import { showDialog } from '../lib/dialog.js';
import { h } from '../lib/dom.js';
import { type CellChange, type DiffCell, diffNotebooks, type NotebookDiff } from './checkpoint-diff.js';
import type { Checkpoint } from './saving.js';

/**
 * File > Revert to checkpoint: the file's checkpoints, newest first, and for the one picked what
 * restoring it does to the cells now. Resolves with the id to restore, or `undefined`.
 */
export async function chooseCheckpoint(
  path: string,
  checkpoints: readonly Checkpoint[],
  cellsNow: () => DiffCell[],
): Promise<string | undefined> {
  const newestFirst = [...checkpoints].reverse();
  let chosen = newestFirst[0]?.id;
  const diffView = h('div', { className: 'checkpoint-diff', 'aria-live': 'polite' });
  const show = async (id: string) => {
    chosen = id;
    diffView.dataset.state = 'loading';
    diffView.replaceChildren(h('p', { className: 'checkpoint-diff-note' }, 'Reading the checkpoint…'));
    try {
      const model = await api<ContentsModel>(`${contentsRoute(path)}/checkpoints/${encodeURIComponent(id)}`);
      if (chosen !== id) return; // another one was picked meanwhile
      const cells = (model.content as { cells?: DiffCell[] } | null)?.cells ?? [];
      diffView.replaceChildren(...renderDiff(diffNotebooks(cellsNow(), cells)));
      diffView.dataset.state = 'ready';
    } catch (error) {
      if (chosen !== id) return;
      diffView.replaceChildren(h('p', { className: 'checkpoint-diff-note' }, `Could not read it: ${String(error)}`));
      diffView.dataset.state = 'error';
    }
  };
  const list = h('div', { className: 'checkpoint-list', role: 'radiogroup', 'aria-label': 'Checkpoints' });
  for (const [n, checkpoint] of newestFirst.entries()) {
    const input = h('input', {
      type: 'radio',
      name: 'checkpoint',
      value: checkpoint.id,
      checked: n === 0,
      onchange: () => void show(checkpoint.id),
    });
    const when = new Date(checkpoint.last_modified).toLocaleString();
    list.append(
      h(
        'label',
        { className: 'checkpoint-item', 'data-checkpoint': checkpoint.id },
        input,
        ` ${when}`,
        n === 0 ? ' (newest)' : '',
      ),
    );
  }
  if (chosen) void show(chosen);
  const revert = await showDialog({
    title: 'Revert to checkpoint',
    body: h('div', {}, h('p', {}, 'Changes since the checkpoint are lost.'), list, diffView),
    cancel: false,
    buttons: [
      { label: 'Cancel', value: false },
      { label: 'Revert', value: true, primary: true, danger: true },
    ],
  });
  return revert ? chosen : undefined;
}

function renderDiff({ changes, unchanged }: NotebookDiff): HTMLElement[] {
  const summary = changes.length === 0 ? 'The cells are the same as now.' : summarize(changes, unchanged);
  return [h('p', { className: 'checkpoint-diff-summary' }, summary), ...changes.map(renderChange)];
}

function summarize(changes: CellChange[], unchanged: number): string {
  const count = (kind: CellChange['kind']) => changes.filter((c) => c.kind === kind).length;
  const parts = [
    [count('changed'), 'changed'],
    [count('removed'), 'added since (removed by the revert)'],
    [count('restored'), 'deleted since (brought back)'],
    [unchanged, 'unchanged'],
  ] as const;
  return parts
    .filter(([n]) => n > 0)
    .map(([n, what]) => `${n} ${n === 1 ? 'cell' : 'cells'} ${what}`)
    .join(', ');
}

function renderChange(change: CellChange): HTMLElement {
  const lines = h('pre', { className: 'checkpoint-diff-lines' });
  if (change.kind === 'changed') {
    for (const part of change.lines)
      lines.append(...diffLinesOf(part.value, part.added ? '+' : part.removed ? '-' : ' '));
  } else {
    lines.append(...diffLinesOf(change.source, change.kind === 'removed' ? '-' : '+'));
  }
  const title =
    change.kind === 'changed'
      ? `Cell ${change.index + 1} (${change.type}): changed`
      : change.kind === 'removed'
        ? `A ${change.type} cell added since: removed`
        : `Cell ${change.index + 1} (${change.type}): brought back`;
  return h('div', { className: 'checkpoint-diff-cell', 'data-kind': change.kind }, h('h3', {}, title), lines);
}

function diffLinesOf(text: string, sign: '+' | '-' | ' '): HTMLElement[] {
  const cls = sign === '+' ? 'diff-add' : sign === '-' ? 'diff-del' : 'diff-same';
  const lines = text.replace(/\n$/, '').split('\n');
  return lines.map((line) => h('span', { className: cls }, `${sign} ${line}\n`));
}
