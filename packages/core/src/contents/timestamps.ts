/**
 * Jupyter timestamps: ISO 8601 UTC with microseconds, always `YYYY-MM-DDTHH:MM:SS.ffffffZ`.
 * Input is epoch milliseconds with a fractional part (Node's `mtimeMs` carries sub-ms precision).
 */
export function isoTimestamp(epochMs: number): string {
  if (!Number.isFinite(epochMs) || epochMs < 0) return '1970-01-01T00:00:00.000000Z';
  const micros = Math.floor(epochMs * 1000);
  const second = Math.floor(micros / 1_000_000);
  // Listings format thousands of timestamps, and files made together share their second.
  if (second !== lastSecond) {
    lastPrefix = new Date(second * 1000).toISOString().slice(0, 19);
    lastSecond = second;
  }
  return `${lastPrefix}.${String(micros - second * 1_000_000).padStart(6, '0')}Z`;
}

let lastSecond = Number.NaN;
let lastPrefix = '';

/**
 * Parses an ISO or RFC 1123 timestamp to whole microseconds since the epoch (integer arithmetic,
 * so an ISO `last_modified` we produced compares exactly); `null` when unparsable.
 */
export function parseTimestampMicros(text: string): number | null {
  const iso = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/.exec(text.trim());
  if (iso) {
    const base = Date.parse(`${iso[1]}${iso[3]}`);
    if (Number.isNaN(base)) return null;
    return base * 1000 + Number((iso[2] ?? '').padEnd(6, '0').slice(0, 6));
  }
  const parsed = Date.parse(text);
  return Number.isNaN(parsed) ? null : parsed * 1000;
}
