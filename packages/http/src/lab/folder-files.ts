import { createReadStream, promises as fs } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { guessMimeType } from '@nbserve/core';
import type { Context } from 'hono';
import type { NbserveEnv } from '../env.js';

/** Hashed file names never change content, so browsers may keep them for a year. */
const IMMUTABLE = 'public, max-age=31536000, immutable';

/** A content hash in a build's file name (`main.3f2a9c0d1b.js`, `remoteEntry.0c8b…js`). */
const HASHED_NAME = /[.-][0-9a-f]{8,}\.[A-Za-z0-9]+$/;

const NOT_FOUND = () => new Response('Not Found', { status: 404, headers: { 'Cache-Control': 'no-store' } });

/**
 * The file `segments` name inside `root`, or `undefined` when it is not one: each segment is
 * percent-decoded and must be a plain name (no `..`, `.`, NUL, `/` or `\`), and the real path
 * (symlinks resolved) must stay inside the real root. A symlink out of the folder is refused.
 */
export async function fileInside(root: string, segments: readonly string[]): Promise<string | undefined> {
  if (segments.length === 0) return undefined;
  const names: string[] = [];
  for (const segment of segments) {
    let name: string;
    try {
      name = decodeURIComponent(segment);
    } catch {
      return undefined;
    }
    if (name === '' || name === '.' || name === '..' || /[\0/\\]/.test(name)) return undefined;
    names.push(name);
  }
  try {
    const realRoot = await fs.realpath(root);
    const real = await fs.realpath(path.join(realRoot, ...names));
    if (!real.startsWith(realRoot + path.sep)) return undefined;
    const stat = await fs.stat(real);
    return stat.isFile() ? real : undefined;
  } catch {
    return undefined;
  }
}

/** Which precompressed variant to send: brotli, then gzip, as the client accepts them. */
function acceptedEncodings(header: string | undefined): Array<{ suffix: string; encoding: string }> {
  const accepted = new Set(
    (header ?? '')
      .split(',')
      .map((part) => part.trim().toLowerCase())
      .filter((part) => !/;\s*q=0(?:\.0*)?$/.test(part))
      .map((part) => part.split(';')[0]?.trim()),
  );
  const result: Array<{ suffix: string; encoding: string }> = [];
  if (accepted.has('br')) result.push({ suffix: '.br', encoding: 'br' });
  if (accepted.has('gzip')) result.push({ suffix: '.gz', encoding: 'gzip' });
  return result;
}

/**
 * Sends a file of a build folder: a year's caching for hashed names, revalidation (ETag) for the
 * rest; the precompressed `<file>.br` or `<file>.gz` beside it when the client accepts it.
 */
export async function sendFolderFile(
  c: Context<NbserveEnv>,
  root: string,
  segments: readonly string[],
): Promise<Response> {
  const file = await fileInside(root, segments);
  if (!file || file.endsWith('.br') || file.endsWith('.gz')) return NOT_FOUND();
  let sent = file;
  let encoding: string | undefined;
  for (const candidate of acceptedEncodings(c.req.header('accept-encoding'))) {
    const compressed = await fileInside(path.dirname(file), [
      encodeURIComponent(path.basename(file) + candidate.suffix),
    ]);
    if (compressed) {
      sent = compressed;
      encoding = candidate.encoding;
      break;
    }
  }
  const stat = await fs.stat(sent);
  const hashed = HASHED_NAME.test(path.basename(file));
  const etag = `"${stat.size.toString(16)}-${Math.floor(stat.mtimeMs).toString(16)}${encoding ? `-${encoding}` : ''}"`;
  const headers: Record<string, string> = {
    'Content-Type': contentType(file),
    'Cache-Control': hashed ? IMMUTABLE : 'no-cache',
    ETag: etag,
    Vary: 'Accept-Encoding',
  };
  if (encoding) headers['Content-Encoding'] = encoding;
  if (ifNoneMatch(c.req.header('if-none-match'), etag)) return new Response(null, { status: 304, headers });
  headers['Content-Length'] = String(stat.size);
  if (c.req.method === 'HEAD') return new Response(null, { status: 200, headers });
  const body = Readable.toWeb(createReadStream(sent)) as ReadableStream<Uint8Array>;
  return new Response(body, { status: 200, headers });
}

/**
 * Whether an `If-None-Match` header matches `etag` (weak comparison, RFC 9110 13.1.2): a list,
 * `*`, or a `W/` form, as a compressing middleware or a proxy may have made it.
 */
export function ifNoneMatch(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  const bare = (tag: string) => tag.trim().replace(/^W\//, '');
  return header.split(',').some((tag) => tag.trim() === '*' || bare(tag) === bare(etag));
}

function contentType(file: string): string {
  const type = guessMimeType(file) ?? 'application/octet-stream';
  return /^text\/|javascript|json|svg/.test(type) ? `${type}; charset=utf-8` : type;
}
