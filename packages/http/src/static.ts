import { getWebAssets } from '@nbserve/web';
import type { Context, Hono } from 'hono';
import type { NbserveEnv } from './env.js';

/** Hashed file names never change content, so browsers may keep them for a year. */
const IMMUTABLE = 'public, max-age=31536000, immutable';

async function serveStatic(c: Context<NbserveEnv>): Promise<Response> {
  const name = c.req.param('name') ?? '';
  const assets = await getWebAssets();
  const file = /^[\w.-]+$/.test(name) ? assets.files.get(name) : undefined;
  if (!file) return c.text('Not Found', 404, { 'Cache-Control': 'no-store' });
  const headers = {
    'Content-Type': file.contentType,
    'Content-Length': String(file.body.byteLength),
    'Cache-Control': IMMUTABLE,
  };
  if (c.req.method === 'HEAD') return c.body(null, 200, headers);
  return c.body(file.body as Uint8Array<ArrayBuffer>, 200, headers);
}

/** `GET <base>/static/<hashed name>`: the web UI bundle (built in memory on first use). */
export function registerStaticRoutes(app: Hono<NbserveEnv>): void {
  app.on(['GET', 'HEAD'], '/static/:name', serveStatic);
}
