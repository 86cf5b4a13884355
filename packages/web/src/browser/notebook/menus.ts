import { h } from '../lib/dom.js';
import { type CommandId, type CommandRegistry, type CommandSpec, MENUS, type MenuName } from './commands.js';

/** Each menu's commands from the command table: its sections, each in table order. */
export function menuSections(specs: readonly CommandSpec[]): Map<MenuName, CommandId[][]> {
  const menus = new Map<MenuName, CommandId[][]>();
  for (const menu of MENUS) {
    const sections: CommandId[][] = [];
    for (const spec of specs) {
      if (spec.menu?.[0] !== menu) continue;
      const section = spec.menu[1];
      sections[section] = [...(sections[section] ?? []), spec.id as CommandId];
    }
    menus.set(
      menu,
      sections.filter((s) => s !== undefined),
    );
  }
  return menus;
}

/**
 * The menu bar: one drop-down per menu, items labelled with the command's first key.
 * `extra` adds elements to the end of a menu, after a rule (the Kernel menu's list of kernels).
 */
export function renderMenuBar(commands: CommandRegistry, extra: Partial<Record<MenuName, Node[]>> = {}): HTMLElement {
  const bar = h('nav', { className: 'menubar' });
  const closeAll = (except?: HTMLElement) => {
    for (const m of bar.querySelectorAll<HTMLElement>('.menu')) if (m !== except) m.hidden = true;
  };
  document.addEventListener('click', () => closeAll());
  for (const [name, sections] of menuSections(commands.specs)) {
    const list = h('div', { className: 'menu', role: 'menu', hidden: true });
    for (const [i, ids] of sections.entries()) {
      if (i > 0) list.append(h('hr'));
      for (const id of ids) list.append(menuItem(commands, id, list));
    }
    const more = extra[name];
    if (more) list.append(h('hr'), ...more);
    const button = h('button', { type: 'button', className: 'menu-button', 'data-menu': name.toLowerCase() }, name);
    button.addEventListener('click', (e) => {
      e.stopPropagation();
      closeAll(list);
      list.hidden = !list.hidden;
    });
    bar.append(h('div', { className: 'menu-wrap' }, button, list));
  }
  return bar;
}

function menuItem(commands: CommandRegistry, id: CommandId, list: HTMLElement): HTMLElement {
  const { label, keys } = commands.get(id);
  return h(
    'button',
    {
      type: 'button',
      className: 'menu-item',
      role: 'menuitem',
      'data-command': id,
      onclick: () => {
        list.hidden = true;
        commands.run(id);
      },
    },
    h('span', {}, label),
    keys?.[0] ? h('kbd', {}, keys[0]) : null,
  );
}
