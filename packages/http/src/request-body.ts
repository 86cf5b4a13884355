import { isAscii } from 'node:buffer';
import { IncomingMessage } from 'node:http';
import { badRequest, type SpareBuffer } from '@nbserve/core';
import type { Context } from 'hono';
import type { NbserveEnv } from './env.js';

/**
 * A request body as text: strict UTF-8 (a BOM dropped), so bytes that are not UTF-8 are a 400
 * instead of U+FFFD saved in their place; made cheap for big bodies such as a 20 MB notebook:
 *
 * - Under @hono/node-server (its env carries the Node request), a body with a Content-Length that
 *   nothing has read yet is copied from the socket straight into one buffer of that size: no
 *   chunk list to concatenate, no ArrayBuffer copy of it. Elsewhere, the Fetch API's way.
 * - That buffer is the server's shared spare (`Services.lent`), reused by the next big body and by saves.
 * - Pure ASCII, the usual JSON body (a notebook's images are base64), is read as Latin-1: the same
 *   string, about ten times faster than UTF-8 decoding.
 */
export async function readBodyText(c: Context<NbserveEnv>): Promise<string> {
  const body = await readBodyBytes(c);
  try {
    return decodeUtf8(body.bytes);
  } finally {
    body.release(); // the text is a copy
  }
}

/**
 * The request body's bytes, read as readBodyText reads them; `release()` gives the memory they
 * are in back for the next big body once nothing reads them any more.
 */
export async function readBodyBytes(c: Context<NbserveEnv>): Promise<{ bytes: Uint8Array; release: () => void }> {
  const incoming = (c.env as { incoming?: unknown } | undefined)?.incoming;
  const declared = c.req.header('content-length');
  const length = declared !== undefined && /^\d{1,15}$/.test(declared) ? Number(declared) : -1;
  if (
    incoming instanceof IncomingMessage &&
    length >= 0 &&
    c.req.header('transfer-encoding') === undefined &&
    !incoming.readableDidRead &&
    !c.req.raw.bodyUsed
  ) {
    const buffers = c.get('services').lent.shared;
    const body = await readIncoming(incoming, length, buffers);
    let lent = true;
    const release = () => {
      if (lent) buffers.give(body);
      lent = false;
    };
    return { bytes: body, release };
  }
  return { bytes: new Uint8Array(await c.req.arrayBuffer()), release: () => undefined };
}

// Fatal decoding costs nothing extra: it is as fast as the replacing decoder here (17 MB of
// non-ASCII JSON: ~140 ms either way on this machine).
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Body bytes as text; not UTF-8 is a 400 (`bad encoding`). */
export function decodeUtf8(bytes: Uint8Array): string {
  if (isAscii(bytes)) return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  try {
    return utf8.decode(bytes);
  } catch {
    throw badRequest('The request body is not valid UTF-8', 'bad encoding');
  }
}

function readIncoming(incoming: IncomingMessage, length: number, buffers: SpareBuffer): Promise<Buffer> {
  if (length === 0) return Promise.resolve(Buffer.alloc(0));
  if (incoming.destroyed) return Promise.reject(new Error('Request closed before its body was read'));
  return new Promise((resolve, reject) => {
    // The body-limit middleware has already refused a Content-Length over the limit.
    const body = buffers.take(length).subarray(0, length);
    let received = 0;
    const finish = (error: Error | null) => {
      incoming.off('data', onData);
      incoming.off('end', onEnd);
      incoming.off('error', onError);
      incoming.off('close', onClose);
      if (error) {
        buffers.give(body);
        reject(error);
      } else resolve(body);
    };
    const onData = (chunk: Buffer) => {
      if (received + chunk.byteLength > length) {
        finish(new Error('Request body longer than its Content-Length'));
        return;
      }
      chunk.copy(body, received);
      received += chunk.byteLength;
    };
    const onEnd = () => finish(received === length ? null : new Error('Request body shorter than its Content-Length'));
    const onError = (error: Error) => finish(error);
    const onClose = () => {
      if (!incoming.readableEnded) finish(new Error('Request closed before its body was read'));
    };
    incoming.on('data', onData);
    incoming.on('end', onEnd);
    incoming.on('error', onError);
    incoming.on('close', onClose);
  });
}
