/**
 * Jupyter timestamps: ISO 8601 UTC with microseconds, always `YYYY-MM-DDTHH:MM:SS.ffffffZ`.
 * Input is epoch milliseconds with a fractional part (Node's `mtimeMs` carries sub-ms precision).
 */
export function isoTimestamp(epochMs: number): string {
  if (!Number.isFinite(epochMs) || epochMs < 0) return '1970-01-01T00:00:00.000000Z';
  const micros = Math.floor(epochMs * 1000);
  const wholeMs = Math.floor(micros / 1000);
  const date = new Date(wholeMs).toISOString(); // YYYY-MM-DDTHH:MM:SS.mmmZ
  const microsInSecond = micros - Math.floor(wholeMs / 1000) * 1_000_000;
  return `${date.slice(0, 19)}.${String(microsInSecond).padStart(6, '0')}Z`;
}

/** Parses an ISO or RFC 1123 timestamp to epoch ms, keeping microseconds; `null` when unparsable. */
export function parseTimestamp(text: string): number | null {
  const iso = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/.exec(text.trim());
  if (iso) {
    const base = Date.parse(`${iso[1]}${iso[3]}`);
    if (Number.isNaN(base)) return null;
    const fraction = iso[2] ? Number(`0.${iso[2]}`) * 1000 : 0;
    return base + fraction;
  }
  const parsed = Date.parse(text);
  return Number.isNaN(parsed) ? null : parsed;
}
