import { tooLarge } from '@nbserve/core';
import type { MiddlewareHandler } from 'hono';
import { bodyLimit as honoBodyLimit } from 'hono/body-limit';
import type { NbserveEnv } from '../env.js';

/** Refuses bodies over `maxBodySize` with 413 (by Content-Length up front, or while streaming). */
export function bodyLimit(): MiddlewareHandler<NbserveEnv> {
  return async (c, next) => {
    const { maxBodySize } = c.get('services').options;
    const limit = honoBodyLimit({
      maxSize: maxBodySize,
      onError: () => {
        throw tooLarge(`Request body is larger than the limit of ${maxBodySize} bytes`);
      },
    });
    return limit(c, next);
  };
}
