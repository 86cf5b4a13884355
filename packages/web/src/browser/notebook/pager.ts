import { h } from '../lib/dom.js';
import { ansiHtml } from './render-mime.js';

/** The documentation pager (Shift-Tab, `?`): kernel text with ANSI colours; the page places it in the body. */
export class Pager {
  readonly element = h('div', { className: 'pager', hidden: true, role: 'dialog', 'aria-label': 'Inspector' });
  private readonly body = h('pre', { className: 'pager-body' });

  constructor() {
    this.element.append(
      h(
        'button',
        { type: 'button', className: 'pager-close', 'aria-label': 'Close', onclick: () => this.close() },
        '×',
      ),
      this.body,
    );
  }

  show(text: string): void {
    this.body.innerHTML = ansiHtml(text);
    this.element.hidden = false;
  }

  /** Closes the pager; false if it was not open. */
  close(): boolean {
    if (this.element.hidden) return false;
    this.element.hidden = true;
    return true;
  }
}
