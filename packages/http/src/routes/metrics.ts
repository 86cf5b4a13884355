import type { Hono } from 'hono';
import { METRICS_PATH } from '../auth/paths.js';
import type { NbserveEnv } from '../env.js';
import { EXPOSITION_CONTENT_TYPE } from '../metrics/exposition.js';

/**
 * `GET /metrics`: Prometheus' scrape target, where jupyter_server serves it. The auth middleware
 * decides who may read it (`authenticateMetrics`); a scrape is not user activity.
 */
export function registerMetricsRoutes(app: Hono<NbserveEnv>): void {
  app.get(METRICS_PATH, (c) => {
    c.header('Content-Type', EXPOSITION_CONTENT_TYPE);
    c.header('Cache-Control', 'no-store');
    return c.body(c.get('services').metrics.render());
  });
}
