import { MARKUP_PAYLOADS } from './markup.js';
import { nameSegment } from './paths.js';
import type { Rng } from './rng.js';
import { notebookJson, WORLD_PATHS } from './world.js';

/** A request body and, when the generator meant one, its Content-Type. */
export interface Body {
  bytes: Buffer | undefined;
  contentType: string | undefined;
}

/** Raw JSON spliced in after `JSON.stringify` (numbers JSON.stringify cannot write). */
const RAW = '\u0000raw:';
const RAW_VALUES = [
  '1e999',
  '-1e999',
  '-0',
  '123456789012345678901234567890',
  '1.5e-400',
  '9007199254740993',
  '{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}',
  '{"type":"file","type":"directory","format":"text","format":"base64"}',
];

function nbModel(): unknown {
  return JSON.parse(notebookJson());
}

/** A value of the wrong type, or an extreme one of the right type. */
function oddValue(rng: Rng): unknown {
  return rng.weighted<() => unknown>([
    [2, () => rng.pick([null, true, false, 0, -1, 1.5, 2 ** 53, -(2 ** 63), [], {}, '', [1, 'a', null]])],
    [3, () => `${RAW}${rng.int(RAW_VALUES.length)}`],
    [2, () => rng.pick(MARKUP_PAYLOADS)],
    [1, () => rng.pick(['\ud800', '\udfff', 'a\ud800b', '\u0000', '\u2028\u2029', '\ufeff'])],
    [1, () => 'x'.repeat(rng.pick([70_000, 70_000, 70_000, 1_000_000]))],
    [1, () => nest(rng.pick([50, 1000, 6000]), rng.chance(0.5))],
  ])();
}

/** `depth` nested arrays or objects, spliced in as text (JSON.stringify would run out of stack). */
function nest(depth: number, objects: boolean): string {
  return `${RAW}${objects ? 'objects' : 'arrays'}:${depth}`;
}

function nestedText(kind: string, depth: number): string {
  return kind === 'objects'
    ? `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`
    : `${'['.repeat(depth)}1${']'.repeat(depth)}`;
}

/** A model that fits the route, so a request gets past parsing often enough to reach deeper code. */
function model(rng: Rng, route: string): unknown {
  const somePath = () => (rng.chance(0.7) ? rng.pick(WORLD_PATHS) : nameSegment(rng));
  if (route.startsWith('/api/contents') || route.startsWith('/api/notebooks')) {
    return rng.pick<() => unknown>([
      () => ({ type: 'file', format: 'text', content: rng.pick(['hi', '', rng.pick(MARKUP_PAYLOADS)]) }),
      () => ({ type: 'file', format: 'base64', content: rng.pick(['aGk=', '!!!', '', 'a']) }),
      () => ({ type: 'notebook', format: 'json', content: nbModel() }),
      () => ({ type: 'notebook', content: { nbformat: 3, nbformat_minor: 0, worksheets: [], metadata: {} } }),
      () => ({ type: 'directory' }),
      () => ({ copy_from: somePath() }),
      () => ({ path: somePath() }),
      () => ({ type: rng.pick(['file', 'notebook', 'directory']), ext: rng.pick(['.py', '.ipynb', '', '/x', '..']) }),
      () => ({ type: 'file', format: 'text', content: 'part', chunk: rng.pick([1, 2, -1, 0, 99]) }),
      () => ({}),
    ])();
  }
  if (route.startsWith('/api/kernels') || route === '/kernels') {
    return { name: rng.pick(['javascript', 'missing', '', '../python3']), path: somePath() };
  }
  if (route.startsWith('/api/sessions') || route.startsWith('/api/sesions')) {
    return {
      path: somePath(),
      name: nameSegment(rng),
      type: rng.pick(['notebook', 'file', 'console', 'x']),
      kernel: rng.pick([{ name: 'javascript' }, { name: 'missing' }, { id: 'missing' }, null, 'javascript']),
    };
  }
  if (route.startsWith('/api/config')) return { fz: { nested: rng.pick([1, null, 'x']) }, load_extensions: {} };
  if (route.startsWith('/api/me')) return { name: nameSegment(rng), display_name: rng.pick(MARKUP_PAYLOADS) };
  if (route.startsWith('/api/security')) {
    return { 'csp-report': { 'document-uri': rng.pick(MARKUP_PAYLOADS), 'violated-directive': 'script-src' } };
  }
  if (route.startsWith('/nbconvert') || route.startsWith('/notebooks')) {
    return rng.chance(0.5) ? { name: nameSegment(rng), content: nbModel() } : nbModel();
  }
  if (route.includes('clusters')) return { n: rng.pick([1, 0, -1, 1e9, '2', null]) };
  return { x: 1 };
}

/** Replaces a random member (at any depth) of `value` with an odd one. */
function mutateModel(rng: Rng, value: unknown, depth = 0): unknown {
  if (value === null || typeof value !== 'object' || depth > 6 || rng.chance(0.3)) return oddValue(rng);
  const copy: Record<string, unknown> = Array.isArray(value) ? ([...value] as never) : { ...value };
  const keys = Object.keys(copy);
  if (keys.length === 0 || rng.chance(0.15)) {
    copy[rng.pick(['type', 'format', 'content', 'path', 'name', 'kernel', '__proto__', 'chunk', 'extra'])] =
      oddValue(rng);
  } else {
    const key = rng.pick(keys);
    copy[key] = mutateModel(rng, copy[key], depth + 1);
  }
  return copy;
}

function serialize(value: unknown): string {
  return JSON.stringify(value).replace(
    /"\\u0000raw:(?:(\d+)|(\w+):(\d+))"/g,
    (_, i?: string, kind?: string, depth?: string) =>
      i === undefined ? nestedText(kind as string, Number(depth)) : (RAW_VALUES[Number(i)] as string),
  );
}

/** Byte-level damage to a serialized body: cut, invalid UTF-8, BOM, trailing garbage. */
function damage(rng: Rng, text: string): Buffer {
  const bytes = Buffer.from(text, 'utf8');
  return rng.weighted<() => Buffer>([
    [3, () => bytes.subarray(0, rng.int(bytes.length))],
    [
      2,
      () => {
        const at = rng.int(bytes.length + 1);
        const bad = Buffer.from(
          rng.pick([[0xff], [0xc0, 0xae], [0xed, 0xa0, 0x80], [0xe2, 0x82], [0xf8, 0x88, 0x80, 0x80, 0x80]]),
        );
        return Buffer.concat([bytes.subarray(0, at), bad, bytes.subarray(at)]);
      },
    ],
    [1, () => Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), bytes])],
    [1, () => Buffer.concat([bytes, Buffer.from(rng.pick(['}', ']', ',', ' garbage', '\u0000']))])],
    [1, () => Buffer.from(text.replace(/"/g, "'"))],
  ])();
}

/** Nesting deeper than any recursive walker's stack: built as text, not through JSON.stringify. */
function deepJson(rng: Rng): string {
  const depth = rng.pick([2_000, 6_000, 12_000]);
  const deep = rng.chance(0.5)
    ? `${'['.repeat(depth)}${']'.repeat(depth)}`
    : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
  return rng.pick([
    deep,
    `{"type":"notebook","format":"json","content":{"nbformat":4,"nbformat_minor":5,"metadata":{"x":${deep}},"cells":[]}}`,
    `{"type":"file","format":"text","content":${deep}}`,
    `{"path":${deep},"kernel":${deep},"name":"javascript"}`,
    `{"cells":[{"cell_type":"code","id":"c","metadata":${deep},"outputs":[],"source":""}],"metadata":{},"nbformat":4,"nbformat_minor":5}`,
  ]);
}

/** A form; its `password` is the token half the time (a login that succeeds resets the throttle). */
function form(rng: Rng, token: string): string {
  const pairs = Array.from({ length: rng.between(1, 4) }, () => {
    const key = rng.pick(['password', 'next', '_xsrf', 'n', 'new_password', 'content', 'x']);
    if (key === 'password' && rng.chance(0.5)) return `password=${token}`;
    const value = rng.pick([
      '',
      'x',
      'nbserve',
      '/tree',
      '//evil.example',
      '/%2F%2Fevil.example',
      rng.pick(MARKUP_PAYLOADS),
      '%zz',
    ]);
    return `${key}=${value.includes('%') ? value : encodeURIComponent(value)}`;
  });
  return pairs.join('&');
}

/** A body for `method route`: none, a fitting model, a damaged one, a form, or bytes. */
export function body(rng: Rng, method: string, route: string, token: string): Body {
  if ((method === 'GET' || method === 'HEAD') && rng.chance(0.9)) return { bytes: undefined, contentType: undefined };
  const json = 'application/json';
  return rng.weighted<() => Body>([
    [1, () => ({ bytes: undefined, contentType: undefined })],
    [4, () => ({ bytes: Buffer.from(serialize(model(rng, route))), contentType: json })],
    [4, () => ({ bytes: Buffer.from(serialize(mutateModel(rng, model(rng, route)))), contentType: json })],
    [3, () => ({ bytes: damage(rng, serialize(model(rng, route))), contentType: json })],
    [1, () => ({ bytes: Buffer.from(serialize(oddValue(rng))), contentType: json })],
    [1, () => ({ bytes: Buffer.from(deepJson(rng)), contentType: json })],
    [2, () => ({ bytes: Buffer.from(form(rng, token)), contentType: 'application/x-www-form-urlencoded' })],
    [
      1,
      () => ({
        bytes: Buffer.from(
          `--fzboundary\r\nContent-Disposition: form-data; name="${rng.pick(['password', 'n', '_xsrf', 'x"; filename="a'])}"\r\n\r\n${rng.pick(['1', 'x', rng.pick(MARKUP_PAYLOADS)])}\r\n${rng.chance(0.5) ? '--fzboundary--\r\n' : ''}`,
        ),
        contentType: 'multipart/form-data; boundary=fzboundary',
      }),
    ],
    [1, () => ({ bytes: rng.bytes(rng.between(0, 2000)), contentType: undefined })],
    [
      1,
      () => ({
        bytes: Buffer.from(rng.pick(['', ' ', 'null', '[]', '"x"', '{', '{"a":', '\ufeff{}', 'Title\n=====\n\n*em*'])),
        contentType: undefined,
      }),
    ],
  ])();
}
