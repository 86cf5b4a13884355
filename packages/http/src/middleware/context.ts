import type { MiddlewareHandler } from 'hono';
import { baseRoutePath } from 'hono/route';
import { mountDepth, splitAtMount } from '../base-url.js';
import type { NbserveEnv } from '../env.js';
import type { Services } from '../services.js';

/**
 * Gives every request its services and the URL prefix it was reached under. The prefix spans as
 * many segments as the matched route's mount (a host app's `host.route('/x', app)` plus `baseUrl`)
 * and is taken from the URL as the client sent it, so `Location` headers and cookie paths repeat
 * `/user/a%40b/` or a host's `/:tenant` value exactly.
 */
export function contextMiddleware(services: Services): MiddlewareHandler<NbserveEnv> {
  return async (c, next) => {
    c.set('services', services);
    const depth = mountDepth(baseRoutePath(c));
    const { baseUrl, relPath } = splitAtMount(new URL(c.req.url).pathname, c.req.path, depth);
    c.set('baseUrl', baseUrl);
    c.set('relPath', relPath);
    await next();
  };
}
