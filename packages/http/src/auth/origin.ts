import type { NbserveOptions } from '../options.js';

type OriginOptions = Pick<NbserveOptions, 'allowOrigin' | 'allowOriginPattern'>;
type HostOptions = Pick<NbserveOptions, 'ip' | 'allowRemoteAccess' | 'allowedHosts'>;

const patternCache = new Map<string, RegExp | null>();

/** Compiles a configured origin pattern anchored at both ends, so `trusted.example.com.evil.com` never matches. */
function anchoredPattern(pattern: string): RegExp | null {
  if (!patternCache.has(pattern)) {
    let compiled: RegExp | null = null;
    try {
      compiled = new RegExp(`^(?:${pattern})$`);
    } catch {
      compiled = null;
    }
    patternCache.set(pattern, compiled);
  }
  return patternCache.get(pattern) ?? null;
}

/** Origin allowed by configuration (`allowOrigin` exact entries or `*`, or the anchored pattern). */
export function originAllowedByConfig(origin: string, options: OriginOptions): boolean {
  if (options.allowOrigin.includes('*') || options.allowOrigin.includes(origin)) return true;
  if (options.allowOriginPattern) return anchoredPattern(options.allowOriginPattern)?.test(origin) ?? false;
  return false;
}

/** `host[:port]` of an Origin header value, lower-cased; `null` for `null` or garbage. */
function originHost(origin: string): string | null {
  try {
    const url = new URL(origin);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    if (url.pathname !== '/' || url.search || url.hash || url.username || url.password) return null;
    return url.host.toLowerCase();
  } catch {
    return null;
  }
}

/** Same-origin (Origin's host equals Host) or allowed by configuration. */
export function originMatches(origin: string, host: string | undefined, options: OriginOptions): boolean {
  if (originAllowedByConfig(origin, options)) return true;
  const fromOrigin = originHost(origin);
  if (!fromOrigin || !host) return false;
  return fromOrigin === withDefaultPortStripped(host.toLowerCase(), origin);
}

function withDefaultPortStripped(host: string, origin: string): string {
  if (origin.startsWith('http:') && host.endsWith(':80')) return host.slice(0, -3);
  if (origin.startsWith('https:') && host.endsWith(':443')) return host.slice(0, -4);
  return host;
}

/** API rule: no Origin header (not a browser cross-origin call) passes; otherwise it must match. */
export function checkApiOrigin(origin: string | undefined, host: string | undefined, options: OriginOptions): boolean {
  return origin === undefined || originMatches(origin, host, options);
}

/**
 * WebSocket rule (cross-site WebSocket hijacking): a browser always sends Origin on a WebSocket, so
 * a missing Origin is only accepted from a token-authenticated script (a browser cannot set that
 * header), and a present Origin must match Host or the configuration. Failure means 403.
 */
export function checkWebSocketOrigin(
  headers: { origin?: string | undefined; host?: string | undefined },
  options: OriginOptions,
  tokenAuthenticated: boolean,
): boolean {
  if (headers.origin === undefined) return tokenAuthenticated || options.allowOrigin.includes('*');
  return originMatches(headers.origin, headers.host, options);
}

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '::1', '[::1]']);

export function isLoopbackAddress(ip: string): boolean {
  return LOOPBACK_NAMES.has(ip) || /^127\.\d+\.\d+\.\d+$/.test(ip) || ip.endsWith('.localhost');
}

/** Host name of a Host header, without port or IPv6 brackets, lower-cased. */
export function hostName(host: string): string {
  const h = host.trim().toLowerCase();
  if (h.startsWith('[')) return h.slice(0, h.indexOf(']') + 1);
  const colon = h.lastIndexOf(':');
  return colon === -1 ? h : h.slice(0, colon);
}

/**
 * DNS-rebinding guard: a server bound to loopback only answers Host names that are loopback
 * or explicitly allowed, so a page on `evil.com` resolving to 127.0.0.1 gets 403.
 */
export function hostAllowed(host: string | undefined, options: HostOptions): boolean {
  if (options.allowRemoteAccess || !isLoopbackAddress(options.ip)) return true;
  if (!host) return false;
  const name = hostName(host);
  return isLoopbackAddress(name) || options.allowedHosts.some((allowed) => allowed.toLowerCase() === name);
}
