import path from 'node:path';
import type { Hono } from 'hono';
import type { NbserveEnv } from '../env.js';
import { kernelNameParam } from './api/kernelspecs.js';

const TYPES: Record<string, string> = {
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.gif': 'image/gif',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.ico': 'image/x-icon',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
};

/** `GET|HEAD /kernelspecs/<name>/<file>`: a kernelspec's logo, kernel.js or kernel.css (authenticated), from disk or the gateway. */
export function registerKernelSpecResourceRoutes(app: Hono<NbserveEnv>): void {
  app.on(['GET', 'HEAD'], '/kernelspecs/:kernel_name/:file', async (c) => {
    const name = kernelNameParam(c);
    const file = c.req.param('file');
    const body = await c.get('services').kernelspecs.resource(name, file);
    const type = TYPES[path.extname(file).toLowerCase()] ?? 'text/plain; charset=utf-8';
    // SVG and scripts from a kernelspec directory must not run as a page of this origin.
    c.header('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; sandbox");
    c.header('X-Content-Type-Options', 'nosniff');
    c.header('Cache-Control', 'max-age=3600');
    c.header('Content-Type', type);
    if (c.req.method === 'HEAD') return c.body(null, 200);
    return c.body(new Uint8Array(body), 200);
  });
}
