/**
 * `Content-Disposition` for every download nbserve sends (`/files?download=1`, notebooks from
 * `/files`, `/nbconvert/*`, the older `/notebooks/<id>`), per RFC 6266: the exact name as
 * `filename*=UTF-8''…` (RFC 8187 percent-encoding), and for old clients a plain `filename="…"`
 * fallback made of printable ASCII without quotes, backslashes, control characters, markup
 * characters or percent signs (some browsers percent-decode it), so no header can carry a name's
 * markup or break out of its quotes.
 */
export function attachmentHeader(filename: string): string {
  return `attachment; filename="${asciiFallback(filename)}"; filename*=UTF-8''${encodeExtValue(filename)}`;
}

/** RFC 8187 `attr-char`s stay, everything else (UTF-8 bytes) is percent-encoded. */
function encodeExtValue(name: string): string {
  return encodeURIComponent(name).replace(/['()*]/g, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`);
}

function asciiFallback(name: string): string {
  const plain = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '') // é -> e
    .replace(/[^\x20-\x7e]/g, '_')
    .replace(/["\\%<>]/g, '_')
    .trim();
  return plain === '' ? 'download' : plain;
}
