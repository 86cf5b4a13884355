import type { MiddlewareHandler } from 'hono';
import { baseRoutePath } from 'hono/route';
import type { NbserveEnv } from '../env.js';
import type { Services } from '../services.js';

/**
 * Gives every request its services and the URL prefix it was reached under. The prefix comes
 * from the matched route, so it includes a host app's mount path (`host.route('/x', app)`) as well
 * as `baseUrl`, and `Location` headers built from it are right either way.
 */
export function contextMiddleware(services: Services): MiddlewareHandler<NbserveEnv> {
  return async (c, next) => {
    c.set('services', services);
    const mount = baseRoutePath(c);
    const baseUrl = mount === '/' || mount === '' ? '/' : `${mount.replace(/\/+$/, '')}/`;
    c.set('baseUrl', baseUrl);
    const path = c.req.path;
    c.set('relPath', path.length >= baseUrl.length ? `/${path.slice(baseUrl.length)}` : '/');
    await next();
  };
}
