import { h } from '../lib/dom.js';
import type { CommandId, CommandRegistry } from './commands.js';

/**
 * The command palette (P, Ctrl-Shift-P): every command of the table, filtered by what is typed;
 * Enter (or a click) runs the highlighted one, Up/Down move, Esc closes.
 */
export function showPalette(commands: CommandRegistry, onClose: () => void): void {
  const input = h('input', {
    type: 'search',
    className: 'palette-input',
    placeholder: 'Search commands',
    'aria-label': 'Search commands',
  });
  const list = h('ul', { className: 'palette-list', role: 'listbox' });
  const dialog = h('dialog', { className: 'modal palette', 'aria-label': 'Command palette' }, input, list);
  let shown: CommandId[] = [];
  let active = 0;
  const close = () => {
    dialog.close();
    dialog.remove();
    onClose();
  };
  const run = (id: CommandId | undefined) => {
    if (!id) return;
    close();
    commands.run(id);
  };
  const render = () => {
    const words = input.value.toLowerCase().split(/\s+/).filter(Boolean);
    shown = commands.specs
      .filter((s) => s.id !== 'command-palette')
      .filter((s) => words.every((w) => `${s.label} ${s.id}`.toLowerCase().includes(w)))
      .map((s) => s.id as CommandId);
    active = Math.min(active, Math.max(0, shown.length - 1));
    list.replaceChildren(
      ...shown.map((id, i) => {
        const { label, keys } = commands.get(id);
        return h(
          'li',
          {
            className: `palette-item${i === active ? ' active' : ''}`,
            role: 'option',
            'aria-selected': String(i === active),
            'data-command': id,
            onclick: () => run(id),
          },
          h('span', {}, label),
          keys?.[0] ? h('kbd', {}, keys[0]) : null,
        );
      }),
    );
    list.children[active]?.scrollIntoView({ block: 'nearest' });
  };
  input.addEventListener('input', () => {
    active = 0;
    render();
  });
  input.addEventListener('keydown', (e) => {
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      active = Math.max(0, Math.min(shown.length - 1, active + (e.key === 'ArrowDown' ? 1 : -1)));
      render();
    } else if (e.key === 'Enter') {
      e.preventDefault();
      run(shown[active]);
    }
  });
  dialog.addEventListener('cancel', (e) => {
    e.preventDefault();
    close();
  });
  document.body.append(dialog);
  render();
  dialog.showModal();
  input.focus();
}
