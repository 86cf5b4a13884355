/**
 * A small cookie jar that sends a cookie only where a browser would: its `Path` must path-match
 * the request path (RFC 6265 §5.1.4, compared on the URL path as sent, percent escapes and all).
 * Tests use it to prove that the cookies a server sets come back on the pages and APIs that need them.
 */
export interface StoredCookie {
  name: string;
  value: string;
  path: string;
  httpOnly: boolean;
  sameSite: string | undefined;
}

/** RFC 6265 §5.1.4: `cookiePath` covers `requestPath`. */
export function pathMatches(cookiePath: string, requestPath: string): boolean {
  if (requestPath === cookiePath) return true;
  if (!requestPath.startsWith(cookiePath)) return false;
  return cookiePath.endsWith('/') || requestPath[cookiePath.length] === '/';
}

/** The directory of a request path, the default `Path` of a cookie set without one (RFC 6265 §5.1.4). */
function defaultPath(requestPath: string): string {
  const slash = requestPath.lastIndexOf('/');
  return slash <= 0 ? '/' : requestPath.slice(0, slash);
}

export function parseSetCookie(header: string, requestPath: string): StoredCookie & { expired: boolean } {
  const [pair = '', ...attributes] = header.split(';');
  const eq = pair.indexOf('=');
  const cookie = {
    name: pair.slice(0, eq).trim(),
    value: pair.slice(eq + 1).trim(),
    path: defaultPath(requestPath),
    httpOnly: false,
    sameSite: undefined as string | undefined,
    expired: false,
  };
  for (const attribute of attributes) {
    const [rawKey = '', ...rest] = attribute.split('=');
    const key = rawKey.trim().toLowerCase();
    const value = rest.join('=').trim();
    if (key === 'path' && value.startsWith('/')) cookie.path = value;
    else if (key === 'httponly') cookie.httpOnly = true;
    else if (key === 'samesite') cookie.sameSite = value;
    else if (key === 'max-age' && Number(value) <= 0) cookie.expired = true;
    else if (key === 'expires' && Date.parse(value) <= Date.now()) cookie.expired = true;
  }
  return cookie;
}

export class CookieJar {
  readonly #cookies = new Map<string, StoredCookie>();

  /** Stores (or, when expired, removes) every cookie a response set for a request to `requestPath`. */
  store(response: Response, requestPath: string): void {
    for (const header of response.headers.getSetCookie()) {
      const { expired, ...cookie } = parseSetCookie(header, requestPath);
      const key = `${cookie.name};${cookie.path}`;
      if (expired) this.#cookies.delete(key);
      else this.#cookies.set(key, cookie);
    }
  }

  /** Every stored cookie (for assertions on their attributes). */
  all(): StoredCookie[] {
    return [...this.#cookies.values()];
  }

  /** The `Cookie` header a browser would send to `requestPath`, longest paths first; '' for none. */
  header(requestPath: string): string {
    return this.all()
      .filter((cookie) => pathMatches(cookie.path, requestPath))
      .sort((a, b) => b.path.length - a.path.length)
      .map((cookie) => `${cookie.name}=${cookie.value}`)
      .join('; ');
  }

  /** The value a browser would see for `name` at `requestPath` (as `document.cookie` does). */
  get(name: string, requestPath: string): string | undefined {
    return this.all()
      .filter((cookie) => cookie.name === name && pathMatches(cookie.path, requestPath))
      .sort((a, b) => b.path.length - a.path.length)[0]?.value;
  }
}

/** `name=value` pairs of every Set-Cookie header of one response, keyed by name (`raw` is the whole header). */
export function setCookies(response: Response): Map<string, { value: string; raw: string }> {
  const map = new Map<string, { value: string; raw: string }>();
  for (const raw of response.headers.getSetCookie()) {
    const [pair = ''] = raw.split(';');
    const eq = pair.indexOf('=');
    map.set(pair.slice(0, eq), { value: pair.slice(eq + 1), raw });
  }
  return map;
}
