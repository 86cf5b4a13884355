import { badRequest } from '@nbserve/core';
import type { Context } from 'hono';
import type { NbserveEnv } from '../env.js';

/**
 * The API path below a route prefix (`/api/contents`, `/files`), decoded segment by segment from
 * the raw URL. Decoding per segment is what makes an encoded slash (`%2F`) a 400 instead of a
 * separator; `..`, NUL and absolute paths are refused by core, which also enforces containment.
 */
export function pathSegmentsAfter(c: Context<NbserveEnv>, prefix: string): string[] {
  const raw = rawPathAfter(c, prefix);
  const parts = raw.split('/');
  // One leading slash separates the prefix; one trailing slash is how clients name directories.
  if (parts[0] === '') parts.shift();
  if (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
  return parts.map((part) => {
    // `//x` would name `/x`: an absolute path, not one below the root.
    if (part === '') throw badRequest('Invalid path: empty path segment (absolute path?)', 'bad path');
    let segment: string;
    try {
      segment = decodeURIComponent(part);
    } catch {
      throw badRequest(`Invalid path: malformed percent-encoding in ${JSON.stringify(part)}`, 'bad path');
    }
    if (segment.includes('/') || segment.includes('\\')) {
      throw badRequest('Invalid path: a path segment contains an encoded slash', 'bad path');
    }
    return segment;
  });
}

/** The still-encoded rest of the URL path after `<base>` + `prefix`, e.g. `/a%20b/c.ipynb`. */
export function rawPathAfter(c: Context<NbserveEnv>, prefix: string): string {
  const pathname = new URL(c.req.url).pathname;
  const base = urlBase(c).slice(0, -1);
  const at = pathname.startsWith(base + prefix) ? base.length : pathname.indexOf(prefix);
  return at === -1 ? '' : pathname.slice(at + prefix.length);
}

/** The URL prefix the client reached this app under, ending in `/` (see the context middleware). */
export function urlBase(c: Context<NbserveEnv>): string {
  return c.get('baseUrl');
}

/** `a b/c#.ipynb` -> `a%20b/c%23.ipynb`: every segment URL-escaped on its own. */
export function escapePath(path: string): string {
  return path === '' ? '' : path.split('/').map(encodeSegment).join('/');
}

function encodeSegment(segment: string): string {
  return encodeURIComponent(segment).replace(/[!'()*]/g, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** RFC 1123 for `Last-Modified`, from the model's ISO timestamp. */
export function httpDate(iso: string): string {
  return new Date(Date.parse(iso)).toUTCString();
}
