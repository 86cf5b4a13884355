/** Which representation of a rich output to show, best first (Jupyter's classic order). */
export const MIME_ORDER = [
  'application/vnd.jupyter.widget-view+json',
  'application/javascript',
  'text/html',
  'text/markdown',
  'text/latex',
  'image/svg+xml',
  'image/png',
  'image/jpeg',
  'image/gif',
  'application/json',
  'text/plain',
] as const;

/** Mime types that may run script or inject markup, so they need a trusted notebook. */
export const UNSAFE_MIME = new Set(['application/javascript', 'text/html', 'image/svg+xml']);

export type MimeBundle = Record<string, unknown>;

/** Multi-line strings in nbformat may be arrays of lines. */
export function joinText(value: unknown): string {
  if (Array.isArray(value)) return value.map((v) => (typeof v === 'string' ? v : '')).join('');
  return typeof value === 'string' ? value : '';
}

/** Picks the richest representation this page can show for the trust level. */
export function pickMime(bundle: MimeBundle, trusted: boolean): string | undefined {
  for (const mime of MIME_ORDER) {
    if (!(mime in bundle)) continue;
    if (mime === 'application/vnd.jupyter.widget-view+json') continue;
    if (mime === 'application/javascript' && !trusted) continue;
    return mime;
  }
  return Object.keys(bundle)[0];
}

/** Base64 image data may carry whitespace; anything else is rejected so it cannot break out. */
export function cleanBase64(value: unknown): string | undefined {
  const text = joinText(value).replace(/\s+/g, '');
  return /^[A-Za-z0-9+/]*={0,2}$/.test(text) ? text : undefined;
}
