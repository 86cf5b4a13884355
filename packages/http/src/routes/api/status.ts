import type { Hono } from 'hono';
import type { NbserveEnv } from '../../env.js';

/** Jupyter's timestamp form `YYYY-MM-DDTHH:MM:SS.ffffffZ`. */
function isoMicros(date: Date): string {
  return date.toISOString().replace(/Z$/, '000Z');
}

/** `GET /api` (unauthenticated version probe) and `GET /api/status`, which does not count as activity. */
export function registerStatusRoutes(app: Hono<NbserveEnv>): void {
  app.get('/api', (c) => c.json({ version: '2.14.0' }));
  app.get('/api/status', (c) => {
    const { activity } = c.get('services');
    return c.json({
      connections: activity.countConnections(),
      kernels: activity.countKernels(),
      last_activity: isoMicros(activity.lastActivity),
      started: isoMicros(activity.started),
    });
  });
}
