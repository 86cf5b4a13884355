import { cursorDocEnd, cursorDocStart } from '@codemirror/commands';
import type { KeyBinding } from '@codemirror/view';
import type { EditorHooks } from './cell-codemirror.js';
import { editorCommandKeys } from './command-keys.js';
import { COMMANDS, type CommandId } from './commands.js';
import type { KernelConnection } from './kernel.js';
import { complete, inspect } from './kernel-completion.js';
import type { Pager } from './pager.js';

/** The cells the arrow keys move the editing between. */
export interface CellNavigation {
  readonly selected: number;
  readonly cells: readonly { cursorAtStart(): boolean; cursorAtEnd(): boolean }[];
  select(index: number): void;
  enterEdit(): void;
}

/** What the cell editor needs of the notebook: moving between cells, the kernel and the pager. */
export interface CellEditorContext extends CellNavigation {
  readonly kernel: Pick<KernelConnection, 'ask'>;
  readonly pager: Pick<Pager, 'show'>;
}

/**
 * What every cell's CodeMirror editor gets from the notebook: the run keys of the command
 * table, leaving edit mode and moving between cells, and completion and inspection by the kernel.
 */
export function cellEditorSupport(
  nb: CellEditorContext,
  runCommand: (id: CommandId) => void,
): Pick<EditorHooks, 'keys' | 'complete' | 'inspect'> {
  return {
    keys: [...editorCommandKeys(COMMANDS, runCommand), ...movementKeys(nb)],
    complete: (code, cursor) => complete(nb.kernel, code, cursor),
    inspect: (code, cursor) => inspect(nb.kernel, nb.pager, code, cursor),
  };
}

function movementKeys(nav: CellNavigation): KeyBinding[] {
  return [
    { key: 'Mod-ArrowUp', run: cursorDocStart },
    { key: 'Mod-ArrowDown', run: cursorDocEnd },
    {
      key: 'ArrowUp',
      run: () => {
        const cell = nav.cells[nav.selected];
        if (!cell?.cursorAtStart() || nav.selected === 0) return false;
        nav.select(nav.selected - 1);
        nav.enterEdit();
        return true;
      },
    },
    {
      key: 'ArrowDown',
      run: () => {
        const cell = nav.cells[nav.selected];
        if (!cell?.cursorAtEnd() || nav.selected === nav.cells.length - 1) return false;
        nav.select(nav.selected + 1);
        nav.enterEdit();
        return true;
      },
    },
  ];
}
