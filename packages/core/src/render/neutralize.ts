// Tags that could navigate, load, submit or run something even under a script-blocking CSP.
const DANGEROUS_TAGS =
  /<(\/?)(script|meta|base|link|iframe|frame|frameset|object|embed|applet|form|portal)(?=[\s/>]|$)/gi;

/**
 * Makes notebook-supplied HTML (markdown cells, `text/html` outputs) inert enough to inline:
 * an HTML parser only opens a tag on `<` directly followed by its name, so escaping that `<`
 * turns each dangerous tag into visible text. Event-handler attributes and `javascript:` URLs
 * are left to the document's `script-src 'none'` policy, which blocks both.
 */
export function neutralizeHtml(html: string): string {
  return html.replace(DANGEROUS_TAGS, '&lt;$1$2');
}
