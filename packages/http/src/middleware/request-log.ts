import { randomUUID } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';
import { matchedRoutes } from 'hono/route';
import type { NbserveEnv } from '../env.js';

/** `code` and `state` are a JupyterHub OAuth callback's one-time secrets. */
const SECRET_PARAMS = new Set(['token', '_xsrf', 'password', 'code', 'state']);

/**
 * Also `??token=` (the name `?token`), ` Token`, `auth_token`: whatever a client may have meant
 * as a credential, however mangled, is not written to a log (the API fuzzer found `??token=`).
 */
function isSecretParam(key: string): boolean {
  const name = key.toLowerCase().replace(/^[^a-z_]+|[^a-z_]+$/g, '');
  return SECRET_PARAMS.has(name) || name.includes('token') || name.includes('password');
}

/** A URL's path and query with every secret parameter's value replaced, for logs. */
export function redactUrl(url: string): string {
  const parsed = new URL(url, 'http://redact.invalid');
  const params = new URLSearchParams(parsed.search);
  let changed = false;
  for (const key of new Set(params.keys())) {
    if (isSecretParam(key)) {
      params.set(key, '[secret]');
      changed = true;
    }
  }
  const query = changed ? `?${params.toString()}` : parsed.search;
  return `${parsed.pathname}${query}`;
}

const isCatchAll = (pattern: string) => pattern === '*' || pattern === '/*';

/**
 * The route pattern that served a request, below where nbserve is mounted
 * (`/api/kernels/:kernel_id`): bounded, never a file name or a token, so it can label metrics.
 * When middleware answered first (a 403 from the auth check), the first route that would have
 * served it; `*` when no route matched (the 404 and trailing-slash fallback).
 */
export function routePattern(c: Context): string {
  const routes = matchedRoutes(c);
  const relative = (index: number): string | undefined => {
    const route = routes[index];
    if (!route) return undefined;
    return route.basePath === '/' ? route.path : route.path.slice(route.basePath.length);
  };
  const responder = relative(c.req.routeIndex);
  if (responder !== undefined && !isCatchAll(responder)) return responder;
  for (let i = 0; i < routes.length; i++) {
    const pattern = relative(i);
    if (pattern !== undefined && !isCatchAll(pattern)) return pattern;
  }
  return '*';
}

/**
 * The status the client got. An accepted WebSocket upgrade is a plain 200 inside Hono (node-server
 * then completes the handshake), but on the wire it is 101 Switching Protocols, as jupyter_server
 * logs it.
 */
function responseStatus(c: Context): number {
  const status = c.res?.status ?? 500;
  return status === 200 && c.req.header('upgrade')?.toLowerCase() === 'websocket' ? 101 : status;
}

/**
 * One log line per request (status, method, redacted URL, milliseconds; never headers, never
 * bodies) with its request id, route, status and kernel id as fields, and one observation of
 * `http_request_duration_seconds`, as jupyter_server records it when it logs the request.
 */
export function requestLog(): MiddlewareHandler<NbserveEnv> {
  return async (c, next) => {
    const started = performance.now();
    c.set('requestId', randomUUID());
    try {
      await next();
    } finally {
      const { logger } = c.get('services').options;
      const elapsed = performance.now() - started;
      const method = c.req.method;
      const status = responseStatus(c);
      const route = routePattern(c);
      c.get('services').metrics.observeRequest(method, route, status, elapsed / 1000);
      const url = redactUrl(c.req.url);
      const ms = Math.round(elapsed * 10) / 10;
      const line = `${status} ${method} ${url} ${ms.toFixed(1)}ms`;
      const fields = {
        request_id: c.get('requestId'),
        method,
        route,
        url,
        status,
        ms,
        kernel_id: c.get('kernelId'),
      };
      if (status >= 500) logger.error(line, fields);
      else if (status >= 400) logger.warn(line, fields);
      else logger.info(line, fields);
    }
  };
}
