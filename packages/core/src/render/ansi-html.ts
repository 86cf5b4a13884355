import { AnsiUp } from 'ansi_up';
import { escapeHtml } from '../html/escape.js';

/**
 * Terminal text (a stream, a traceback, `text/plain`) to escaped HTML, the one ANSI path of the
 * export, the print view and the page. ansi_up parses SGR colours (16, 256, truecolor), bold and
 * underline and drops every other escape. `classes: true` writes `ansi-red-fg`-style classes for
 * the 16 named colours (a page whose stylesheet defines them); `false` writes inline styles only
 * (a page that must stand alone). 256-colour and truecolor are inline styles either way.
 */
export function ansiToHtml(text: string, options: { classes: boolean } = { classes: false }): string {
  // Most output has no escape codes: plain escaping is far cheaper than ansi_up's parser.
  if (!text.includes('\u001b')) return escapeHtml(text);
  // A new converter per text: ansi_up carries the open colour over from one call to the next.
  const ansi = new AnsiUp();
  ansi.use_classes = options.classes;
  return ansi.ansi_to_html(text);
}
