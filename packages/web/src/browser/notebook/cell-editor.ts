import { cursorDocEnd, cursorDocStart } from '@codemirror/commands';
import type { KeyBinding } from '@codemirror/view';
import { toast } from '../lib/dom.js';
import { type EditorHooks, fromCodePoints, toCodePoints } from './cell-codemirror.js';
import { editorCommandKeys } from './command-keys.js';
import { COMMANDS, type CommandId } from './commands.js';
import type { Notebook } from './document.js';

/** How long completion and inspection wait for the kernel. */
const ASK_TIMEOUT_MS = 5000;

/**
 * What every cell's CodeMirror editor gets from the notebook: the run keys of the command
 * table, leaving edit mode and moving between cells, and completion and inspection by the kernel.
 */
export function cellEditorSupport(
  nb: Notebook,
  runCommand: (id: CommandId) => void,
): Pick<EditorHooks, 'keys' | 'complete' | 'inspect'> {
  return {
    keys: [...editorCommandKeys(COMMANDS, runCommand), ...movementKeys(nb)],
    complete: (code, cursor) => complete(nb, code, cursor),
    inspect: (code, cursor) => inspect(nb, code, cursor),
  };
}

function movementKeys(nb: Notebook): KeyBinding[] {
  return [
    { key: 'Mod-ArrowUp', run: cursorDocStart },
    { key: 'Mod-ArrowDown', run: cursorDocEnd },
    {
      key: 'ArrowUp',
      run: () => {
        const cell = nb.selectedCell;
        if (!cell?.cursorAtStart() || nb.selected === 0) return false;
        nb.select(nb.selected - 1);
        nb.enterEdit();
        return true;
      },
    },
    {
      key: 'ArrowDown',
      run: () => {
        const cell = nb.selectedCell;
        if (!cell?.cursorAtEnd() || nb.selected === nb.cells.length - 1) return false;
        nb.select(nb.selected + 1);
        nb.enterEdit();
        return true;
      },
    },
  ];
}

async function complete(
  nb: Notebook,
  code: string,
  cursor: number,
): Promise<{ from: number; to: number; matches: string[] } | undefined> {
  try {
    const reply = await nb.kernel.ask(
      'complete_request',
      { code, cursor_pos: toCodePoints(code, cursor) },
      ASK_TIMEOUT_MS,
    );
    if (reply.status !== 'ok') return undefined;
    const matches = Array.isArray(reply.matches) ? (reply.matches as string[]) : [];
    return {
      from: fromCodePoints(code, Number(reply.cursor_start ?? cursor)),
      to: fromCodePoints(code, Number(reply.cursor_end ?? cursor)),
      matches,
    };
  } catch {
    return undefined;
  }
}

function inspect(nb: Notebook, code: string, cursor: number): void {
  void nb.kernel
    .ask('inspect_request', { code, cursor_pos: toCodePoints(code, cursor), detail_level: 0 }, ASK_TIMEOUT_MS)
    .then((reply) => {
      const data = (reply.data ?? {}) as Record<string, string>;
      if (reply.status === 'ok' && reply.found && data['text/plain']) nb.pager.show(data['text/plain']);
      else toast('No documentation found');
    })
    .catch(() => toast('The kernel did not answer the inspection request', 'error'));
}
