import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { type Send, startServer, type TestServer, TRANSPORTS } from '../../../testing/server.js';
import { apiContentSecurityPolicy } from '../src/middleware/security-headers.js';

const METHODS = ['get', 'put', 'post', 'patch', 'delete', 'head', 'options'] as const;

interface Parameter {
  name?: string;
  in?: string;
  required?: boolean;
  schema?: { enum?: string[] };
  $ref?: string;
}
interface Operation {
  summary?: string;
  tags?: string[];
  parameters?: Parameter[];
  responses?: Record<string, unknown>;
}
type PathItem = Partial<Record<(typeof METHODS)[number], Operation>> & { parameters?: Parameter[] };
interface Spec {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, PathItem>;
  components: Record<string, Record<string, unknown>>;
}

/** A route as registered with Hono: `method` is upper case, or ALL. */
interface Route {
  method: string;
  path: string;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** `/api/kernels/:kernel_id`, `/api/contents/*` as a regular expression over concrete paths. */
function routeRegExp(path: string): RegExp {
  const source = path
    .split('/')
    .map((segment) => {
      if (segment === '*') return '.*';
      const param = /^:\w+(?:\{(.+)\})?$/.exec(segment);
      if (param) return param[1] ? `(?:${param[1]})` : '[^/]+';
      return escapeRegExp(segment);
    })
    .join('/');
  return new RegExp(`^${source}$`);
}

/** A concrete path a Hono route matches. */
function routeSample(path: string): string {
  return path
    .split('/')
    .map((segment) => (segment === '*' ? 'x/y' : segment.startsWith(':') ? 'x' : segment))
    .join('/');
}

/** OpenAPI templates as a regular expression: `{path}` (a contents path) may hold slashes. */
function specRegExp(template: string): RegExp {
  const source = template
    .split(/(\{\w+\})/)
    .map((part) => (part === '{path}' ? '.+' : /^\{\w+\}$/.test(part) ? '[^/]+' : escapeRegExp(part)))
    .join('');
  return new RegExp(`^${source}$`);
}

describe('/api/spec.yaml', () => {
  let fx: TestServer;
  let spec: Spec;
  let routes: Route[];

  beforeAll(async () => {
    fx = await startServer();
    const res = await fx.request('/api/spec.yaml');
    expect(res.status).toBe(200);
    spec = parse(await res.text()) as Spec;
    routes = fx.app.routes.filter((r) => r.path === '/api' || r.path.startsWith('/api/'));
  });
  afterAll(() => fx.close());

  /** The path parameters of an operation, `$ref`s resolved. */
  function parametersOf(item: PathItem, operation: Operation): Parameter[] {
    return [...(item.parameters ?? []), ...(operation.parameters ?? [])].map((p) =>
      p.$ref ? (spec.components.parameters?.[p.$ref.split('/').pop() as string] as Parameter) : p,
    );
  }

  /** A concrete URL for a templated path: a parameter's first enum value, else a placeholder. */
  function specSample(template: string, params: Parameter[]): string {
    return template.replace(/\{(\w+)\}/g, (_, name: string) => {
      if (name === 'path') return 'dir/nb.ipynb';
      return params.find((p) => p.name === name && p.in === 'path')?.schema?.enum?.[0] ?? 'x';
    });
  }

  it('is OpenAPI 3 with an operation summary, tag and responses everywhere, and every $ref resolves', () => {
    expect(spec.openapi).toMatch(/^3\.0\.\d$/);
    expect(spec.info.title).toBe('nbserve REST API');
    const text = JSON.stringify(spec);
    for (const [, ref] of text.matchAll(/"\$ref":"#\/([^"]+)"/g)) {
      const target = (ref as string)
        .split('/')
        .reduce<unknown>((node, key) => (node as Record<string, unknown>)?.[key], spec);
      expect(target, ref).toBeDefined();
    }
    for (const [path, item] of Object.entries(spec.paths)) {
      expect(path).toMatch(/^\/api(\/|$)/);
      for (const method of METHODS) {
        const operation = item[method];
        if (!operation) continue;
        expect(operation.summary, `${method} ${path}`).toBeTruthy();
        expect(operation.tags?.length, `${method} ${path}`).toBeGreaterThan(0);
        expect(Object.keys(operation.responses ?? {}).length, `${method} ${path}`).toBeGreaterThan(0);
        // every template parameter is declared as a required path parameter
        for (const [, name] of path.matchAll(/\{(\w+)\}/g)) {
          const declared = parametersOf(item, operation).find((p) => p.name === name && p.in === 'path');
          expect(declared?.required, `{${name}} of ${method} ${path}`).toBe(true);
        }
      }
    }
  });

  it('describes every /api route nbserve registers', () => {
    expect(routes.length).toBeGreaterThan(20);
    const missing: string[] = [];
    for (const route of routes) {
      const sample = routeSample(route.path);
      const described = Object.entries(spec.paths).some(
        ([template, item]) =>
          specRegExp(template).test(sample) &&
          (route.method === 'ALL'
            ? METHODS.some((m) => item[m])
            : item[route.method.toLowerCase() as (typeof METHODS)[number]] !== undefined),
      );
      if (!described) missing.push(`${route.method} ${route.path}`);
    }
    expect(missing).toEqual([]);
  });

  it('describes nothing nbserve does not serve', () => {
    const extra: string[] = [];
    for (const [template, item] of Object.entries(spec.paths)) {
      for (const method of METHODS) {
        const operation = item[method];
        if (!operation) continue;
        const sample = specSample(template, parametersOf(item, operation));
        const served = routes.some(
          (r) => (r.method === 'ALL' || r.method.toLowerCase() === method) && routeRegExp(r.path).test(sample),
        );
        if (!served) extra.push(`${method.toUpperCase()} ${template}`);
      }
    }
    expect(extra).toEqual([]);
  });

  it('names the routes this file adds: the description itself and the CSP report endpoint', () => {
    expect(spec.paths['/api/spec.yaml']?.get).toBeDefined();
    expect(spec.paths['/api/security/csp-report']?.post).toBeDefined();
  });
});

describe.each(TRANSPORTS)('GET /api/spec.yaml over %s', (kind) => {
  let fx: TestServer;
  let send: Send;
  beforeAll(async () => {
    fx = await startServer({ baseUrl: '/a%40b/' });
    send = fx.send(kind);
  });
  afterAll(() => fx.close());

  it('is served as text/x-yaml with the API policy, and only with a login', async () => {
    const res = await send('/a%40b/api/spec.yaml');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/x-yaml');
    expect(res.headers.get('content-security-policy')).toBe(apiContentSecurityPolicy('/a%40b/'));
    expect((parse(await res.text()) as Spec).paths['/api/contents/{path}']).toBeDefined();
    const anonymous = await send('/a%40b/api/spec.yaml', { headers: { Authorization: '' } });
    expect(anonymous.status).toBe(403);
    expect(await anonymous.json()).toMatchObject({ message: expect.any(String), reason: null });
  });
});
