import { forbidden } from '@nbserve/core';
import type { MiddlewareHandler } from 'hono';
import type { NbserveEnv } from '../env.js';
import { hostAllowed } from './origin.js';

/** Refuses requests whose Host is not ours while bound to loopback (DNS rebinding). */
export function hostGuard(): MiddlewareHandler<NbserveEnv> {
  return async (c, next) => {
    const host = c.req.header('host') ?? new URL(c.req.url).host;
    if (!hostAllowed(host, c.get('services').options)) {
      c.get('services').options.logger.warn(`Blocking request with non-local Host ${JSON.stringify(host)}`);
      throw forbidden('Host not allowed. Start nbserve with --allow-remote-access or --allowed-hosts to accept it.');
    }
    await next();
  };
}
