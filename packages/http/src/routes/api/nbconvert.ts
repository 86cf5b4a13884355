import type { Hono } from 'hono';
import type { NbserveEnv } from '../../env.js';

/** `GET /api/nbconvert`: `{format: {output_mimetype}}` for every exporter this server has. */
export function registerNbconvertApiRoutes(app: Hono<NbserveEnv>): void {
  app.get('/api/nbconvert', async (c) => c.json(await c.get('services').exporters.list()));
}
