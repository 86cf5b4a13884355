import type { MiddlewareHandler } from 'hono';
import type { NbserveEnv } from '../env.js';

/** `code` and `state` are a JupyterHub OAuth callback's one-time secrets. */
const SECRET_PARAMS = new Set(['token', '_xsrf', 'password', 'code', 'state']);

/** A URL's path and query with every secret parameter's value replaced, for logs. */
export function redactUrl(url: string): string {
  const parsed = new URL(url, 'http://redact.invalid');
  const params = new URLSearchParams(parsed.search);
  let changed = false;
  for (const key of new Set(params.keys())) {
    if (SECRET_PARAMS.has(key.toLowerCase())) {
      params.set(key, '[secret]');
      changed = true;
    }
  }
  const query = changed ? `?${params.toString()}` : parsed.search;
  return `${parsed.pathname}${query}`;
}

/** One line per request: status, method, redacted URL, milliseconds. Never headers, never bodies. */
export function requestLog(): MiddlewareHandler<NbserveEnv> {
  return async (c, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      const { logger } = c.get('services').options;
      const status = c.res?.status ?? 500;
      const line = `${status} ${c.req.method} ${redactUrl(c.req.url)} ${(performance.now() - started).toFixed(1)}ms`;
      if (status >= 500) logger.error(line);
      else if (status >= 400) logger.warn(line);
      else logger.info(line);
    }
  };
}
