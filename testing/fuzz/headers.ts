import { MARKUP_PAYLOADS } from './markup.js';
import type { Rng } from './rng.js';

export const CONTENT_TYPES: readonly string[] = [
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=latin1',
  'text/plain',
  'text/plain; charset=utf-16',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=fzboundary',
  'multipart/form-data',
  'application/octet-stream',
  'application/x-ipynb+json',
  'text/html',
  'garbage',
  ';;;',
  '',
];

/**
 * The headers besides credentials and Content-Type: Origin and Host (same site, another site,
 * malformed), fetch metadata, Accept, and a few that confuse routing (a bare `Upgrade`). Each is
 * present only sometimes; values may carry markup. `host` is `127.0.0.1:<port>`.
 */
export function extraHeaders(rng: Rng, host: string): Record<string, string> {
  const out: Record<string, string> = {};
  const port = host.split(':')[1] ?? '80';
  if (rng.chance(0.25)) {
    out.origin = rng.pick([
      `http://${host}`,
      `http://localhost:${port}`,
      'http://evil.example',
      'null',
      'file://',
      `http://${host}.evil.example`,
      rng.pick(MARKUP_PAYLOADS),
    ]);
  }
  if (rng.chance(0.15)) {
    out.host = rng.pick([
      host,
      `localhost:${port}`,
      `[::1]:${port}`,
      'evil.example',
      `evil.example:${port}`,
      `127.0.0.1.nip.io:${port}`,
      '127.0.0.1:',
      ':::',
      'a'.repeat(300),
      rng.pick(MARKUP_PAYLOADS).replace(/\s/g, ''),
    ]);
  }
  if (rng.chance(0.15)) out['sec-fetch-site'] = rng.pick(['cross-site', 'same-origin', 'same-site', 'none', 'weird']);
  if (rng.chance(0.15)) out['sec-fetch-mode'] = rng.pick(['navigate', 'cors', 'no-cors', 'websocket']);
  if (rng.chance(0.3)) out.accept = rng.pick(['text/html', 'application/json', '*/*', 'text/html;q=0.1, */*']);
  if (rng.chance(0.05)) out.upgrade = rng.pick(['websocket', 'h2c', 'WebSocket']);
  if (rng.chance(0.05)) out.referer = `http://evil.example/${rng.pick(MARKUP_PAYLOADS)}`.replace(/\s/g, '%20');
  if (rng.chance(0.05)) out['x-forwarded-host'] = 'evil.example';
  if (rng.chance(0.05)) out['if-none-match'] = rng.pick(['*', '"x"', 'W/"0"', '"<script>fz1()</script>"']);
  if (rng.chance(0.05)) out['if-modified-since'] = rng.pick(['garbage', 'Thu, 01 Jan 2099 00:00:00 GMT', '0']);
  if (rng.chance(0.05))
    out.range = rng.pick(['bytes=0-1', 'bytes=5-2', 'bytes=-1', 'bytes=0-99999999999999999999', 'lines=1']);
  if (rng.chance(0.03)) out['x-http-method-override'] = 'DELETE';
  return out;
}
