import { notFound } from '@nbserve/core';
import type { MiddlewareHandler } from 'hono';
import type { NbserveEnv } from '../env.js';
import { requestHost } from './cookies.js';
import { checkApiOrigin, originAllowedByConfig } from './origin.js';
import { isApiPath } from './paths.js';

const ALLOW_HEADERS = 'accept, content-type, authorization, x-xsrftoken, x-csrftoken';
const ALLOW_METHODS = 'GET, PUT, POST, PATCH, DELETE, OPTIONS';

/**
 * API origin policy as jupyter_server has it: preflight `OPTIONS` answers without auth; a request
 * whose Origin matches neither Host nor the configuration gets 404 (deliberately not 403); an
 * origin allowed by configuration gets CORS headers.
 */
export function corsGuard(): MiddlewareHandler<NbserveEnv> {
  return async (c, next) => {
    // WebSocket upgrades have their own Origin rule (403) in the auth middleware.
    if (!isApiPath(c.get('relPath')) || c.req.header('upgrade')?.toLowerCase() === 'websocket') return next();
    const { options } = c.get('services');
    const origin = c.req.header('origin');
    const allowedByConfig = origin !== undefined && originAllowedByConfig(origin, options);
    const corsHeaders = (headers: Headers) => {
      if (!allowedByConfig) return;
      headers.set('Access-Control-Allow-Origin', options.allowOrigin.includes('*') ? '*' : (origin ?? ''));
      headers.append('Vary', 'Origin');
    };
    if (c.req.method === 'OPTIONS') {
      const headers = new Headers({
        'Access-Control-Allow-Headers': ALLOW_HEADERS,
        'Access-Control-Allow-Methods': ALLOW_METHODS,
      });
      corsHeaders(headers);
      return new Response(null, { status: 204, headers });
    }
    if (!checkApiOrigin(origin, requestHost(c), options)) {
      options.logger.warn(`Blocking cross-origin API request from ${JSON.stringify(origin).slice(0, 200)}`);
      throw notFound('Not Found');
    }
    await next();
    if (allowedByConfig) {
      try {
        corsHeaders(c.res.headers);
      } catch {
        c.res = new Response(c.res.body, c.res);
        corsHeaders(c.res.headers);
      }
    }
  };
}
