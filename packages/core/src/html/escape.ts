/**
 * The one HTML escaper of nbserve, for every name, path, message or notebook text that reaches a
 * page, server-rendered or built in the browser. It has no imports, so the browser bundle can
 * take it too (`@nbserve/core/html`).
 */

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/**
 * Escapes text for HTML element content and for attribute values in double or single quotes.
 * Not for unquoted attributes, URLs (`href`: also check the scheme), scripts or styles.
 */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => HTML_ESCAPES[ch] ?? ch);
}

/**
 * JSON safe to embed in a `<script type="application/json">` block: no `</script>` or `<!--`
 * breakout, no `&` for an HTML parser to read, and U+2028/U+2029 escaped for old JS parsers.
 */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}
