import type { Hono } from 'hono';
import type { NbserveEnv } from '../../env.js';

/**
 * `POST /api/shutdown`: answers first, then stops kernels and asks whoever serves the app
 * (`serve()`, the CLI) to stop listening through `onShutdown`.
 */
export function registerShutdownRoutes(app: Hono<NbserveEnv>, onShutdown: () => void | Promise<void>): void {
  app.post('/api/shutdown', (c) => {
    c.get('services').options.logger.warn('Shutdown requested through /api/shutdown');
    setTimeout(() => {
      Promise.resolve(onShutdown()).catch((error: unknown) => {
        c.get('services').options.logger.error(`Shutdown failed: ${String(error)}`);
      });
    }, 10);
    return c.json({ message: 'Shutting down' });
  });
}
