import { createHash, timingSafeEqual } from 'node:crypto';

/** Compares two secrets in constant time, whatever their lengths (both are hashed first). */
export function secretsEqual(a: string, b: string): boolean {
  const da = createHash('sha256').update(a, 'utf8').digest();
  const db = createHash('sha256').update(b, 'utf8').digest();
  return timingSafeEqual(da, db) && a.length === b.length;
}

export interface PresentedToken {
  token: string;
  /** Where the client put it: a header survives nothing else, a query token also logs the client in. */
  via: 'header' | 'query';
}

const AUTH_HEADER = /^(?:token|bearer)\s+(\S+)\s*$/i;

/** The token a request presents, from `Authorization: token|Bearer <t>` or `?token=<t>`. */
export function presentedToken(
  authorization: string | undefined,
  queryToken: string | undefined,
): PresentedToken | null {
  const match = authorization ? AUTH_HEADER.exec(authorization) : null;
  if (match?.[1]) return { token: match[1], via: 'header' };
  if (queryToken) return { token: queryToken, via: 'query' };
  return null;
}
