import { getWebAssets } from '@nbserve/web';
import type { Hono } from 'hono';
import type { NbserveEnv } from '../../env.js';

/**
 * The document trusted outputs run in. `sandbox allow-scripts` (without allow-same-origin) gives
 * it an opaque origin even when opened directly, so its scripts can neither read nbserve's
 * cookies nor call the API as the user; within that box, output scripts may load what they like.
 */
const FRAME_CSP = [
  'sandbox allow-scripts allow-popups',
  "default-src 'none'",
  "script-src 'self' 'unsafe-inline' 'unsafe-eval' https:",
  "style-src 'unsafe-inline' https:",
  'img-src data: blob: https:',
  'font-src data: https:',
  "frame-ancestors 'self'",
].join('; ');

export function registerOutputFrameRoutes(app: Hono<NbserveEnv>): void {
  app.get('/output-frame', async (c) => {
    const assets = await getWebAssets();
    const script = `${c.get('baseUrl')}static/${assets.manifest['output-frame.js'] ?? ''}`;
    const html = `<!doctype html><html><head><meta charset="utf-8"><style>body{margin:0;font:14px system-ui,sans-serif}</style><script defer src="${script}"></script></head><body><div id="output"></div></body></html>`;
    return c.html(html, 200, { 'Content-Security-Policy': FRAME_CSP, 'Cache-Control': 'no-store' });
  });
}
