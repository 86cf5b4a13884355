import { Marked, type Tokens } from 'marked';
import { escapeHtml } from '../html/escape.js';
import { isSafeUrl } from '../html/safe-url.js';
import { neutralizeHtml } from './escape.js';
import { withMath } from './math-html.js';

export { latexToHtml } from './math-html.js';

/**
 * Markdown (a markdown cell or a `text/markdown` output) to HTML for an exported page.
 * Raw HTML is allowed as in Jupyter but neutralized; link and image URLs are limited to safe
 * schemes; `attachment:` images resolve to the cell's attachments as data URIs. `$…$`, `$$…$$`,
 * `\(…\)` and `\[…\]` math is lifted out before marked sees it (which would take `\,` for an
 * escaped comma) and rendered to MathML.
 */
export function markdownToHtml(markdown: string, attachments: Record<string, Record<string, unknown>> = {}): string {
  const marked = new Marked({ gfm: true, breaks: false });
  marked.use({
    renderer: {
      html(token: Tokens.HTML | Tokens.Tag) {
        return neutralizeHtml(token.text);
      },
      link(this: { parser: { parseInline(tokens: Tokens.Generic[]): string } }, token: Tokens.Link) {
        const text = this.parser.parseInline(token.tokens);
        const href = safeUrl(token.href);
        const title = token.title ? ` title="${escapeHtml(token.title)}"` : '';
        return href === undefined ? text : `<a href="${escapeHtml(href)}"${title}>${text}</a>`;
      },
      image(token: Tokens.Image) {
        const src = token.href.startsWith('attachment:')
          ? attachmentUri(attachments[token.href.slice('attachment:'.length)])
          : dataImageUri(token.href);
        if (src === undefined) return escapeHtml(token.text);
        return `<img src="${escapeHtml(src)}" alt="${escapeHtml(token.text)}">`;
      },
    },
  });
  return withMath(markdown, (text) => marked.parse(text, { async: false }) as string);
}

function safeUrl(url: string): string | undefined {
  return isSafeUrl(url) ? url.trim() : undefined;
}

// The exported page allows images only as data URIs (it must stand alone); remote images are dropped.
function dataImageUri(url: string): string | undefined {
  return /^data:image\/(?:png|jpeg|gif|webp|svg\+xml);base64,[A-Za-z0-9+/=]+$/.test(url) ? url : undefined;
}

function attachmentUri(bundle: Record<string, unknown> | undefined): string | undefined {
  if (!bundle) return undefined;
  for (const [type, value] of Object.entries(bundle)) {
    if (!/^image\/(?:png|jpeg|gif|webp)$/.test(type) || typeof value !== 'string') continue;
    return dataImageUri(`data:${type};base64,${value.replace(/\s/g, '')}`);
  }
  return undefined;
}
