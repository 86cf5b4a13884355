import { h } from '../lib/dom.js';
import type { Notebook } from './document.js';

export interface Heading {
  level: number;
  text: string;
  /** Index of the markdown cell it is in. */
  cell: number;
}

/** The ATX headings (`# …` to `###### …`) of markdown sources, outside fenced code. */
export function headings(sources: readonly { type: string; text: string }[]): Heading[] {
  const out: Heading[] = [];
  for (const [cell, { type, text }] of sources.entries()) {
    if (type !== 'markdown') continue;
    let fenced = false;
    for (const line of text.split('\n')) {
      if (/^\s{0,3}(```|~~~)/.test(line)) fenced = !fenced;
      const m = fenced ? null : /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
      if (m) out.push({ level: (m[1] as string).length, text: (m[2] as string).replace(/[*_`]/g, ''), cell });
    }
  }
  return out;
}

/** A side panel listing the notebook's markdown headings; a click jumps to the section. */
export class TableOfContents {
  readonly element = h('nav', { className: 'toc', 'aria-label': 'Table of contents', hidden: true });
  private readonly list = h('ol', { className: 'toc-list' });
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly observer = new MutationObserver(() => {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.refresh(), 300);
  });

  constructor(private readonly nb: Notebook) {
    this.element.append(h('h2', {}, 'Contents'), this.list);
    document.body.append(this.element);
  }

  toggle(): void {
    this.element.hidden = !this.element.hidden;
    document.body.classList.toggle('with-toc', !this.element.hidden);
    if (this.element.hidden) {
      this.observer.disconnect();
      return;
    }
    this.refresh();
    // cells added, removed, edited or rendered
    this.observer.observe(this.nb.element, { childList: true, subtree: true, characterData: true });
  }

  refresh(): void {
    const found = headings(this.nb.cells.map((c) => ({ type: c.type, text: c.text })));
    this.list.replaceChildren(
      ...found.map((hd) =>
        h(
          'li',
          { className: `toc-item toc-h${hd.level}` },
          h('a', { href: '#', onclick: (e: Event) => this.jump(e, hd.cell) }, hd.text || '(empty heading)'),
        ),
      ),
    );
    if (found.length === 0) this.list.append(h('li', { className: 'toc-empty' }, 'No markdown headings'));
  }

  private jump(e: Event, cell: number): void {
    e.preventDefault();
    this.nb.select(cell, false);
    this.nb.enterCommand();
    const target = this.nb.cells[cell]?.element;
    target?.scrollIntoView({ block: 'start' });
    // cells above rendered on the way (content-visibility) may have moved it: once more
    requestAnimationFrame(() => target?.scrollIntoView({ block: 'start' }));
  }
}
