/**
 * Markup the fuzzer puts into names, paths, query values and headers, and the check that no
 * answer hands it back live. Every payload calls a function named `fz<digit>…`, so a hit can only
 * come from the request, never from nbserve's own pages.
 */
export const MARKUP_PAYLOADS: readonly string[] = [
  '<script>fz1()</script>',
  '"><img src=x onerror=fz2()>',
  "'onmouseover='fz3()'",
  '<svg/onload=fz4()>',
  '</title><script>fz5()</script>',
  "x' autofocus onfocus='fz6()",
  '"onclick="fz7()',
  '<!--<script>fz8()//-->',
];

const TAG = /<([a-zA-Z][\w-]*)((?:[^>"']|"[^"]*"|'[^']*')*)>/g;
const ATTRIBUTE = /([^\s"'>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?/g;

/** JSON is not rendered by a browser (nbserve sends `nosniff`): only other bodies can carry live markup. */
export function isJsonType(contentType: string | null): boolean {
  return /^application\/([\w.+-]*\+)?json\b/i.test(contentType ?? '');
}

/**
 * Where `text` (an HTML-ish body or a header value) holds one of the payloads live: a tag that
 * came from a payload (`<script>fz…`, `<img … onerror=fz…>`), or an event-handler attribute
 * whose value calls a payload's function (a quote that broke out of an attribute). `undefined`
 * when it holds none.
 */
export function liveMarkup(text: string): string | undefined {
  if (!text.includes('fz')) return undefined;
  const raw = /<(script|img|svg)\b[^>]*>?\s*fz\d|<(img|svg)\b[^>]*\bon\w+=fz\d/i.exec(text);
  if (raw) return raw[0];
  for (const [, tag = '', attributes = ''] of text.matchAll(TAG)) {
    for (const [, name = '', dq, sq, bare] of attributes.matchAll(ATTRIBUTE)) {
      const value = dq ?? sq ?? bare ?? '';
      if (/^on/i.test(name) && /fz\d/.test(value)) return `<${tag} ${name}=${value}>`;
    }
  }
  return undefined;
}
