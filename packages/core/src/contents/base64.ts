/** Python `base64.encodebytes` layout: a newline every 76 characters and a trailing newline. */
export function encodeBase64Lines(bytes: Uint8Array): string {
  const flat = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
  if (flat.length === 0) return '';
  const lines: string[] = [];
  for (let i = 0; i < flat.length; i += 76) lines.push(flat.slice(i, i + 76));
  return `${lines.join('\n')}\n`;
}

/**
 * Strict base64 decoding (whitespace allowed, as clients send MIME-style lines). Node's decoder
 * silently skips garbage, so the alphabet and padding are checked first; `null` means invalid.
 */
export function decodeBase64Strict(text: string): Uint8Array | null {
  const compact = text.replace(/[\s]+/g, '');
  if (compact.length % 4 !== 0) return null;
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(compact)) return null;
  return Buffer.from(compact, 'base64');
}
