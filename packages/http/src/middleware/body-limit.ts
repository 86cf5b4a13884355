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
    if (length !== undefined && c.req.header('transfer-encoding') === undefined) {
      return Number.parseInt(length, 10) > maxBodySize ? tooBig() : next();
    }
    return honoBodyLimit({ maxSize: maxBodySize, onError: tooBig })(c, next);
  };
}
