import { badRequest, notFound } from '@nbserve/core';
import type { Context, Hono } from 'hono';
import * as v from 'valibot';
import type { NbserveEnv } from '../../env.js';
import { parseWith, readJsonBody } from '../../validate.js';

type Ctx = Context<NbserveEnv>;

/** Jupyter's id pattern for kernels and sessions (a uuid with dashes). */
export const UUID_PATTERN = /^\w+-\w+-\w+-\w+-\w+$/;

const StartBody = v.nullish(
  v.object(
    {
      name: v.optional(v.nullable(v.pipe(v.string('name must be a string'), v.maxLength(255, 'name is too long')))),
      path: v.optional(v.nullable(v.pipe(v.string('path must be a string'), v.maxLength(4096, 'path is too long')))),
      kernel_id: v.optional(
        v.nullable(v.pipe(v.string('kernel_id must be a string'), v.regex(UUID_PATTERN, 'kernel_id must be a uuid'))),
      ),
    },
    'The request body must be a JSON object',
  ),
);

/** The `:kernel_id` of a route; a malformed id is simply an unknown kernel. */
export function kernelIdParam(c: Ctx): string {
  const id = c.req.param('kernel_id') ?? '';
  if (!UUID_PATTERN.test(id)) throw notFound(`Kernel does not exist: ${id.slice(0, 100)}`);
  c.set('kernelId', id);
  return id;
}

/** `/api/kernels` as in jupyter_server's REST API. The channels WebSocket is registered by ws/channels-route.ts. */
export function registerKernelRoutes(app: Hono<NbserveEnv>): void {
  app.get('/api/kernels', (c) => c.json(c.get('services').kernels.list()));

  app.post('/api/kernels', async (c) => {
    const raw = await readJsonBody(c);
    if (Array.isArray(raw)) throw badRequest('The request body must be a JSON object');
    const body = parseWith(StartBody, raw, 'request body');
    const kernel = await c.get('services').kernels.launch({
      name: body?.name ?? undefined,
      path: body?.path ?? undefined,
      kernelId: body?.kernel_id ?? undefined,
    });
    c.set('kernelId', kernel.id);
    c.header('Location', `${c.get('baseUrl')}api/kernels/${kernel.id}`);
    return c.json(kernel.model(), 201);
  });

  app.get('/api/kernels/:kernel_id', (c) => c.json(c.get('services').kernels.get(kernelIdParam(c)).model()));

  app.delete('/api/kernels/:kernel_id', async (c) => {
    await c.get('services').kernels.shutdown(kernelIdParam(c));
    return c.body(null, 204);
  });

  app.post('/api/kernels/:kernel_id/interrupt', async (c) => {
    await c.get('services').kernels.interrupt(kernelIdParam(c));
    return c.body(null, 204);
  });

  app.post('/api/kernels/:kernel_id/restart', async (c) => {
    const kernel = await c.get('services').kernels.restart(kernelIdParam(c));
    c.header('Location', `${c.get('baseUrl')}api/kernels/${kernel.id}`);
    return c.json(kernel.model(), 200);
  });
}
