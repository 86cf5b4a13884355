import { MARKUP_PAYLOADS } from './markup.js';
import { contentsPath, escapeSegment } from './paths.js';
import type { Rng } from './rng.js';

/** A route as Hono registered it, relative to where nbserve is served: `GET /api/kernels/:kernel_id`. */
export interface RouteTemplate {
  method: string;
  path: string;
}

/** Routes the fuzzer leaves alone: stopping the server ends the run rather than testing anything. */
const SPARED = new Set(['POST /api/shutdown']);

/**
 * The server's own route table (`app.routes`), every generation, with the base URL cut off:
 * whatever route is added later is fuzzed without touching the fuzzer. `ALL *` (the 404
 * fallback) and middleware entries are left out; random paths reach the fallback anyway.
 */
export function routeTable(routes: ReadonlyArray<{ method: string; path: string }>): RouteTemplate[] {
  const status = routes.find((r) => r.path.endsWith('/api/status'));
  if (!status) throw new Error('no /api/status in the route table');
  const mount = status.path.slice(0, -'/api/status'.length);
  const seen = new Set<string>();
  const out: RouteTemplate[] = [];
  for (const route of routes) {
    if (!route.path.startsWith(mount)) continue;
    const path = route.path.slice(mount.length) || '/';
    const key = `${route.method} ${path}`;
    if (path === '/*' || SPARED.has(key) || seen.has(key)) continue;
    seen.add(key);
    out.push({ method: route.method, path });
  }
  return out;
}

/**
 * How often a route is drawn, relative to 1. Those that start, restart or end a kernel when they
 * succeed cost about a second of a loaded machine each (an ended fuzz kernel is started again),
 * and failed logins are slowed down on purpose, so these are drawn less often.
 */
export function routeWeight(route: RouteTemplate): number {
  const costly =
    (route.method === 'DELETE' && /^\/(api\/)?(kernels|sess?ions)\//.test(route.path)) ||
    (route.method === 'POST' && /^\/(api\/)?kernels$|^\/api\/sess?ions$|\/restart$|\/:action$/.test(route.path)) ||
    (route.method === 'PATCH' && /^\/api\/sess?ions\//.test(route.path)) ||
    (route.method === 'GET' && route.path === '/kernels/:kernel_id/:what') ||
    (route.method === 'POST' && route.path === '/login');
  return costly ? 0.3 : 1;
}

/** Live ids a request may name; the sentinel kernel is never among them. */
export interface Targets {
  kernelId: string;
  sessionId: string;
  legacyNotebookIds: readonly string[];
}

const UUID_LIKE = ['00000000-0000-0000-0000-000000000000', 'ffffffff-ffff-4fff-bfff-ffffffffffff'];

function junk(rng: Rng): string {
  return rng.weighted<() => string>([
    [3, () => rng.string(rng.between(1, 12))],
    [2, () => escapeSegment(rng.pick(MARKUP_PAYLOADS))],
    [1, () => rng.pick(['..', '%2e%2e', '%2F', '%00', '%ff', '%', '-', '%20', 'x'.repeat(5000)])],
    [1, () => rng.pick(UUID_LIKE)],
    [1, () => rng.pick(['__proto__', 'constructor', 'toString', 'hasOwnProperty'])],
  ])();
}

/** A value for one route parameter, by its name: usually a meaningful one, sometimes junk. */
function parameter(rng: Rng, name: string, targets: Targets): string {
  if (rng.chance(0.15)) return junk(rng);
  switch (name) {
    case 'kernel_id':
      return targets.kernelId;
    case 'session_id':
      return targets.sessionId;
    case 'id':
      return rng.chance(0.7) && targets.legacyNotebookIds.length > 0
        ? rng.pick(targets.legacyNotebookIds)
        : rng.pick(['notebook.ipynb', 'dir', 'text.txt', ...UUID_LIKE]);
    case 'channel':
    case 'what':
      return rng.pick(['channels', 'shell', 'iopub', 'stdin', 'control', 'hb', 'interrupt', 'restart']);
    case 'action':
      return rng.pick(['start', 'stop', 'restart', 'interrupt', 'shutdown']);
    case 'profile':
      return rng.pick(['default', 'fz', 'missing']);
    case 'section':
      return rng.pick(['notebook', 'tree', 'common', 'edit', 'terminal']);
    case 'kernel_name':
      return rng.pick(['javascript', 'python3', 'missing']);
    case 'file':
      return rng.pick(['kernel.json', 'logo-64x64.png', 'logo-32x32.png', 'logo-svg.svg', 'kernel.js']);
    case 'format':
      return rng.pick(['html', 'script', 'markdown', 'ipynb', 'notebook', 'python', 'rst', 'pdf', 'latex', 'asciidoc']);
    case 'checkpoint':
      return rng.pick(['checkpoint', '0', 'missing']);
    case 'name':
      return rng.pick(['app.js', 'app.css', 'login.js', 'favicon.ico', 'missing.js']);
    default:
      return junk(rng);
  }
}

/** A concrete, escaped path (starting with `/`) for a route template. */
export function fillRoute(rng: Rng, template: string, targets: Targets): string {
  return template
    .split('/')
    .map((segment) => {
      if (segment === '*') return contentsPath(rng);
      const param = /^:(\w+)/.exec(segment);
      return param ? parameter(rng, param[1] as string, targets) : segment;
    })
    .join('/');
}
