import { showDialog } from '../lib/dialog.js';
import { h } from '../lib/dom.js';
import { MODE_KEYS } from './command-keys.js';
import { type CommandSpec, MENUS } from './commands.js';

export interface HelpRow {
  readonly keys: readonly string[];
  readonly label: string;
}

export interface HelpSection {
  readonly title: string;
  readonly rows: readonly HelpRow[];
}

/** The shortcut help, from the command table: keys of no menu (and the modes) first, then menu by menu. */
export function shortcutHelp(specs: readonly CommandSpec[]): HelpSection[] {
  const withKeys = specs.filter((s) => s.keys && s.keys.length > 0);
  const row = (s: CommandSpec): HelpRow => ({ keys: s.keys ?? [], label: s.label });
  const sections: HelpSection[] = [
    { title: 'Notebook', rows: [...withKeys.filter((s) => !s.menu).map(row), ...MODE_KEYS] },
  ];
  for (const menu of MENUS) {
    const rows = withKeys.filter((s) => s.menu?.[0] === menu).map(row);
    if (rows.length > 0) sections.push({ title: menu, rows });
  }
  return sections;
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
