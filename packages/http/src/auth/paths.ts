/** Paths are relative to the app's base URL and start with `/`. */

/** API URLs (jupyter_server's and JupyterLab's `/lab/api/`) answer 403 JSON when unauthenticated, never a login redirect. */
export function isApiPath(relPath: string): boolean {
  return relPath === '/api' || relPath.startsWith('/api/') || relPath === '/lab/api' || relPath.startsWith('/lab/api/');
}

/**
 * What needs no login: the version probe `GET /api` (clients call it before they have a token),
 * the login and logout pages, and the web UI's static assets.
 */
export function isPublicPath(relPath: string, method: string): boolean {
  if (relPath === '/api') return method === 'GET' || method === 'HEAD';
  return (
    relPath === '/login' ||
    relPath === '/logout' ||
    relPath === '/favicon.ico' ||
    relPath === '/static' ||
    relPath.startsWith('/static/')
  );
}

/**
 * The per-channel kernel sockets of IPython 0.13–2.x clients authenticate with their first frame
 * (checked by ws/legacy-channels before anything reaches the kernel), so their upgrade may come
 * without credentials. The Origin check still applies.
 */
export function isLegacyChannelSocket(relPath: string): boolean {
  return /^\/(?:api\/)?kernels\/[^/]+\/(?:shell|iopub|stdin)$/.test(relPath);
}

/**
 * Prometheus' scrape target. Without credentials it answers 403, never a login redirect (as
 * jupyter_server's does), unless `authenticateMetrics` is off.
 */
export const METRICS_PATH = '/metrics';

export const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Where browsers post Content-Security-Policy violation reports (jupyter_server's path). */
export const CSP_REPORT_PATH = '/api/security/csp-report';

/**
 * Browsers post CSP violation reports by themselves, without an XSRF token; jupyter_server exempts
 * them too. They still need a login, and cross-site ones are refused before this check.
 */
export function skipsXsrfCheck(relPath: string, method: string): boolean {
  return method === 'POST' && relPath === CSP_REPORT_PATH;
}
