import { describe, expect, it } from 'vitest';
import {
  EDITOR_KEYS,
  editorCommandKeys,
  editorKeyName,
  eventKeyNames,
  keyBindings,
} from '../src/browser/notebook/command-keys.js';
import {
  COMMANDS,
  type CommandActions,
  CommandRegistry,
  type CommandSpec,
  MENUS,
} from '../src/browser/notebook/commands.js';
import { TOOLBAR } from '../src/browser/notebook/header.js';
import { menuSections } from '../src/browser/notebook/menus.js';
import { editHelpKeys, shortcutHelp } from '../src/browser/notebook/shortcut-help.js';

/** A registry whose actions only record which command ran. */
function recordingRegistry(): { registry: CommandRegistry; ran: string[] } {
  const ran: string[] = [];
  const actions = Object.fromEntries(COMMANDS.map((c) => [c.id, () => void ran.push(c.id)])) as CommandActions;
  return { registry: new CommandRegistry(actions), ran };
}

/** The table, seen as specs (not as its literal types). */
const specs: readonly CommandSpec[] = COMMANDS;
const withKeys = specs.filter((c) => c.keys !== undefined && c.keys.length > 0);

describe('the command table is the one source of keys, menus and help', () => {
  it('lists every key of every command in the shortcut help, by mode, and nothing else', () => {
    const [command, edit] = shortcutHelp(COMMANDS);
    expect(command?.rows).toEqual(withKeys.map((c) => ({ keys: c.keys, label: c.label })));
    const inEdit = specs.filter((c) => editHelpKeys(c).length > 0);
    expect(edit?.rows).toEqual([...inEdit.map((c) => ({ keys: editHelpKeys(c), label: c.label })), ...EDITOR_KEYS]);
  });

  it("lists all of Notebook 6.4's shortcuts (45 command-mode keys, 25 edit-mode keys, and ours)", () => {
    const [command, edit] = shortcutHelp(COMMANDS);
    const keys = (rows: readonly { keys: readonly string[] }[] = []) => rows.flatMap((r) => r.keys);
    // https://github.com/jupyter/notebook/blob/6.4.x/notebook/static/notebook/js/keyboardmanager.js
    const notebook6Command = [
      'Shift-Enter',
      'Ctrl-Enter',
      'Alt-Enter',
      'Ctrl-S',
      'Ctrl-Shift-P',
      'Shift-Space',
      'Shift-V',
      'Shift-M',
      'Shift-O',
      'Enter',
      'Space',
      'Down',
      'I I',
      '0 0',
      'D D',
      'Esc',
      'Up',
      'K',
      'J',
      'Shift-K',
      'Shift-J',
      'Shift-Up',
      'Shift-Down',
      'X',
      'C',
      'V',
      'A',
      'B',
      'Y',
      'M',
      'R',
      '1',
      '2',
      '3',
      '4',
      '5',
      '6',
      'O',
      'S',
      'L',
      'H',
      'Z',
      'Q',
      'P',
      'Shift-L',
    ];
    // the same file's edit-mode keys, and quickhelp.js's CodeMirror keys (PC)
    const notebook6Edit = [
      'Shift-Enter',
      'Ctrl-Enter',
      'Alt-Enter',
      'Ctrl-Shift-P',
      'Esc',
      'Ctrl-M',
      'Up',
      'Down',
      'Ctrl-Shift-Minus',
      'Tab',
      'Shift-Tab',
      'Ctrl-]',
      'Ctrl-[',
      'Ctrl-A',
      'Ctrl-Z',
      'Ctrl-Shift-Z',
      'Ctrl-Y',
      'Ctrl-Home',
      'Ctrl-Up',
      'Ctrl-End',
      'Ctrl-Down',
      'Ctrl-Left',
      'Ctrl-Right',
      'Ctrl-Backspace',
      'Ctrl-Delete',
    ];
    expect(keys(command?.rows)).toEqual(expect.arrayContaining(notebook6Command));
    expect(keys(edit?.rows)).toEqual(expect.arrayContaining(notebook6Edit));
    expect(keys(command?.rows).length + keys(edit?.rows).length).toBe(75);
  });

  it('binds every key of every command to that command, and nothing else', () => {
    const { single, double, anywhere } = keyBindings(COMMANDS);
    const bound = new Map<string, Set<string>>();
    const add = (id: string, name: string) => bound.set(id, new Set([...(bound.get(id) ?? []), name]));
    for (const [name, id] of single) add(id, name);
    for (const [name, id] of double) add(id, `${name} ${name}`);
    for (const [name, id] of anywhere) add(id, `Ctrl-${name}`);
    expect([...bound.keys()].sort()).toEqual(withKeys.map((c) => c.id).sort());
    for (const c of withKeys) {
      for (const key of c.keys ?? []) {
        const [first, second] = key.split(' ') as [string, string?];
        const names = eventKeyNames(first);
        if (second) for (const n of names) expect(double.get(n)).toBe(c.id);
        else if (c.anywhere && key.startsWith('Ctrl-'))
          expect(anywhere.get(first.slice('Ctrl-'.length).toLowerCase())).toBe(c.id);
        else for (const n of names) expect(single.get(n)).toBe(c.id);
      }
    }
  });

  it('keeps the classic notebook key map', () => {
    const { single, double, anywhere } = keyBindings(COMMANDS);
    expect(Object.fromEntries(single)).toEqual({
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
      'Ctrl-z': 'undo-delete',
      'Meta-z': 'undo-delete',
      y: 'to-code',
      m: 'to-markdown',
      r: 'to-raw',
      ArrowUp: 'select-previous',
      k: 'select-previous',
      ArrowDown: 'select-next',
      j: 'select-next',
      'Shift-K': 'extend-previous',
      'Shift-ArrowUp': 'extend-previous',
      'Shift-J': 'extend-next',
      'Shift-ArrowDown': 'extend-next',
      'Shift-M': 'merge-cells',
      s: 'save',
      h: 'show-shortcuts',
      f: 'find-replace',
      l: 'toggle-line-numbers',
      'Shift-L': 'toggle-all-line-numbers',
      o: 'toggle-output',
      'Shift-O': 'toggle-output-scroll',
      p: 'command-palette',
      'Ctrl-Shift-P': 'command-palette',
      'Meta-Shift-P': 'command-palette',
      '1': 'heading-1',
      '2': 'heading-2',
      '3': 'heading-3',
      '4': 'heading-4',
      '5': 'heading-5',
      '6': 'heading-6',
      ' ': 'scroll-down',
      'Shift- ': 'scroll-up',
      q: 'close-pager',
      Escape: 'close-pager',
    });
    expect(Object.fromEntries(double)).toEqual({ d: 'delete-cell', i: 'interrupt', '0': 'restart' });
    expect(Object.fromEntries(anywhere)).toEqual({ s: 'save', f: 'find-replace' });
  });

  it('binds the run keys in the cell editor too, and runs the command through the registry', () => {
    const { registry, ran } = recordingRegistry();
    const keys = editorCommandKeys(COMMANDS, (id) => registry.run(id));
    expect(keys.map((k) => k.key)).toEqual([
      'Mod-Shift--',
      'Mod-Shift-p',
      'Mod-Enter',
      'Shift-Enter',
      'Alt-Enter',
      'Escape',
      'Mod-m',
    ]);
    for (const k of keys) expect(k.run?.(undefined as never)).toBe(true);
    expect(ran).toEqual([
      'split-cell',
      'command-palette',
      'run-cell',
      'run-and-select-next',
      'run-and-insert-below',
      'command-mode',
      'command-mode',
    ]);
    expect(editorKeyName('Up')).toBe('ArrowUp');
    expect(editorKeyName('Shift-Space')).toBe('Shift-Space');
  });

  it('builds every menu from registered commands, each command with a menu place exactly once', () => {
    const { registry, ran } = recordingRegistry();
    const menus = menuSections(registry.specs);
    expect([...menus.keys()]).toEqual([...MENUS]);
    const listed = [...menus.values()].flat(2);
    for (const id of listed) registry.run(id);
    expect(ran).toEqual(listed);
    expect(listed.sort()).toEqual(
      specs
        .filter((c) => c.menu)
        .map((c) => c.id)
        .sort(),
    );
    for (const sections of menus.values()) for (const s of sections) expect(s.length).toBeGreaterThan(0);
  });

  it('keeps the menus of the page as they were', () => {
    const shown = (name: (typeof MENUS)[number]) =>
      (menuSections(COMMANDS).get(name) ?? []).flatMap((s, i) => (i === 0 ? s : ['-', ...s]));
    expect(shown('File')).toEqual([
      'new-notebook',
      'open',
      '-',
      'save',
      'revert',
      'rename',
      '-',
      'download-ipynb',
      'download-script',
      'download-html',
      'print',
      '-',
      'trust',
      'close-halt',
    ]);
    expect(shown('Edit')).toEqual([
      'cut-cell',
      'copy-cell',
      'paste-below',
      'paste-above',
      'delete-cell',
      'undo-delete',
      '-',
      'move-up',
      'move-down',
      'merge-cells',
      'split-cell',
      '-',
      'find-replace',
    ]);
    expect(shown('View')).toEqual([
      'toggle-line-numbers',
      'toggle-all-line-numbers',
      'toggle-output',
      'toggle-output-scroll',
      '-',
      'toggle-toc',
      'toggle-theme',
      'command-palette',
    ]);
    expect(shown('Cell')).toEqual([
      'run-cell',
      'run-and-select-next',
      'run-and-insert-below',
      'run-all',
      'run-above',
      'run-below',
      '-',
      'to-code',
      'to-markdown',
      'to-raw',
      '-',
      'clear-all',
    ]);
    expect(shown('Kernel')).toEqual([
      'interrupt',
      'restart',
      'restart-clear',
      'restart-run-all',
      '-',
      'shutdown-kernel',
    ]);
    expect(shown('Help')).toEqual(['show-shortcuts']);
  });

  it('names only registered commands in the toolbar', () => {
    const ids = new Set<string>(COMMANDS.map((c) => c.id));
    for (const [id] of TOOLBAR) expect(ids.has(id)).toBe(true);
  });

  it('refuses a table that gives one key to two commands, or a key it cannot read', () => {
    const table = (keys: string[][]): CommandSpec[] => keys.map((k, i) => ({ id: `c${i}`, label: `C${i}`, keys: k }));
    expect(() => keyBindings(table([['A'], ['A']]))).toThrow(/bound to both c0 and c1/);
    expect(() => keyBindings(table([['D D'], ['D']]))).toThrow(/bound to both/);
    expect(() => keyBindings(table([['Ctrl-Enter'], ['Ctrl-Enter']]))).toThrow(/bound to both/);
    expect(() => keyBindings(table([['Hyper-A']]))).toThrow(/unknown modifier/);
    expect(() => keyBindings(table([['A B']]))).toThrow(/same key twice/);
    expect(eventKeyNames('Ctrl-S')).toEqual(['Ctrl-s', 'Meta-s']);
  });
});
