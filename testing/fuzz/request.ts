import { body } from './bodies.js';
import { type CredentialKind, credential, type Secrets } from './credentials.js';
import { CONTENT_TYPES, extraHeaders } from './headers.js';
import { mutatePath } from './paths.js';
import { queryString } from './query.js';
import type { Rng } from './rng.js';
import { fillRoute, type RouteTemplate, routeWeight, type Targets } from './routes.js';

/** One generated HTTP request, as it goes on the wire. */
export interface FuzzRequest {
  /** The route template it was made from, `METHOD /path/:param`. */
  route: string;
  method: string;
  /** Path and query exactly as sent, from `/` on. */
  target: string;
  headers: Record<string, string>;
  body: Buffer | undefined;
  credential: CredentialKind;
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];
const ODD_METHODS = ['PROPFIND', 'TRACE', 'get', 'M-SEARCH', 'FZ'];

/**
 * A request for a random route of the table: its own method usually (any other sometimes), its
 * parameters filled, the path sometimes mutated, with a query, credentials, headers and a body.
 * `prefix` is where nbserve is served (`/`, `/a%40b/`).
 */
export function makeRequest(
  rng: Rng,
  routes: readonly RouteTemplate[],
  prefix: string,
  targets: Targets,
  secrets: Secrets,
  host: string,
): FuzzRequest {
  const template = rng.weighted(routes.map((route) => [routeWeight(route), route] as const));
  let method = template.method === 'ALL' ? rng.pick(METHODS) : template.method;
  if (rng.chance(0.1)) method = rng.chance(0.8) ? rng.pick(METHODS) : rng.pick(ODD_METHODS);
  let path = fillRoute(rng, template.path, targets);
  if (rng.chance(0.15)) path = mutatePath(rng, path);
  const target = rng.chance(0.03)
    ? rng.pick(['', '/', '//', '/../', '/%2e%2e/', '*'])
    : `${prefix}${path.replace(/^\//, '')}`;
  const auth = credential(rng, secrets);
  const query = [auth.query, queryString(rng)].filter((part) => part !== '').join('&');
  const generated = body(rng, method, template.path, secrets.token);
  const headers: Record<string, string> = { ...extraHeaders(rng, host), ...auth.headers };
  const contentType = rng.chance(0.15) ? rng.pick(CONTENT_TYPES) : generated.contentType;
  if (contentType !== undefined) headers['content-type'] = contentType;
  return {
    route: `${template.method} ${template.path}`,
    method,
    target: query === '' ? target : `${target}?${query}`,
    headers,
    body: generated.bytes,
    credential: auth.kind,
  };
}

/** The request as a reader (and a replaying developer) needs it: bodies cut to 400 characters. */
export function describeRequest(request: FuzzRequest): string {
  const shown = (text: string) => (text.length > 400 ? `${text.slice(0, 400)}… (${text.length} chars)` : text);
  const bodyText = request.body === undefined ? '(none)' : JSON.stringify(shown(request.body.toString('latin1')));
  return [
    `${request.method} ${shown(request.target)}   [route ${request.route}, credential: ${request.credential}]`,
    ...Object.entries(request.headers).map(([k, v]) => `  ${k}: ${shown(v)}`),
    `  body: ${bodyText}`,
  ].join('\n');
}
