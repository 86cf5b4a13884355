import type { KeyBinding } from '@codemirror/view';
import type { CommandId, CommandSpec } from './commands.js';

/** Names in the table that differ from `KeyboardEvent.key`. */
const EVENT_KEYS: Record<string, string> = {
  Up: 'ArrowUp',
  Down: 'ArrowDown',
  Left: 'ArrowLeft',
  Right: 'ArrowRight',
  Esc: 'Escape',
  Space: ' ',
  Minus: '-',
};
const MODIFIERS = new Set(['Ctrl', 'Alt', 'Shift']);

/**
 * Keys of the cell editor (CodeMirror's own, and Tab/Shift-Tab in cell-codemirror.ts) that are not
 * commands of the table; the shortcut help lists them under edit mode, as Notebook 6.4 does.
 */
export const EDITOR_KEYS: readonly { readonly keys: readonly string[]; readonly label: string }[] = [
  { keys: ['Tab'], label: 'Code completion or indent' },
  { keys: ['Shift-Tab'], label: 'Show documentation' },
  { keys: ['Ctrl-]'], label: 'Indent' },
  { keys: ['Ctrl-['], label: 'Dedent' },
  { keys: ['Ctrl-A'], label: 'Select all' },
  { keys: ['Ctrl-Z'], label: 'Undo' },
  { keys: ['Ctrl-Shift-Z', 'Ctrl-Y'], label: 'Redo' },
  { keys: ['Ctrl-Home', 'Ctrl-Up'], label: 'Go to cell start' },
  { keys: ['Ctrl-End', 'Ctrl-Down'], label: 'Go to cell end' },
  { keys: ['Ctrl-Left'], label: 'Go one word left' },
  { keys: ['Ctrl-Right'], label: 'Go one word right' },
  { keys: ['Ctrl-Backspace'], label: 'Delete word before' },
  { keys: ['Ctrl-Delete'], label: 'Delete word after' },
  { keys: ['Up'], label: 'Move cursor up (to the cell above at the first line)' },
  { keys: ['Down'], label: 'Move cursor down (to the cell below at the last line)' },
];

/** The command-mode key bindings derived from the command table, by `keyName` of an event. */
export interface KeyBindings {
  single: ReadonlyMap<string, CommandId>;
  /** Keys pressed twice in a row. */
  double: ReadonlyMap<string, CommandId>;
  /** Ctrl (or ⌘) + a key, matched before the focus is looked at; by the lower-case key. */
  anywhere: ReadonlyMap<string, CommandId>;
}

function parseKey(key: string): { mods: Set<string>; base: string } {
  const parts = key.split('-');
  const base = parts.pop() ?? '';
  const mods = new Set(parts);
  for (const m of mods) if (!MODIFIERS.has(m)) throw new Error(`unknown modifier in key ${key}`);
  if (base === '') throw new Error(`no key in ${key}`);
  return { mods, base };
}

/** The `keyName`s one key of the table stands for: `Ctrl-Enter` is Ctrl-Enter and ⌘-Enter. */
export function eventKeyNames(key: string): string[] {
  const { mods, base } = parseKey(key);
  const name =
    base.length === 1 ? (mods.has('Shift') ? base.toUpperCase() : base.toLowerCase()) : (EVENT_KEYS[base] ?? base);
  const rest = `${mods.has('Alt') ? 'Alt-' : ''}${mods.has('Shift') ? 'Shift-' : ''}${name}`;
  return mods.has('Ctrl') ? [`Ctrl-${rest}`, `Meta-${rest}`] : [rest];
}

/** The same key in CodeMirror's notation (`Mod` is Ctrl, or ⌘ on a Mac). */
export function editorKeyName(key: string): string {
  const { mods, base } = parseKey(key);
  const name = base.length === 1 ? base.toLowerCase() : base === 'Space' ? 'Space' : (EVENT_KEYS[base] ?? base);
  return `${mods.has('Ctrl') ? 'Mod-' : ''}${mods.has('Alt') ? 'Alt-' : ''}${mods.has('Shift') ? 'Shift-' : ''}${name}`;
}

/** Derives the command-mode bindings; a key given to two commands is an error in the table. */
export function keyBindings(specs: readonly CommandSpec[]): KeyBindings {
  const single = new Map<string, CommandId>();
  const double = new Map<string, CommandId>();
  const anywhere = new Map<string, CommandId>();
  const bind = (map: Map<string, CommandId>, name: string, id: CommandId) => {
    // A double key must not also be a single one; Ctrl keys that work anywhere are their own set.
    const taken = map === anywhere ? anywhere.get(name) : (single.get(name) ?? double.get(name));
    if (taken) throw new Error(`key ${name} is bound to both ${taken} and ${id}`);
    map.set(name, id);
  };
  for (const spec of specs) {
    const id = spec.id as CommandId;
    for (const key of spec.keys ?? []) {
      const presses = key.split(' ');
      if (presses.length === 2 && presses[0] === presses[1]) {
        for (const name of eventKeyNames(presses[0] as string)) bind(double, name, id);
      } else if (presses.length !== 1) {
        throw new Error(`key ${key}: only one key, or the same key twice, is supported`);
      } else if (spec.anywhere && parseKey(key).mods.has('Ctrl')) {
        bind(anywhere, parseKey(key).base.toLowerCase(), id);
      } else {
        for (const name of eventKeyNames(key)) bind(single, name, id);
      }
    }
  }
  return { single, double, anywhere };
}

/** The keys a command has in edit mode: all of an `inEditor` command's, and its `editKeys`. */
export function editModeKeys(spec: CommandSpec): readonly string[] {
  return [...(spec.inEditor ? (spec.keys ?? []) : []), ...(spec.editKeys ?? [])];
}

/** The edit-mode keys of the commands, for the cell editor's keymap. */
export function editorCommandKeys(specs: readonly CommandSpec[], run: (id: CommandId) => void): KeyBinding[] {
  return specs.flatMap((spec) =>
    editModeKeys(spec).map((key) => ({
      key: editorKeyName(key),
      run: () => {
        run(spec.id as CommandId);
        return true;
      },
    })),
  );
}
