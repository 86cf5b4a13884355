/** The menus of the notebook page, in menu-bar order. */
export const MENUS = ['File', 'Edit', 'View', 'Cell', 'Kernel', 'Help'] as const;
export type MenuName = (typeof MENUS)[number];

/**
 * A named user action. Its label, keys and menu place are written here once; the menus, the
 * toolbar, the key bindings and the shortcut help (H) are all derived from this table.
 */
export interface CommandSpec {
  readonly id: string;
  readonly label: string;
  /**
   * Command-mode keys as shown to the user: `A`, `Shift-V`, `Ctrl-Enter` (Ctrl, or ⌘ on a Mac),
   * `D D` (the key twice within 800 ms), `Up`. Menus show the first; the help lists them all.
   */
  readonly keys?: readonly string[];
  /** The keys also work while typing in a cell (edit mode). */
  readonly inEditor?: boolean;
  /** Keys that work only while typing in a cell (edit mode), in the same notation. */
  readonly editKeys?: readonly string[];
  /** Its Ctrl keys work wherever the focus is, and override the browser's own (Ctrl-S). */
  readonly anywhere?: boolean;
  /** The menu it is in, and the section of that menu (sections are separated by a rule). */
  readonly menu?: readonly [MenuName, number];
}

/** Every command of the notebook page. A menu lists its commands in this order. */
export const COMMANDS = [
  // File
  { id: 'new-notebook', label: 'New notebook', menu: ['File', 0] },
  { id: 'open', label: 'Open…', menu: ['File', 0] },
  { id: 'save', label: 'Save and checkpoint', keys: ['Ctrl-S', 'S'], anywhere: true, menu: ['File', 1] },
  { id: 'revert', label: 'Revert to checkpoint', menu: ['File', 1] },
  { id: 'rename', label: 'Rename…', menu: ['File', 1] },
  { id: 'download-ipynb', label: 'Download as notebook (.ipynb)', menu: ['File', 2] },
  { id: 'download-script', label: 'Download as script', menu: ['File', 2] },
  { id: 'download-html', label: 'Download as HTML', menu: ['File', 2] },
  { id: 'print', label: 'Print preview', menu: ['File', 2] },
  { id: 'trust', label: 'Trust notebook', menu: ['File', 3] },
  { id: 'close-halt', label: 'Close and halt', menu: ['File', 3] },
  // Edit
  { id: 'cut-cell', label: 'Cut cell', keys: ['X'], menu: ['Edit', 0] },
  { id: 'copy-cell', label: 'Copy cell', keys: ['C'], menu: ['Edit', 0] },
  { id: 'paste-below', label: 'Paste cell below', keys: ['V'], menu: ['Edit', 0] },
  { id: 'paste-above', label: 'Paste cell above', keys: ['Shift-V'], menu: ['Edit', 0] },
  { id: 'delete-cell', label: 'Delete cell', keys: ['D D'], menu: ['Edit', 0] },
  // Ctrl-Z too: in command mode the browser's own undo would edit a cell that is not selected.
  { id: 'undo-delete', label: 'Undo cell deletion', keys: ['Z', 'Ctrl-Z'], menu: ['Edit', 0] },
  { id: 'move-up', label: 'Move cells up', menu: ['Edit', 1] },
  { id: 'move-down', label: 'Move cells down', menu: ['Edit', 1] },
  { id: 'merge-cells', label: 'Merge selected cells', keys: ['Shift-M'], menu: ['Edit', 1] },
  { id: 'split-cell', label: 'Split cell at cursor', editKeys: ['Ctrl-Shift-Minus'], menu: ['Edit', 1] },
  { id: 'find-replace', label: 'Find and replace', keys: ['F', 'Ctrl-F'], anywhere: true, menu: ['Edit', 2] },
  // View
  { id: 'toggle-line-numbers', label: 'Toggle line numbers', keys: ['L'], menu: ['View', 0] },
  { id: 'toggle-all-line-numbers', label: 'Toggle all line numbers', keys: ['Shift-L'], menu: ['View', 0] },
  { id: 'toggle-output', label: 'Toggle output', keys: ['O'], menu: ['View', 0] },
  { id: 'toggle-output-scroll', label: 'Toggle output scrolling', keys: ['Shift-O'], menu: ['View', 0] },
  { id: 'toggle-toc', label: 'Table of contents', menu: ['View', 1] },
  { id: 'toggle-theme', label: 'Dark theme', menu: ['View', 1] },
  {
    id: 'command-palette',
    label: 'Command palette',
    keys: ['P', 'Ctrl-Shift-P'],
    editKeys: ['Ctrl-Shift-P'],
    menu: ['View', 1],
  },
  // Cell
  { id: 'run-cell', label: 'Run cell', keys: ['Ctrl-Enter'], inEditor: true, menu: ['Cell', 0] },
  {
    id: 'run-and-select-next',
    label: 'Run cell and select below',
    keys: ['Shift-Enter'],
    inEditor: true,
    menu: ['Cell', 0],
  },
  {
    id: 'run-and-insert-below',
    label: 'Run cell and insert below',
    keys: ['Alt-Enter'],
    inEditor: true,
    menu: ['Cell', 0],
  },
  { id: 'run-all', label: 'Run all', menu: ['Cell', 0] },
  { id: 'run-above', label: 'Run all above', menu: ['Cell', 0] },
  { id: 'run-below', label: 'Run selected and below', menu: ['Cell', 0] },
  { id: 'to-code', label: 'Cell type: code', keys: ['Y'], menu: ['Cell', 1] },
  { id: 'to-markdown', label: 'Cell type: markdown', keys: ['M'], menu: ['Cell', 1] },
  { id: 'to-raw', label: 'Cell type: raw', keys: ['R'], menu: ['Cell', 1] },
  { id: 'clear-all', label: 'Clear all outputs', menu: ['Cell', 2] },
  // Kernel (the menu also lists the kernels to change to)
  { id: 'interrupt', label: 'Interrupt', keys: ['I I'], menu: ['Kernel', 0] },
  { id: 'restart', label: 'Restart', keys: ['0 0'], menu: ['Kernel', 0] },
  { id: 'restart-clear', label: 'Restart & clear output', menu: ['Kernel', 0] },
  { id: 'restart-run-all', label: 'Restart & run all', menu: ['Kernel', 0] },
  { id: 'shutdown-kernel', label: 'Shut down kernel', menu: ['Kernel', 1] },
  // Help
  { id: 'show-shortcuts', label: 'Keyboard shortcuts', keys: ['H'], menu: ['Help', 0] },
  // Keys and toolbar only
  { id: 'edit-cell', label: 'Edit cell', keys: ['Enter'] },
  { id: 'insert-above', label: 'Insert cell above', keys: ['A'] },
  { id: 'insert-below', label: 'Insert cell below', keys: ['B'] },
  { id: 'select-previous', label: 'Select previous cell', keys: ['Up', 'K'] },
  { id: 'select-next', label: 'Select next cell', keys: ['Down', 'J'] },
  { id: 'extend-previous', label: 'Extend selection above', keys: ['Shift-K', 'Shift-Up'] },
  { id: 'extend-next', label: 'Extend selection below', keys: ['Shift-J', 'Shift-Down'] },
  { id: 'heading-1', label: 'Cell type: heading 1', keys: ['1'] },
  { id: 'heading-2', label: 'Cell type: heading 2', keys: ['2'] },
  { id: 'heading-3', label: 'Cell type: heading 3', keys: ['3'] },
  { id: 'heading-4', label: 'Cell type: heading 4', keys: ['4'] },
  { id: 'heading-5', label: 'Cell type: heading 5', keys: ['5'] },
  { id: 'heading-6', label: 'Cell type: heading 6', keys: ['6'] },
  { id: 'scroll-down', label: 'Scroll notebook down', keys: ['Space'] },
  { id: 'scroll-up', label: 'Scroll notebook up', keys: ['Shift-Space'] },
  { id: 'close-pager', label: 'Close pager', keys: ['Q', 'Esc'] },
  { id: 'command-mode', label: 'Command mode', editKeys: ['Esc', 'Ctrl-M'] },
] as const satisfies readonly CommandSpec[];

export type CommandId = (typeof COMMANDS)[number]['id'];

/** What each command does; the page supplies one action for every command in the table. */
export type CommandActions = Readonly<Record<CommandId, () => void | Promise<void>>>;

/** The commands, their actions, and the one way to run them (errors become an error toast). */
export class CommandRegistry {
  readonly specs: readonly CommandSpec[] = COMMANDS;
  private readonly byId = new Map<string, CommandSpec>(COMMANDS.map((c) => [c.id, c]));

  constructor(private readonly actions: CommandActions) {}

  get(id: CommandId): CommandSpec {
    return this.byId.get(id) as CommandSpec;
  }

  run(id: CommandId): void {
    void Promise.resolve(this.actions[id]()).catch((e: unknown) => {
      window.dispatchEvent(new CustomEvent('nbserve-error', { detail: e instanceof Error ? e.message : String(e) }));
    });
  }
}
