import { tooLarge } from '@nbserve/core';
import type { MiddlewareHandler } from 'hono';
import { bodyLimit as honoBodyLimit } from 'hono/body-limit';
import type { NbserveEnv } from '../env.js';

/** Refuses bodies over `maxBodySize` with 413 (by Content-Length up front, or while streaming). */
export function bodyLimit(): MiddlewareHandler<NbserveEnv> {
  return async (c, next) => {
    const { maxBodySize } = c.get('services').options;
    const tooBig = () => {
      throw tooLarge(`Request body is larger than the limit of ${maxBodySize} bytes`);
    };
    // A declared length decides up front, as in hono's bodyLimit, but without touching
    // `c.req.raw.body` first: on @hono/node-server that wraps the socket in a web stream, and every
    // later read of the body goes through it (about 20 ms more for a 20 MB notebook PUT).
    const length = c.req.header('content-length');
    const chunked = c.req.header('transfer-encoding') !== undefined;
    if (length !== undefined && !chunked) {
      return Number.parseInt(length, 10) > maxBodySize ? tooBig() : next();
    }
    // A GET or HEAD without either header has no body (fetch's Request refuses one; Node reads
    // none, RFC 9112 6.3), and they are most requests: hono's check below would build an undici
    // Request for each.
    if ((c.req.method === 'GET' || c.req.method === 'HEAD') && !chunked) return next();
    return honoBodyLimit({ maxSize: maxBodySize, onError: tooBig })(c, next);
  };
}
