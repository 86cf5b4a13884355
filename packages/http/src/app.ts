import { Hono } from 'hono';
import type { NbserveEnv } from './env.js';
import { errorResponse } from './errors.js';
import { type NbserveOptions, normalizeBaseUrl } from './options.js';
import { createServices, type Services } from './services.js';

export type NbserveApp = Hono<NbserveEnv> & {
  readonly services: Services;
  /** Shuts down what this app started (kernels, timers). */
  close(): Promise<void>;
};

export type CreateAppOptions = Partial<NbserveOptions> & Pick<NbserveOptions, 'root'> & { services?: Services };

/** Builds the nbserve Hono app. Serve it alone, or mount it inside another Hono app. */
export function createApp(input: CreateAppOptions): NbserveApp {
  const services = input.services ?? createServices(resolveOptions(input));
  const api = new Hono<NbserveEnv>();
  api.use('*', async (c, next) => {
    c.set('services', services);
    await next();
  });
  api.get('/api', (c) => c.json({ version: '2.14.0' }));
  api.onError((error, c) => errorResponse(c, error));

  const base = services.options.baseUrl;
  const app = (base === '/' ? api : new Hono<NbserveEnv>().route(base.slice(0, -1), api)) as NbserveApp;
  return Object.assign(app, { services, close: () => services.close() });
}

export function resolveOptions(input: Partial<NbserveOptions> & Pick<NbserveOptions, 'root'>): NbserveOptions {
  return {
    root: input.root,
    baseUrl: normalizeBaseUrl(input.baseUrl),
    token: input.token ?? '',
    allowHidden: input.allowHidden ?? false,
    maxBodySize: input.maxBodySize ?? 512 * 1024 * 1024,
  };
}
