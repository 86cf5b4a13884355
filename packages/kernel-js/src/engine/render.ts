import { inspect } from 'node:util';
import { isObject } from '@nbserve/core/is-object';
import type { MimeBundle } from './messages.js';

/** Objects carrying a method under this symbol render as the bundle it returns. */
export const MIMEBUNDLE = Symbol.for('jupyter.mimebundle');
/** Deno's kernel spelling, accepted so the same objects render in both kernels. */
const DENO_DISPLAY = Symbol.for('Jupyter.display');

export interface Rendered {
  data: MimeBundle;
  metadata: Record<string, unknown>;
}

/** `util.inspect` without colours, bounded for huge values; never throws. */
export function plainText(value: unknown): string {
  try {
    return inspect(value, { colors: false, depth: 4, maxArrayLength: 100, maxStringLength: 100_000, breakLength: 100 });
  } catch (error) {
    return `<uninspectable value: ${String((error as Error)?.message ?? error)}>`;
  }
}

/** Keeps only JSON-serializable entries: strings, or JSON values for `+json` types. */
function cleanBundle(bundle: Record<string, unknown>): MimeBundle {
  const out: MimeBundle = {};
  for (const [mime, data] of Object.entries(bundle)) {
    if (typeof data === 'string') out[mime] = data;
    else if (data !== undefined && (mime === 'application/json' || mime.endsWith('+json'))) {
      out[mime] = JSON.parse(JSON.stringify(data));
    } else if (data !== undefined) out[mime] = String(data);
  }
  return out;
}

/** The display form of a value: its own mime bundle if it offers one, else `text/plain`. */
export function render(value: unknown): Rendered {
  const holder = value as Record<symbol, unknown> | null;
  const method =
    (typeof value === 'object' || typeof value === 'function') && holder !== null
      ? (holder[MIMEBUNDLE] ?? holder[DENO_DISPLAY])
      : undefined;
  if (typeof method === 'function') {
    const produced = method.call(value) as unknown;
    if (isObject(produced)) {
      const hasParts = isObject(produced.data);
      const data = cleanBundle(hasParts ? (produced.data as Record<string, unknown>) : produced);
      const metadata = hasParts && isObject(produced.metadata) ? (produced.metadata as Record<string, unknown>) : {};
      if (data['text/plain'] === undefined) data['text/plain'] = plainText(value);
      return { data, metadata };
    }
  }
  return { data: { 'text/plain': plainText(value) }, metadata: {} };
}

/** Bytes for image outputs: a Buffer/Uint8Array is base64-encoded, a string is taken as base64. */
export function base64(data: string | Uint8Array | ArrayBuffer): string {
  if (typeof data === 'string') return data.replace(/^data:[^;,]+;base64,/, '');
  const bytes = data instanceof ArrayBuffer ? new Uint8Array(data) : data;
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}
