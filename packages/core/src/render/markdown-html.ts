import { Marked, type Tokens } from 'marked';
import { escapeHtml } from '../html/escape.js';
import { type Attachments, type ImagePolicy, imageUrl, linkUrl } from './markdown-urls.js';
import { extractMath, restoreMath } from './math.js';
import { type MathOutput, renderMath } from './math-html.js';
import { neutralizeHtml } from './neutralize.js';

export type { Attachments, ImagePolicy } from './markdown-urls.js';
export { type MathOutput, renderLatex } from './math-html.js';

/**
 * Raw HTML in markdown: `neutralize` escapes only the tags that could navigate, load or run
 * something (an export, whose own CSP blocks scripts and handlers); `escape` shows all of it as
 * text (the server's print view); `{ sanitize }` keeps it for a sanitizer that then cleans the
 * whole rendered HTML (the page, with DOMPurify). Raw HTML is never kept unsanitized.
 */
export type RawHtmlPolicy = 'neutralize' | 'escape' | { sanitize: (html: string) => string };

/**
 * A link or image whose URL is refused: `text` shows the link's text or the image's alt text (an
 * export: a saved page has no dead links); `hash` keeps the element, pointing at `#` (the page and
 * the print view, as the reST renderer does: the reader sees that a link was there).
 */
export type RefusedUrlForm = 'text' | 'hash';

/** How one caller renders markdown; the rules not named here are the same for every caller. */
export interface MarkdownOptions {
  rawHtml: RawHtmlPolicy;
  images: ImagePolicy;
  math: MathOutput;
  refused: RefusedUrlForm;
  /** The cell's attachments, which `![](attachment:name)` shows. */
  attachments?: Attachments;
}

/**
 * The one markdown renderer of nbserve (the HTML and PDF exports, the print view, the notebook
 * page). GitHub-flavoured markdown by marked; `$…$`, `$$…$$`, `\(…\)` and `\[…\]` math lifted
 * out before marked sees it (which would take `\,` for an escaped comma) and rendered by KaTeX;
 * link URLs limited by the one URL rule (after decoding character references), images by
 * `options.images`; a refused one as `options.refused` says.
 */
export function renderMarkdown(source: string, options: MarkdownOptions): string {
  const { text, math } = extractMath(source);
  let html = markedFor(options).parse(text, { async: false }) as string;
  if (typeof options.rawHtml === 'object') html = options.rawHtml.sanitize(html);
  // After sanitizing: a sanitizer would strip KaTeX's markup, which escapes what it renders.
  return restoreMath(html, math, (span) => renderMath(span, options.math));
}

function markedFor(options: MarkdownOptions): Marked {
  const { rawHtml, refused } = options;
  return new Marked({
    gfm: true,
    breaks: false,
    renderer: {
      html(token: Tokens.HTML | Tokens.Tag) {
        if (rawHtml === 'neutralize') return neutralizeHtml(token.text);
        if (rawHtml === 'escape') return escapeHtml(token.text);
        return token.text;
      },
      link(token: Tokens.Link) {
        const text = this.parser.parseInline(token.tokens);
        const href = linkUrl(token.href) ?? (refused === 'hash' ? '#' : undefined);
        return href === undefined ? text : `<a href="${escapeHtml(href)}"${title(token.title)}>${text}</a>`;
      },
      image(token: Tokens.Image) {
        const src = imageUrl(token.href, options.images, options.attachments) ?? (refused === 'hash' ? '#' : undefined);
        if (src === undefined) return escapeHtml(token.text);
        return `<img src="${escapeHtml(src)}" alt="${escapeHtml(token.text)}"${title(token.title)}>`;
      },
    },
  });
}

function title(text: string | null | undefined): string {
  return text ? ` title="${escapeHtml(text)}"` : '';
}
