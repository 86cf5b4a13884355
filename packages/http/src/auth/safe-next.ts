import { withoutTokenParam } from './token-query.js';

/** An origin no request can have: targets are resolved against it to see where a browser would go. */
const PROBE_ORIGIN = 'http://nbserve.invalid';
/** A second, unrelated origin: a target that lands elsewhere from here is not a plain path. */
const OTHER_ORIGIN = 'http://elsewhere.invalid';
const MAX_DECODE_ROUNDS = 4;

/**
 * Raw backslashes and control characters: browsers read `\` as `/` and drop tabs and newlines,
 * and a raw CR/LF must never reach a header.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const UNSAFE_RAW = /[\\\u0000-\u001f\u007f]/;
/** A scheme (`https:`, `javascript:`, even `http:path`, which https pages resolve off-site). */
const HAS_SCHEME = /^\s*[A-Za-z][A-Za-z0-9+.-]*:/;

/**
 * The path, query and fragment a browser lands on when sent to `target` from a page at `from`
 * (a path, by default `baseUrl`), if that stays on this server under `baseUrl`; otherwise
 * `undefined`. Absolute URLs are refused outright; the rest is resolved with the WHATWG URL
 * parser, exactly as a browser resolves a `Location` header (dot segments, `%2e`, repeated
 * slashes, `\`, tabs and newlines), then its origin and path prefix are checked. The result is also refused when its path, percent-decoded
 * (a proxy or another hop may decode it), starts with `//` or holds a backslash or a control
 * character: `/%2F/evil`, `/%5Cevil` and `/%09/evil` never become a path a browser reads as
 * another host.
 */
export function localRedirectTarget(target: string, baseUrl: string, from: string = baseUrl): string | undefined {
  if (target === '' || UNSAFE_RAW.test(target) || HAS_SCHEME.test(target)) return undefined;
  let url: URL;
  try {
    url = new URL(target, PROBE_ORIGIN + from);
  } catch {
    return undefined;
  }
  if (url.origin !== PROBE_ORIGIN || url.username !== '' || url.password !== '') return undefined;
  const path = url.pathname;
  if (path !== baseUrl.slice(0, -1) && !path.startsWith(baseUrl)) return undefined;
  if (!decodesToPlainPath(path)) return undefined;
  const result = `${path}${url.search}${url.hash}`;
  // What we send must mean the same path wherever it is resolved (never `//host`-relative).
  let again: URL;
  try {
    again = new URL(result, `${OTHER_ORIGIN}/a/b`);
  } catch {
    return undefined;
  }
  return again.origin === OTHER_ORIGIN && again.pathname === path ? result : undefined;
}

/**
 * Where `/login` may send the browser afterwards: a local target under `baseUrl`, else `baseUrl`;
 * never with a `token` in its query.
 */
export function safeNextPath(next: string | undefined | null, baseUrl: string): string {
  const target = next ? localRedirectTarget(next, baseUrl) : undefined;
  return target ? withoutTokenParam(target) : baseUrl;
}

function decodesToPlainPath(path: string): boolean {
  let current = path;
  for (let round = 0; round < MAX_DECODE_ROUNDS; round++) {
    if (current.startsWith('//') || UNSAFE_RAW.test(current)) return false;
    const decoded = lenientDecode(current);
    if (decoded === current) return true;
    current = decoded;
  }
  return false; // still changing after several rounds: not a path anyone needs
}

/** Percent-decodes what decodes; a malformed escape (`100%`, a lone `%E0`) stays as it is. */
function lenientDecode(text: string): string {
  return text.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      return run;
    }
  });
}
