import { randomBytes, timingSafeEqual } from 'node:crypto';

export const XSRF_COOKIE = '_xsrf';
export const XSRF_HEADERS = ['x-xsrftoken', 'x-csrftoken'] as const;

export function newXsrfToken(): string {
  return randomBytes(24).toString('hex');
}

/**
 * The raw token inside an XSRF value. Plain values are the token itself; Tornado's versioned form
 * `2|<mask hex>|<masked hex>|<timestamp>` is unmasked, so differently-masked copies still compare equal.
 */
export function decodeXsrf(value: string): Buffer | null {
  if (value.startsWith('2|')) {
    const [, maskHex, maskedHex] = value.split('|');
    if (!maskHex || !maskedHex || !/^[0-9a-f]+$/i.test(maskHex + maskedHex)) return null;
    const mask = Buffer.from(maskHex, 'hex');
    const masked = Buffer.from(maskedHex, 'hex');
    if (mask.length !== 4 || masked.length === 0) return null;
    return Buffer.from(masked.map((byte, i) => byte ^ (mask[i % 4] ?? 0)));
  }
  if (value === '' || value.length > 512) return null;
  return Buffer.from(value, 'utf8');
}

export type XsrfVerdict = 'ok' | 'missing' | 'mismatch';

/** Compares the submitted XSRF value with the cookie's, in constant time, after decoding both. */
export function checkXsrf(cookie: string | undefined, submitted: string | undefined): XsrfVerdict {
  if (!submitted) return 'missing';
  const a = cookie ? decodeXsrf(cookie) : null;
  const b = decodeXsrf(submitted);
  if (!a || !b || a.length !== b.length || !timingSafeEqual(a, b)) return 'mismatch';
  return 'ok';
}
