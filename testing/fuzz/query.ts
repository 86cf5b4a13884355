import { MARKUP_PAYLOADS } from './markup.js';
import { escapeSegment } from './paths.js';
import type { Rng } from './rng.js';

const KEYS = [
  'type',
  'format',
  'content',
  'hash',
  'download',
  'next',
  'name',
  'notebook',
  'session_id',
  'kernel_name',
  'path',
  'offset',
  'limit',
  'n',
  'to',
  'x',
  'token',
] as const;

const VALUES: Record<string, readonly string[]> = {
  type: ['file', 'notebook', 'directory', 'x'],
  format: ['text', 'base64', 'json', 'py', 'html'],
  content: ['0', '1', '2', 'true'],
  hash: ['0', '1'],
  download: ['1', 'true', '0', ''],
  next: [
    '/tree',
    '//evil.example',
    '/\\evil.example',
    'https://evil.example',
    '/%2F%2Fevil.example',
    '/%09/evil.example',
    'javascript:alert(1)',
    '/x/../../..//evil.example',
  ],
  offset: ['0', '-1', '1e9', 'x', '99999999999999999999'],
  limit: ['1', '0', '-5', '1000000'],
  n: ['1', '0', '-1', '1e3', 'x'],
};

/** A query string (without `?`): known keys with fitting, odd, repeated, markup or broken values. */
export function queryString(rng: Rng): string {
  const count = rng.weighted([
    [5, 0],
    [3, 1],
    [2, 2],
    [1, 4],
  ]);
  const pairs: string[] = [];
  for (let i = 0; i < count; i++) {
    const key = rng.chance(0.9) ? rng.pick(KEYS) : rng.pick(['%zz', 'a[]', '__proto__', '', '%00', 'x'.repeat(3000)]);
    const fitting = VALUES[key];
    const value = rng.weighted<() => string>([
      [4, () => escapeSegment(fitting ? rng.pick(fitting) : rng.string(rng.between(0, 10)))],
      [2, () => escapeSegment(rng.pick(MARKUP_PAYLOADS))],
      [1, () => rng.pick(['%zz', '%', '%00', '%ff%fe', '%ed%a0%80', '+', '&&', '=='])],
      [1, () => 'y'.repeat(rng.pick([500, 9000]))],
    ])();
    pairs.push(rng.chance(0.05) ? key : `${key}=${value}`);
  }
  return pairs.join('&');
}
