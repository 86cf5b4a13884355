/** How the dashboard shows sizes and times; the server's first rows use the very same functions. */

export function formatSize(size: number | null | undefined): string {
  if (size === null || size === undefined) return '';
  if (size < 1024) return `${size} B`;
  const units = ['kB', 'MB', 'GB', 'TB'];
  let value = size / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${units[unit]}`;
}

/** The options of a day's date: the browser makes its formatter with them, the server in the reader's language. */
export const DATE_OPTIONS: Intl.DateTimeFormatOptions = { year: 'numeric', month: 'short', day: 'numeric' };

/** One formatter for every row (toLocaleDateString makes a new one, tens of milliseconds, per call). */
let localDates: Intl.DateTimeFormat | undefined;

/** Recent times relative to now, older ones as a date (by `dates`, else in this runtime's language and zone). */
export function formatTime(iso: string, dates?: Intl.DateTimeFormat): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  const seconds = (Date.now() - date.getTime()) / 1000;
  if (seconds < 60) return 'seconds ago';
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ago`;
  if (seconds < 86400) return `${Math.floor(seconds / 3600)} h ago`;
  if (dates) return dates.format(date);
  localDates ??= new Intl.DateTimeFormat(undefined, DATE_OPTIONS);
  return localDates.format(date);
}
