const PROBE_ORIGIN = 'http://nbserve.invalid';

/** Backslashes and control characters: browsers turn `\\` into `/` and drop tabs and newlines. */
function hasUnsafeCharacter(text: string): boolean {
  for (const ch of text) {
    const code = ch.charCodeAt(0);
    if (ch === '\\' || code < 0x20 || code === 0x7f) return true;
  }
  return false;
}

/**
 * Where `/login` may send the browser afterwards: only a same-origin path under `baseUrl`.
 * Anything else — `//evil`, `/\evil`, `https:`, backslashes, control characters, or their
 * percent-encoded forms — falls back to `baseUrl`, closing the open redirect the anchors shipped.
 */
export function safeNextPath(next: string | undefined | null, baseUrl: string): string {
  if (!next) return baseUrl;
  let decoded = next;
  for (let i = 0; i < 4; i++) {
    if (hasUnsafeCharacter(decoded) || !decoded.startsWith('/') || /^\/\//.test(decoded)) return baseUrl;
    let once: string;
    try {
      once = decodeURIComponent(decoded);
    } catch {
      return baseUrl;
    }
    if (once === decoded) break;
    decoded = once;
  }
  let url: URL;
  try {
    url = new URL(next, PROBE_ORIGIN);
  } catch {
    return baseUrl;
  }
  if (url.origin !== PROBE_ORIGIN) return baseUrl;
  const target = `${url.pathname}${url.search}${url.hash}`;
  const baseNoSlash = baseUrl.slice(0, -1);
  if (url.pathname !== baseNoSlash && !url.pathname.startsWith(baseUrl)) return baseUrl;
  return target;
}
