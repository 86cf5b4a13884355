import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** How long a login cookie stays valid. */
export const SESSION_MAX_AGE_SECONDS = 30 * 24 * 3600;

/** Jupyter's login cookie name: `username-<Host header with every non-alphanumeric char as '-'>`. */
export function loginCookieName(host: string): string {
  return `username-${host.replace(/[^A-Za-z0-9]/g, '-')}`;
}

export interface Session {
  id: string;
  issuedAt: number;
}

function mac(key: Buffer, payload: string): string {
  return createHmac('sha256', key).update(payload).digest('base64url');
}

/** A new cookie value `<random id>.<issued seconds>.<HMAC>`. */
export function signSession(key: Buffer, nowMs: number): { value: string; session: Session } {
  const session = { id: randomBytes(18).toString('base64url'), issuedAt: Math.floor(nowMs / 1000) };
  const payload = `${session.id}.${session.issuedAt}`;
  return { value: `${payload}.${mac(key, payload)}`, session };
}

/** The session a cookie value carries, if its signature is good and it has not expired. */
export function verifySession(key: Buffer, value: string, nowMs: number): Session | null {
  const parts = value.split('.');
  if (parts.length !== 3) return null;
  const [id, issued, signature] = parts as [string, string, string];
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(id) || !/^\d{1,12}$/.test(issued)) return null;
  const expected = Buffer.from(mac(key, `${id}.${issued}`));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  const issuedAt = Number(issued);
  const age = nowMs / 1000 - issuedAt;
  if (age < -60 || age > SESSION_MAX_AGE_SECONDS) return null;
  return { id, issuedAt };
}
