import type { CommandRegistry } from './commands.js';
import type { Notebook } from './notebook.js';

/** Command-mode keys of the classic notebook; two-key sequences (D D, I I, 0 0) within 800 ms. */
const SINGLE: Record<string, string> = {
  Enter: 'edit-cell',
  'Shift-Enter': 'run-and-select-next',
  'Ctrl-Enter': 'run-cell',
  'Meta-Enter': 'run-cell',
  'Alt-Enter': 'run-and-insert-below',
  a: 'insert-above',
  b: 'insert-below',
  x: 'cut-cell',
  c: 'copy-cell',
  v: 'paste-below',
  'Shift-V': 'paste-above',
  z: 'undo-delete',
  y: 'to-code',
  m: 'to-markdown',
  r: 'to-raw',
  ArrowUp: 'select-previous',
  k: 'select-previous',
  ArrowDown: 'select-next',
  j: 'select-next',
  s: 'save',
  'Ctrl-s': 'save',
  'Meta-s': 'save',
  h: 'show-shortcuts',
};

const DOUBLE: Record<string, string> = { d: 'delete-cell', i: 'interrupt', '0': 'restart' };

function keyName(e: KeyboardEvent): string {
  const mods = `${e.ctrlKey ? 'Ctrl-' : ''}${e.metaKey ? 'Meta-' : ''}${e.altKey ? 'Alt-' : ''}${e.shiftKey ? 'Shift-' : ''}`;
  const key =
    e.key.length === 1 && !e.shiftKey ? e.key.toLowerCase() : e.key.length === 1 ? e.key.toUpperCase() : e.key;
  return mods + key;
}

export function installCommandKeys(notebook: Notebook, commands: CommandRegistry): void {
  let pendingKey = '';
  let pendingAt = 0;
  document.addEventListener('keydown', (e) => {
    // Ctrl-S saves in both modes, and never opens the browser's "save page" dialog.
    if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 's') {
      e.preventDefault();
      commands.run('save');
      return;
    }
    const target = e.target as HTMLElement;
    if (e.key === 'Escape' && target.classList.contains('stdin-input')) {
      notebook.enterCommand(); // leave an input() prompt, e.g. to interrupt with I I
      return;
    }
    if (target.closest('input,textarea,select,dialog,.cm-editor')) return;
    if (e.key === 'Escape') {
      // Also the way back to command mode when focus left the editor (a menu, the page).
      if (!notebook.closePager()) notebook.enterCommand();
      return;
    }
    if (notebook.mode === 'edit') return;
    const name = keyName(e);
    const double = DOUBLE[name];
    if (double) {
      e.preventDefault();
      const now = Date.now();
      if (pendingKey === name && now - pendingAt < 800) {
        pendingKey = '';
        commands.run(double);
      } else {
        pendingKey = name;
        pendingAt = now;
      }
      return;
    }
    pendingKey = '';
    const id = SINGLE[name];
    if (id) {
      e.preventDefault();
      commands.run(id);
    }
  });
}

export const SHORTCUT_HELP: [string, string][] = [
  ['Shift-Enter', 'run cell, select below'],
  ['Ctrl-Enter', 'run cell'],
  ['Alt-Enter', 'run cell, insert below'],
  ['Enter', 'edit mode'],
  ['Esc', 'command mode'],
  ['A / B', 'insert cell above / below'],
  ['X / C / V / Shift-V', 'cut / copy / paste below / above'],
  ['D D', 'delete cell'],
  ['Z', 'undo cell deletion'],
  ['Y / M / R', 'to code / markdown / raw'],
  ['Up, K / Down, J', 'select previous / next cell'],
  ['I I', 'interrupt the kernel'],
  ['0 0', 'restart the kernel'],
  ['S, Ctrl-S', 'save and checkpoint'],
  ['Tab', 'complete (edit mode)'],
  ['Shift-Tab', 'show documentation (edit mode)'],
  ['H', 'this help'],
];
