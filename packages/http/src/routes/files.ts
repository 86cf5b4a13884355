import { type ByteRange, guessType } from '@nbserve/core';
import type { Context, Hono } from 'hono';
import * as v from 'valibot';
import type { NbserveEnv } from '../env.js';
import { attachmentHeader } from './attachment.js';
import { pathSegmentsAfter } from './contents-path.js';

const FilesQuery = v.object({ download: v.optional(v.string()) });
const SNIFF_BYTES = 8192;

/**
 * `GET|HEAD /files/<path>`: the raw bytes, streamed. Served files are untrusted content on our
 * origin, so they get `nosniff` and a `sandbox` CSP (scripts run in an opaque origin, without
 * access to the API or cookies); notebooks and `?download=1` come as attachments.
 */
export function registerFilesRoutes(app: Hono<NbserveEnv>): void {
  app.on(['GET', 'HEAD'], '/files/*', serveFile);
}

async function serveFile(c: Context<NbserveEnv>): Promise<Response> {
  const segments = pathSegmentsAfter(c, '/files');
  const path = segments.join('/');
  const query = v.parse(FilesQuery, c.req.query());
  const name = segments.at(-1) ?? '';
  const knownType = contentType(name);
  // Ranges (media seeking, resumed downloads) only where the type does not depend on sniffing.
  const rangeHeader = knownType === null ? undefined : c.req.header('Range');
  let unsatisfiable = false;
  const file = await c.get('services').contents.openFile(
    path,
    rangeHeader
      ? (size) => {
          const range = parseRange(rangeHeader, size);
          unsatisfiable = range === 'unsatisfiable';
          return range === 'unsatisfiable' ? null : range;
        }
      : undefined,
  );
  let stream = file.stream;
  let type = knownType;
  if (type === null) {
    const sniffed = await sniff(stream);
    stream = sniffed.stream;
    type = sniffed.text ? 'text/plain; charset=UTF-8' : 'application/octet-stream';
  }
  const headers: Record<string, string> = {
    'Content-Type': type,
    'Content-Length': String(file.size),
    'Last-Modified': new Date(Math.floor(file.lastModifiedMs)).toUTCString(),
    'Cache-Control': 'no-cache',
    'Accept-Ranges': knownType === null ? 'none' : 'bytes',
    'X-Content-Type-Options': 'nosniff',
    'Content-Security-Policy': 'sandbox allow-scripts',
  };
  const download = query.download !== undefined && !['', '0', 'false'].includes(query.download.toLowerCase());
  if (download || file.name.endsWith('.ipynb')) headers['Content-Disposition'] = attachmentHeader(file.name);
  let status: 200 | 206 | 304 | 416 = 200;
  const since = c.req.header('If-Modified-Since');
  const sinceMs = since ? Date.parse(since) : Number.NaN;
  if (!Number.isNaN(sinceMs) && Math.floor(file.lastModifiedMs / 1000) * 1000 <= sinceMs) {
    // Images in rendered Markdown are fetched again on every view: let the browser keep its copy.
    status = 304;
    delete headers['Content-Length'];
  } else if (unsatisfiable) {
    status = 416;
    headers['Content-Range'] = `bytes */${file.size}`;
    headers['Content-Length'] = '0';
  } else if (file.range) {
    status = 206;
    headers['Content-Range'] = `bytes ${file.range.start}-${file.range.end}/${file.size}`;
    headers['Content-Length'] = String(file.range.end - file.range.start + 1);
  }
  if (c.req.method === 'HEAD' || status === 416 || status === 304) {
    await stream.cancel();
    return new Response(null, { status, headers });
  }
  return new Response(stream, { status, headers });
}

/**
 * One `bytes=` range (RFC 9110 §14.1.2): `a-b`, `a-` or the suffix `-n`. Anything else, including
 * several ranges, is ignored (the whole file is served), as the RFC allows.
 */
export function parseRange(header: string, size: number): ByteRange | 'unsatisfiable' | null {
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === '' && match[2] === '')) return null;
  let start: number;
  let end: number;
  if (match[1] === '') {
    const suffix = Number(match[2]);
    if (suffix === 0) return 'unsatisfiable';
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(match[1]);
    end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
    if (match[2] !== '' && Number(match[2]) < start) return null;
  }
  if (start >= size || size === 0) return 'unsatisfiable';
  return { start, end };
}

/** jupyter_server's FilesHandler rules; `null` when only the bytes can tell (sniffed). */
function contentType(name: string): string | null {
  if (name.endsWith('.ipynb')) return 'application/x-ipynb+json';
  const { type, encoding } = guessType(name);
  if (encoding === 'gzip') return 'application/gzip';
  if (encoding !== null) return 'application/octet-stream';
  if (type === 'text/plain') return 'text/plain; charset=UTF-8';
  return type;
}

/**
 * Files with an unknown extension (README, Makefile) are text when their first bytes are UTF-8
 * without NULs. The peeked chunk is put back in front of the rest of the stream.
 */
async function sniff(
  stream: ReadableStream<Uint8Array>,
): Promise<{ text: boolean; stream: ReadableStream<Uint8Array> }> {
  const reader = stream.getReader();
  const first = await reader.read();
  const head = first.done ? new Uint8Array() : first.value;
  const sample = head.subarray(0, SNIFF_BYTES);
  let text = !sample.includes(0);
  if (text) {
    try {
      // stream:true tolerates a multi-byte character cut at the end of the sample.
      new TextDecoder('utf-8', { fatal: true }).decode(sample, { stream: true });
    } catch {
      text = false;
    }
  }
  const rest = new ReadableStream<Uint8Array>({
    start(controller) {
      if (head.byteLength > 0) controller.enqueue(head);
      if (first.done) controller.close();
    },
    async pull(controller) {
      const next = await reader.read();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
  return { text, stream: rest };
}
