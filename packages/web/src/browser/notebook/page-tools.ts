import { toggleTheme } from '../lib/theme.js';
import { mergeCells, scrollNotebook, splitCell, toggleLineNumbers, toggleOutput, toHeading } from './cell-ops.js';
import type { CommandActions, CommandRegistry } from './commands.js';
import type { Notebook } from './document.js';
import { FindPanel } from './find.js';
import { showPalette } from './palette.js';
import { TableOfContents } from './toc.js';

type ToolId =
  | 'merge-cells'
  | 'split-cell'
  | 'find-replace'
  | 'toggle-line-numbers'
  | 'toggle-all-line-numbers'
  | 'toggle-output'
  | 'toggle-output-scroll'
  | 'toggle-toc'
  | 'toggle-theme'
  | 'command-palette'
  | 'extend-previous'
  | 'extend-next'
  | 'heading-1'
  | 'heading-2'
  | 'heading-3'
  | 'heading-4'
  | 'heading-5'
  | 'heading-6'
  | 'scroll-down'
  | 'scroll-up'
  | 'close-pager'
  | 'command-mode';

/**
 * The actions of the commands beyond the basic editing of document.ts: selection, merge/split,
 * view toggles, find/replace, the palette, the table of contents and the theme. The find panel
 * and the table of contents are placed in the page when first opened.
 */
export function pageToolActions(nb: Notebook, commands: () => CommandRegistry): Pick<CommandActions, ToolId> {
  let find: FindPanel | undefined;
  let toc: TableOfContents | undefined;
  const heading = (level: number) => () => toHeading(nb, level);
  return {
    'merge-cells': () => mergeCells(nb),
    'split-cell': () => splitCell(nb),
    'find-replace': () => {
      if (!find) {
        find = new FindPanel(nb);
        document.body.append(find.element);
      }
      find.open();
    },
    'toggle-line-numbers': () => toggleLineNumbers(nb, false),
    'toggle-all-line-numbers': () => toggleLineNumbers(nb, true),
    'toggle-output': () => toggleOutput(nb, 'collapsed'),
    'toggle-output-scroll': () => toggleOutput(nb, 'scrolled'),
    'toggle-toc': () => {
      toc ??= new TableOfContents(nb);
      toc.toggle();
    },
    'toggle-theme': () => void toggleTheme(),
    'command-palette': () => showPalette(commands(), () => nb.enterCommand()),
    'extend-previous': () => nb.select(nb.selected - 1, true, true),
    'extend-next': () => nb.select(nb.selected + 1, true, true),
    'heading-1': heading(1),
    'heading-2': heading(2),
    'heading-3': heading(3),
    'heading-4': heading(4),
    'heading-5': heading(5),
    'heading-6': heading(6),
    'scroll-down': () => scrollNotebook(nb, 1),
    'scroll-up': () => scrollNotebook(nb, -1),
    'close-pager': () => void nb.pager.close(),
    'command-mode': () => {
      if (!nb.pager.close()) nb.enterCommand();
    },
  };
}
