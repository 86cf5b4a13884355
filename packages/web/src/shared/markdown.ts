import { escapeHtml } from '@nbserve/core/html';
import { extractMath, type MathSpan, restoreMath } from '@nbserve/core/math';
import { isSafeUrl } from '@nbserve/core/safe-url';
import katex from 'katex';
import { Marked, type Tokens } from 'marked';

/** Links and images point at what isSafeUrl allows, or (the page's own rule) an inline raster image. */
function isAllowedUrl(href: string): boolean {
  const trimmed = href.trim().toLowerCase();
  return isSafeUrl(href) || (trimmed.startsWith('data:image/') && !trimmed.startsWith('data:image/svg'));
}

export function renderMath(span: MathSpan): string {
  return katex.renderToString(span.tex, { displayMode: span.display, throwOnError: false, output: 'htmlAndMathml' });
}

function makeMarked(allowHtml: boolean): Marked {
  return new Marked({
    gfm: true,
    async: false,
    walkTokens(token) {
      if (token.type === 'link' || token.type === 'image') {
        // marked leaves character references in URLs for the browser to decode, so
        // `&#106;avascript:` would reach it as `javascript:`: decode first, check, then escape.
        const href = decodeReferences((token as Tokens.Link).href);
        (token as Tokens.Link).href = isAllowedUrl(href) ? href : '#';
      }
    },
    renderer: {
      link(token: Tokens.Link) {
        return `<a href="${escapeHtml(token.href)}"${titleAttribute(token.title)}>${this.parser.parseInline(token.tokens)}</a>`;
      },
      image(token: Tokens.Image) {
        return `<img src="${escapeHtml(token.href)}" alt="${escapeHtml(token.text)}"${titleAttribute(token.title)}>`;
      },
      ...(allowHtml ? {} : { html: (token: Tokens.HTML | Tokens.Tag) => escapeHtml(token.text) }),
    },
  });
}

const BASIC_REFERENCES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/**
 * Numeric and the basic named character references, as CommonMark decodes them in link
 * destinations. Other named ones stay as text, which escaping then keeps literal: never a scheme.
 */
function decodeReferences(text: string): string {
  return text.replace(/&(?:#[xX]([0-9a-fA-F]{1,6})|#(\d{1,7})|(amp|lt|gt|quot|apos));/g, (whole, hex, dec, named) => {
    if (named) return BASIC_REFERENCES[named as string] ?? whole;
    const code = hex ? Number.parseInt(hex as string, 16) : Number(dec);
    return code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff) ? String.fromCodePoint(code) : '\ufffd';
  });
}

function titleAttribute(title: string | null | undefined): string {
  return title ? ` title="${escapeHtml(title)}"` : '';
}

const withHtml = makeMarked(true);
const escapedHtml = makeMarked(false);

/**
 * Markdown with `$…$`/`$$…$$` math rendered by KaTeX. `allowHtml: true` keeps raw HTML for a
 * caller that sanitizes afterwards (the browser, with DOMPurify); `false` escapes it (server side).
 * Math is inserted after `sanitize` so KaTeX's markup is not stripped.
 */
export function renderMarkdown(
  source: string,
  options: { allowHtml: boolean; sanitize?: (html: string) => string },
): string {
  const { text, math } = extractMath(source);
  const parser = options.allowHtml ? withHtml : escapedHtml;
  let html = parser.parse(text) as string;
  if (options.sanitize) html = options.sanitize(html);
  return restoreMath(html, math, renderMath);
}

/** `text/latex` outputs: usually `$…$` or `$$…$$`, sometimes a bare environment. */
export function renderLatex(source: string): string {
  const trimmed = source.trim();
  const { text, math } = extractMath(trimmed);
  if (math.length === 0) return renderMath({ tex: trimmed, display: true });
  return restoreMath(escapeHtml(text), math, renderMath);
}
