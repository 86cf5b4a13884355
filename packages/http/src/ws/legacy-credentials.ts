import type { Authenticator } from '../auth/authenticator.js';
import { loginCookieName } from '../auth/session-cookie.js';

/** Largest first frame accepted as credentials (a `document.cookie` string). */
const MAX_CREDENTIAL_BYTES = 8192;

export interface LegacyCredentials {
  /** The client's session id (1.x/2.x send `"<session>:<cookies>"`; 0.13 sends cookies only). */
  sessionId: string | undefined;
  cookies: Map<string, string>;
}

/**
 * Parses the first frame of an old client's per-channel socket. `undefined` when the frame is
 * not a credentials string at all (e.g. a kernel message sent without the handshake).
 */
export function parseLegacyCredentials(frame: string): LegacyCredentials | undefined {
  if (frame.length > MAX_CREDENTIAL_BYTES) return undefined;
  const text = frame.trim();
  // biome-ignore lint/suspicious/noControlCharactersInRegex: a cookie string never holds control characters
  if (text.startsWith('{') || text.startsWith('[') || /[\u0000-\u001f]/.test(text)) return undefined;
  let sessionId: string | undefined;
  let cookieText = text;
  const colon = text.indexOf(':');
  if (colon !== -1 && /^[\w.@+-]{0,200}$/.test(text.slice(0, colon))) {
    sessionId = text.slice(0, colon) || undefined;
    cookieText = text.slice(colon + 1);
  }
  const cookies = new Map<string, string>();
  for (const part of cookieText.split(';')) {
    const trimmed = part.trim();
    if (trimmed === '') continue;
    const eq = trimmed.indexOf('=');
    if (eq <= 0) return undefined; // not `name=value`: not a cookie string
    const name = trimmed.slice(0, eq).trim();
    if (!/^[!#$%&'*+.^_`|~\w-]+$/.test(name)) return undefined;
    let value = trimmed.slice(eq + 1).trim();
    if (value.startsWith('"') && value.endsWith('"') && value.length >= 2) value = value.slice(1, -1);
    cookies.set(name, value);
  }
  return { sessionId, cookies };
}

/** True when the cookies in the frame carry a valid login cookie (or a `token` pair) for this server. */
export async function credentialsAuthenticate(
  credentials: LegacyCredentials,
  auth: Authenticator,
  host: string,
): Promise<boolean> {
  const cookie = credentials.cookies.get(loginCookieName(host)) ?? credentials.cookies.get('username');
  const token = credentials.cookies.get('token');
  const result = await auth.authenticate({ authorization: undefined, queryToken: token, cookie });
  return result.via !== 'none';
}
