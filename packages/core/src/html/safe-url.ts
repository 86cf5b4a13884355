/**
 * The one rule for link and image URLs that nbserve renders (markdown on the page, in the print
 * view and in exports; reStructuredText): web, mail and FTP addresses, fragments and relative URLs
 * pass; any other scheme (`javascript:`, `vbscript:`, `data:`, `file:`) does not. Browsers ignore
 * control characters and spaces inside a scheme (`java\tscript:`), so the check does too. Inline
 * `data:` images are a separate rule of each renderer (the page shows them, an export embeds them).
 * Written for every runtime: no Node API.
 */
export function isSafeUrl(url: string): boolean {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: browsers ignore these inside schemes
  const cleaned = url.replace(/[\u0000-\u0020\u007f]/g, '');
  return /^(?:https?|mailto|ftp):/i.test(cleaned) || !/^[a-z][a-z0-9+.-]*:/i.test(cleaned);
}
