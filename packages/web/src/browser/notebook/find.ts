import { h, toast } from '../lib/dom.js';
import type { Cell } from './cell.js';
import type { Notebook } from './document.js';

interface Match {
  cell: Cell;
  from: number;
  to: number;
  /** Found in the cell's output text: shown and counted, never replaced. */
  output: boolean;
}

/** Offsets of every occurrence of `query` in `text`. */
export function findAll(text: string, query: string, caseSensitive: boolean): number[] {
  if (query === '') return [];
  const hay = caseSensitive ? text : text.toLowerCase();
  const needle = caseSensitive ? query : query.toLowerCase();
  const found: number[] = [];
  for (let i = hay.indexOf(needle); i >= 0; i = hay.indexOf(needle, i + needle.length)) found.push(i);
  return found;
}

/**
 * Find and replace across all cells (Ctrl-F, F): code and markdown source, and optionally the
 * outputs' text; "1 of 2", next/previous (Enter, Shift-Enter), replace one, replace all.
 */
export class FindPanel {
  readonly element: HTMLElement;
  private readonly query = h('input', { type: 'search', className: 'find-query', 'aria-label': 'Find' });
  private readonly replacement = h('input', { type: 'text', className: 'find-replace', 'aria-label': 'Replace' });
  private readonly caseSensitive = h('input', { type: 'checkbox', className: 'find-case' });
  private readonly inOutputs = h('input', { type: 'checkbox', className: 'find-outputs' });
  private readonly count = h('span', { className: 'find-count', role: 'status' });
  private matches: Match[] = [];
  private current = -1;

  constructor(private readonly nb: Notebook) {
    const button = (label: string, cls: string, run: () => void, title = label) =>
      h('button', { type: 'button', className: `btn ${cls}`, title, 'aria-label': title, onclick: run }, label);
    this.element = h(
      'div',
      { className: 'find-panel', role: 'search', hidden: true },
      this.query,
      this.count,
      button('↑', 'find-previous', () => this.step(-1), 'Previous match'),
      button('↓', 'find-next', () => this.step(1), 'Next match'),
      h('label', { title: 'Match case' }, this.caseSensitive, 'Aa'),
      h('label', { title: 'Search outputs too' }, this.inOutputs, 'Outputs'),
      this.replacement,
      button('Replace', 'find-replace-one', () => this.replaceOne()),
      button('All', 'find-replace-all', () => this.replaceAll(), 'Replace all'),
      button('×', 'find-close', () => this.close(), 'Close'),
    );
    this.query.addEventListener('input', () => {
      this.current = -1;
      this.search();
      if (this.matches.length > 0) this.show(0);
    });
    for (const box of [this.caseSensitive, this.inOutputs]) box.addEventListener('change', () => this.search());
    this.element.addEventListener('keydown', (e) => {
      if (e.key === 'Escape') {
        e.preventDefault();
        this.close();
      } else if (e.key === 'Enter' && e.target === this.query) {
        e.preventDefault();
        this.step(e.shiftKey ? -1 : 1);
      } else if (e.key === 'Enter' && e.target === this.replacement) {
        e.preventDefault();
        this.replaceOne();
      }
    });
  }

  open(): void {
    this.element.hidden = false;
    this.query.focus();
    this.query.select();
    this.search();
  }

  close(): void {
    this.element.hidden = true;
    this.nb.enterCommand();
  }

  private search(): void {
    const query = this.query.value;
    const exact = this.caseSensitive.checked;
    this.matches = [];
    for (const cell of this.nb.cells) {
      for (const from of findAll(cell.text, query, exact))
        this.matches.push({ cell, from, to: from + query.length, output: false });
      const out = this.inOutputs.checked ? (cell.outputArea?.element.textContent ?? '') : '';
      for (const from of findAll(out, query, exact))
        this.matches.push({ cell, from, to: from + query.length, output: true });
    }
    if (this.current >= this.matches.length) this.current = this.matches.length - 1;
    this.showCount();
  }

  private showCount(): void {
    const n = this.matches.length;
    this.count.textContent = this.query.value === '' ? '' : n === 0 ? 'No matches' : `${this.current + 1} of ${n}`;
    if (this.current < 0 && n > 0) this.count.textContent = `${n} match${n === 1 ? '' : 'es'}`;
  }

  private step(delta: 1 | -1): void {
    this.search();
    const n = this.matches.length;
    if (n === 0) return;
    this.show(this.current < 0 ? (delta === 1 ? 0 : n - 1) : (this.current + delta + n) % n);
  }

  /** Selects the match's cell and, for a match in the source, the matched text in its editor. */
  private show(index: number): void {
    const match = this.matches[index];
    if (!match) return;
    this.current = index;
    this.showCount();
    const cellIndex = this.nb.cells.indexOf(match.cell);
    this.nb.select(cellIndex);
    if (match.output) {
      match.cell.outputArea?.element.scrollIntoView({ block: 'nearest' });
      return;
    }
    const view = match.cell.openEditor();
    view.dispatch({ selection: { anchor: match.from, head: match.to }, scrollIntoView: true });
    match.cell.element.scrollIntoView({ block: 'nearest' });
  }

  private replaceOne(): void {
    this.search();
    const match = this.matches[this.current] ?? this.matches.find((m) => !m.output);
    if (!match || match.output) return;
    const { cell, from, to } = match;
    this.nb.setCellText(cell, cell.text.slice(0, from) + this.replacement.value + cell.text.slice(to));
    this.nb.setDirty(true);
    const at = this.matches.indexOf(match);
    this.search();
    // the next match is the one that now has this one's place
    if (this.matches.length > 0) this.show(Math.min(at, this.matches.length - 1));
    else this.showCount();
  }

  private replaceAll(): void {
    const query = this.query.value;
    const exact = this.caseSensitive.checked;
    let replaced = 0;
    for (const cell of this.nb.cells) {
      const found = findAll(cell.text, query, exact);
      if (found.length === 0) continue;
      let text = '';
      let last = 0;
      for (const from of found) {
        text += cell.text.slice(last, from) + this.replacement.value;
        last = from + query.length;
      }
      this.nb.setCellText(cell, text + cell.text.slice(last));
      replaced += found.length;
    }
    if (replaced > 0) this.nb.setDirty(true);
    this.current = -1;
    this.search();
    toast(`Replaced ${replaced} match${replaced === 1 ? '' : 'es'}`);
  }
}
