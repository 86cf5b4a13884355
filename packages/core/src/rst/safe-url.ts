import { isSafeUrl } from '../html/safe-url.js';

/** A URL allowed in rendered reST links and images (see isSafeUrl), trimmed; undefined if not. */
export function safeLinkUrl(url: string): string | undefined {
  return isSafeUrl(url) ? url.trim() : undefined;
}

const ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  colon: ':',
  tab: '\t',
  newline: '\n',
};

function decodeEntities(value: string): string {
  return value.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);?/gi, (whole, body: string) => {
    if (body[0] === '#') {
      const code =
        body[1] === 'x' || body[1] === 'X' ? Number.parseInt(body.slice(2), 16) : Number.parseInt(body.slice(1), 10);
      return Number.isFinite(code) && code <= 0x10ffff ? String.fromCodePoint(code) : '';
    }
    return ENTITIES[body.toLowerCase()] ?? whole;
  });
}

/**
 * Last line of defence over a renderer's HTML: every `href`/`src` attribute must carry a safe
 * URL once entities are decoded (as the browser will decode them); others become `#`.
 */
export function sanitizeUrlAttributes(html: string): string {
  return html.replace(
    /(\s(?:href|src|action|formaction|xlink:href)\s*=\s*)("[^"]*"|'[^']*'|[^\s>]+)/gi,
    (_whole, prefix: string, quoted: string) => {
      const raw = quoted.startsWith('"') || quoted.startsWith("'") ? quoted.slice(1, -1) : quoted;
      return safeLinkUrl(decodeEntities(raw)) === undefined ? `${prefix}"#"` : `${prefix}${quoted}`;
    },
  );
}
