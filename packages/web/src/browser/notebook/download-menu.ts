import { api } from '../lib/api.js';
import { h } from '../lib/dom.js';

/**
 * The export formats offered beyond the File menu's own notebook, script and HTML downloads, in
 * the order of Notebook 6.4's "Download as" menu, with their labels. Only those the server
 * lists at `GET /api/nbconvert` are shown (nbconvert's need it installed; `pdf` needs LaTeX or
 * Chromium on the server).
 */
const MORE_FORMATS: readonly (readonly [string, string])[] = [
  ['slides', 'Reveal.js slides (.slides.html)'],
  ['markdown', 'Markdown (.md)'],
  ['rst', 'reST (.rst)'],
  ['latex', 'LaTeX (.tex)'],
  ['pdf', 'PDF (.pdf)'],
  ['asciidoc', 'AsciiDoc (.asciidoc)'],
];

/** "Download as ▸" in the File menu: a submenu of the other formats the server can export to. */
export function downloadSubmenu(download: (format: string) => void): HTMLElement[] {
  const list = h('div', { className: 'menu submenu', role: 'menu', hidden: true });
  const toggle = h(
    'button',
    { type: 'button', className: 'menu-item', 'data-command': 'download-as', hidden: true },
    'Download as ▸',
  );
  toggle.addEventListener('click', (e) => {
    e.stopPropagation();
    list.hidden = !list.hidden;
  });
  void api<Record<string, unknown>>('api/nbconvert')
    .then((formats) => {
      const items = MORE_FORMATS.filter(([format]) => format in formats).map(([format, label]) =>
        h(
          'button',
          {
            type: 'button',
            className: 'menu-item',
            role: 'menuitem',
            'data-format': format,
            onclick: () => {
              list.hidden = true;
              download(format);
            },
          },
          label,
        ),
      );
      list.replaceChildren(...items);
      toggle.hidden = items.length === 0;
    })
    .catch(() => undefined);
  return [toggle, list];
}
