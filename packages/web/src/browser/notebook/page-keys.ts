import { keyBindings } from './command-keys.js';
import type { CommandRegistry } from './commands.js';

/** Two presses of a double key (D D, I I, 0 0) count within this time. */
const DOUBLE_KEY_MS = 800;

/** `Ctrl-Shift-V`-style name of a key event, as `eventKeyNames` gives them. */
function keyName(e: KeyboardEvent): string {
  const mods = `${e.ctrlKey ? 'Ctrl-' : ''}${e.metaKey ? 'Meta-' : ''}${e.altKey ? 'Alt-' : ''}${e.shiftKey ? 'Shift-' : ''}`;
  const key =
    e.key.length === 1 && !e.shiftKey ? e.key.toLowerCase() : e.key.length === 1 ? e.key.toUpperCase() : e.key;
  return mods + key;
}

/** What the command-mode keys need of the notebook: its mode, the way back to it, the pager. */
export interface CommandKeysTarget {
  readonly mode: 'command' | 'edit';
  enterCommand(): void;
  /** Escape closes the documentation pager first; `close` says whether it was open. */
  readonly pager: { close(): boolean };
}

/** The classic notebook's command-mode keys, on the whole page. */
export function installCommandKeys(notebook: CommandKeysTarget, commands: CommandRegistry): void {
  const { single, double, anywhere } = keyBindings(commands.specs);
  let pendingKey = '';
  let pendingAt = 0;
  document.addEventListener('keydown', (e) => {
    // Ctrl-S saves in both modes, and never opens the browser's "save page" dialog.
    const everywhere = e.ctrlKey || e.metaKey ? anywhere.get(e.key.toLowerCase()) : undefined;
    if (everywhere) {
      e.preventDefault();
      commands.run(everywhere);
      return;
    }
    const target = e.target as HTMLElement;
    if (e.key === 'Escape' && target.classList.contains('stdin-input')) {
      notebook.enterCommand(); // leave an input() prompt, e.g. to interrupt with I I
      return;
    }
    if (target.closest('input,textarea,select,dialog,.cm-editor,.widget-area')) return;
    if (e.key === 'Escape') {
      // Also the way back to command mode when focus left the editor (a menu, the page).
      if (!notebook.pager.close()) notebook.enterCommand();
      return;
    }
    if (notebook.mode === 'edit') return;
    const name = keyName(e);
    // The browser's own redo would edit a cell's text that is not even selected (as Ctrl-Z did).
    if (/^(Ctrl|Meta)-(y|Shift-Z)$/.test(name)) e.preventDefault();
    const twice = double.get(name);
    if (twice) {
      e.preventDefault();
      const now = Date.now();
      if (pendingKey === name && now - pendingAt < DOUBLE_KEY_MS) {
        pendingKey = '';
        commands.run(twice);
      } else {
        pendingKey = name;
        pendingAt = now;
      }
      return;
    }
    pendingKey = '';
    const id = single.get(name);
    if (id) {
      e.preventDefault();
      commands.run(id);
    }
  });
}
