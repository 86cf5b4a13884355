import { showDialog } from '../lib/dialog.js';
import { h } from '../lib/dom.js';
import { EDITOR_KEYS, editModeKeys } from './command-keys.js';
import type { CommandSpec } from './commands.js';

export interface HelpRow {
  readonly keys: readonly string[];
  readonly label: string;
}

export interface HelpSection {
  readonly title: string;
  readonly rows: readonly HelpRow[];
}

/** A command's keys in edit mode: its editor keys, and the Ctrl keys that work anywhere (Ctrl-S). */
export function editHelpKeys(spec: CommandSpec): readonly string[] {
  const anywhere = spec.anywhere ? (spec.keys ?? []).filter((k) => k.startsWith('Ctrl-')) : [];
  return [...editModeKeys(spec), ...anywhere];
}

/**
 * The shortcut help, from the command table, as Notebook 6.4 shows it: every command-mode key,
 * then every edit-mode key (the commands' and the cell editor's own).
 */
export function shortcutHelp(specs: readonly CommandSpec[]): HelpSection[] {
  const command = specs.filter((s) => s.keys && s.keys.length > 0).map((s) => ({ keys: s.keys ?? [], label: s.label }));
  const edit = specs.filter((s) => editHelpKeys(s).length > 0).map((s) => ({ keys: editHelpKeys(s), label: s.label }));
  return [
    { title: 'Command mode (press Esc to enable)', rows: command },
    { title: 'Edit mode (press Enter to enable)', rows: [...edit, ...EDITOR_KEYS] },
  ];
}

/** The Help > Keyboard shortcuts dialog (also H). */
export function showShortcuts(specs: readonly CommandSpec[]): void {
  const table = h('table', { className: 'shortcuts' });
  for (const section of shortcutHelp(specs)) {
    table.append(h('tr', {}, h('th', { colspan: 2 }, section.title)));
    for (const { keys, label } of section.rows) {
      const shown = keys.flatMap((k, i) => (i === 0 ? [h('kbd', {}, k)] : [', ', h('kbd', {}, k)]));
      table.append(h('tr', {}, h('td', {}, ...shown), h('td', {}, label)));
    }
  }
  void showDialog({
    title: 'Keyboard shortcuts',
    body: table,
    cancel: undefined,
    buttons: [{ label: 'Close', value: undefined, primary: true }],
  });
}
