import { isSafeUrl } from '../html/safe-url.js';

/**
 * Where an image may come from: `embedded` only inline data (a data URI, a cell attachment) for a
 * page that must stand alone and load nothing (an export); `linked` also web and relative URLs
 * (the notebook page and the print view, which the server serves).
 */
export type ImagePolicy = 'embedded' | 'linked';

/** A cell's attachments: name to mime bundle (`{"image/png": "<base64>"}`), as nbformat stores them. */
export type Attachments = Record<string, unknown>;

const BASIC_REFERENCES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/**
 * Numeric and the basic named character references, as CommonMark decodes them in link
 * destinations. marked leaves them for the browser, which would read `&#106;avascript:` as
 * `javascript:`: URLs are decoded, then checked, then escaped. Other named references stay as
 * text, which escaping keeps literal: never a scheme.
 */
export function decodeReferences(text: string): string {
  return text.replace(/&(?:#[xX]([0-9a-fA-F]{1,6})|#(\d{1,7})|(amp|lt|gt|quot|apos));/g, (whole, hex, dec, named) => {
    if (named) return BASIC_REFERENCES[named as string] ?? whole;
    const code = hex ? Number.parseInt(hex as string, 16) : Number(dec);
    return code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff) ? String.fromCodePoint(code) : '\ufffd';
  });
}

/** A link's destination if the one URL rule allows it, else undefined (the link becomes its text). */
export function linkUrl(href: string): string | undefined {
  const url = decodeReferences(href).trim();
  return isSafeUrl(url) ? url : undefined;
}

// Raster images only: an SVG is a document of its own, kept out of markdown images everywhere.
const DATA_IMAGE = /^data:image\/(?:png|jpeg|gif|webp);base64,[A-Za-z0-9+/=]+$/;
const ATTACHMENT_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];

/** An image's source under `policy`, `attachment:<name>` resolved to a data URI; undefined if not allowed. */
export function imageUrl(href: string, policy: ImagePolicy, attachments: Attachments = {}): string | undefined {
  const url = decodeReferences(href).trim();
  if (url.startsWith('attachment:')) return attachmentUri(attachments[url.slice('attachment:'.length)]);
  if (DATA_IMAGE.test(url)) return url;
  return policy === 'linked' && isSafeUrl(url) ? url : undefined;
}

function attachmentUri(bundle: unknown): string | undefined {
  if (typeof bundle !== 'object' || bundle === null) return undefined;
  for (const type of ATTACHMENT_TYPES) {
    const value = (bundle as Record<string, unknown>)[type];
    if (typeof value !== 'string') continue;
    const uri = `data:${type};base64,${value.replace(/\s/g, '')}`;
    if (DATA_IMAGE.test(uri)) return uri;
  }
  return undefined;
}
