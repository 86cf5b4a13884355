import type { YCellType } from '@jupyter/ydoc';
import type * as Y from 'yjs';
import { h } from '../../lib/dom.js';
import type { Cell } from '../cell.js';

/**
 * The key the server sets on a shared cell when another program changed the file and its text
 * replaced what was typed here since the last save (docs/collaboration.md, "Changes on disk").
 */
const CHANGED_ON_DISK = 'changed_on_disk';

const notices = new WeakMap<Cell, HTMLElement>();

/**
 * Shows (or removes) a cell's "changed on disk" notice: the text typed here that the file's text
 * replaced, with a button that puts it back and one that dismisses the notice. Either removes
 * the key from the shared cell, so the notice goes on every page.
 */
export function showDiskNotice(cell: Cell, ycell: YCellType): void {
  const value = ycell.ymodel.get(CHANGED_ON_DISK) as { replaced?: unknown } | undefined;
  notices.get(cell)?.remove();
  notices.delete(cell);
  if (typeof value?.replaced !== 'string') return;
  const replaced = value.replaced;
  const putBack = () =>
    ycell.transact(() => {
      const source = ycell.ymodel.get('source') as Y.Text;
      source.delete(0, source.length);
      source.insert(0, replaced);
      ycell.ymodel.delete(CHANGED_ON_DISK);
    }, false);
  const dismiss = () => ycell.transact(() => ycell.ymodel.delete(CHANGED_ON_DISK), false);
  const notice = h(
    'div',
    { className: 'disk-notice', role: 'alert' },
    h('span', { className: 'disk-notice-text' }, 'Changed on disk: the file’s text replaced what was typed here:'),
    h('pre', { className: 'disk-notice-replaced' }, replaced),
    h('button', { type: 'button', className: 'btn btn-primary disk-notice-restore', onclick: putBack }, 'Put back'),
    h('button', { type: 'button', className: 'btn disk-notice-dismiss', onclick: dismiss }, 'Dismiss'),
  );
  notices.set(cell, notice);
  cell.element.prepend(notice);
}
