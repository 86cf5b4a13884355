import { isObject, type JsonObject } from '@nbserve/core';
import type { Hono } from 'hono';
import * as v from 'valibot';
import type { NbserveEnv } from '../../env.js';
import { parseJsonBody } from '../../validate.js';

const ObjectBody = v.custom<JsonObject>(isObject, 'the body must be a JSON object');

/** `/api/config/<section>`: GET the section, PUT to replace it (204), PATCH to merge into it (200, merged). */
export function registerConfigRoutes(app: Hono<NbserveEnv>): void {
  app.get('/api/config/:section', async (c) => c.json(await c.get('services').config.get(c.req.param('section'))));
  app.put('/api/config/:section', async (c) => {
    const section = c.req.param('section');
    const body = await parseJsonBody(c, ObjectBody);
    await c.get('services').config.set(section, body);
    return c.body(null, 204);
  });
  app.patch('/api/config/:section', async (c) => {
    const section = c.req.param('section');
    const body = await parseJsonBody(c, ObjectBody);
    return c.json(await c.get('services').config.update(section, body));
  });
}
