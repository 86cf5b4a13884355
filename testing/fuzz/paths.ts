import { MARKUP_PAYLOADS } from './markup.js';
import type { Rng } from './rng.js';
import { WORLD_PATHS } from './world.js';

/** `encodeURIComponent` plus the characters it leaves (`!'()*`), as a client escaping everything would. */
export function escapeSegment(segment: string): string {
  return encodeURIComponent(segment).replace(/[!'()*]/g, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`);
}

export function escapePath(path: string): string {
  return path.split('/').map(escapeSegment).join('/');
}

/** Raw path segments (already as they go on the wire) meant to escape the root or confuse a decoder. */
const NASTY_SEGMENTS: readonly string[] = [
  '..',
  '.',
  '%2e%2e',
  '%2E%2E',
  '.%2e',
  '%2e.',
  '%252e%252e',
  '..%2f..%2fsentinel',
  '..%2F..%2Fsentinel%2Fsecret.txt',
  '%2f',
  '%2fetc%2fpasswd',
  '..%5c..%5csentinel',
  '%5c',
  '%00',
  'a%00b.txt',
  'x.ipynb%00.txt',
  '%c0%ae%c0%ae', // overlong UTF-8 for '..'
  '%c0%af', // overlong '/'
  '%e0%80%ae',
  '%ff%fe',
  '%ed%a0%80', // a UTF-8-encoded lone surrogate
  '%',
  '%zz',
  '%2',
  '\u00c0\u00ae\u00c0\u00ae', // the overlong bytes sent raw (node sends the path as latin1)
  '\u00ff',
  '~',
  '~root',
  'con',
  'NUL',
  '.ipynb_checkpoints',
  '.git',
  'link-out',
  'link-secret.txt',
  'link-abs.txt',
  'link-loop',
  'link-dangling.txt',
  '*',
  ':id',
  '{path}',
  ';x=1',
  '%3F',
  '%23',
  '%20',
  '+',
];

/** A name segment (unescaped): plain, unicode, markup, control characters, very long. */
export function nameSegment(rng: Rng): string {
  return rng.weighted<() => string>([
    [4, () => `f${rng.string(rng.between(1, 8))}${rng.pick(['.txt', '.ipynb', '.py', '', '.html', '.md'])}`],
    [2, () => rng.pick(MARKUP_PAYLOADS).replace(/\//g, '') + rng.pick(['.ipynb', '.txt', ''])],
    [1, () => `ü-é-漢字-🙂${rng.pick(['.txt', '.ipynb'])}`],
    [1, () => `ctl\u0001\u001f\u007f${rng.pick(['.txt', '\t', '\n'])}`],
    [1, () => 'n'.repeat(rng.pick([255, 256, 1000, 5000]))],
    [1, () => `${'a'.repeat(250)}.ipynb`],
    [1, () => rng.pick([' ', '  lead', 'trail ', '.', '..', '...', '-', '\\', 'a\\b', 'a:b', '"q"', "'"])],
    [1, () => `\ud800lone${rng.pick(['.txt', ''])}`],
  ])();
}

/** A contents path, escaped for a URL: an existing one, a new one, or a hostile one. */
export function contentsPath(rng: Rng): string {
  return rng.weighted<() => string>([
    [5, () => escapePath(rng.pick(WORLD_PATHS))],
    [3, () => `${rng.chance(0.3) ? 'dir/' : ''}${escapeSegmentSafe(nameSegment(rng))}`],
    [3, () => mutatePath(rng, escapePath(rng.pick(WORLD_PATHS)))],
    [2, () => Array.from({ length: rng.between(1, 4) }, () => rng.pick(NASTY_SEGMENTS)).join('/')],
    [1, () => rng.pick(['', '/', '//', '/etc/passwd', '//etc/passwd', 'C:%5cWindows', '%2Fetc%2Fpasswd'])],
    [1, () => `${'deep/'.repeat(rng.between(20, 200))}x.txt`],
  ])();
}

/** Lone surrogates cannot go through encodeURIComponent: sent as the bytes of one instead. */
function escapeSegmentSafe(segment: string): string {
  try {
    return escapeSegment(segment);
  } catch {
    return segment.replace(/[\ud800-\udfff]/g, '%ed%a0%80').replace(/[^\w.%-]/g, (ch) => escapeSegment(ch));
  }
}

/** One mutation of an escaped path: dot segments, escapes, slashes, NUL, overlong bytes, length. */
export function mutatePath(rng: Rng, escaped: string): string {
  const parts = escaped.split('/');
  const at = rng.int(parts.length + 1);
  return rng.weighted<() => string>([
    [3, () => [...parts.slice(0, at), rng.pick(NASTY_SEGMENTS), ...parts.slice(at)].join('/')],
    [1, () => escaped.replace(/\//g, rng.pick(['%2F', '%2f', '//', '/./', '\\', '%5C']))],
    [1, () => escaped.replace(/\./g, rng.pick(['%2e', '%2E', '%252e', '%c0%ae']))],
    [1, () => `${escaped}${rng.pick(['/', '//', '%00', '%2F', '/..', '/.', '.', '%20', '?', '#x'])}`],
    [1, () => `${rng.pick(['../', '..%2F', '/', './', '%2e%2e/', '%2e%2e%2f'])}${escaped}`],
    [1, () => escaped.replace(/[a-z]/, (ch) => `%${ch.charCodeAt(0).toString(16)}`)],
    [1, () => `${escaped}${'x'.repeat(rng.pick([300, 4096, 20_000]))}`],
  ])();
}
