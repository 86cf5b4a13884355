import type { Context, Hono } from 'hono';
import * as v from 'valibot';
import type { NbserveEnv } from '../env.js';
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
  const path = pathSegmentsAfter(c, '/files').join('/');
  const query = v.parse(FilesQuery, c.req.query());
  const file = await c.get('services').contents.openFile(path);
  let stream = file.stream;
  let type = contentType(file.name, file.mimetype);
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
    'X-Content-Type-Options': 'nosniff',
    'Content-Security-Policy': 'sandbox allow-scripts',
  };
  const download = query.download !== undefined && !['', '0', 'false'].includes(query.download.toLowerCase());
  if (download || file.name.endsWith('.ipynb')) headers['Content-Disposition'] = attachment(file.name);
  if (c.req.method === 'HEAD') {
    await stream.cancel();
    return new Response(null, { status: 200, headers });
  }
  return new Response(stream, { status: 200, headers });
}

function contentType(name: string, guessed: string | null): string | null {
  if (name.endsWith('.ipynb')) return 'application/x-ipynb+json';
  if (guessed === 'text/plain') return 'text/plain; charset=UTF-8';
  return guessed;
}

/** Tornado's `set_attachment_header`: RFC 5987 so any file name survives. */
function attachment(name: string): string {
  const escaped = encodeURIComponent(name).replace(
    /['()*]/g,
    (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `attachment; filename*=utf-8''${escaped}`;
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
