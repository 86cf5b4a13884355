import { COMPUTED_DEFAULTS, type ComputedDefaults, DEFAULTS, type Defaults } from '@nbserve/http';
import type { FlagSpec } from './flag-table.js';

/** `bytes` as the size flags take it: `512M`, `16K`, or plain bytes when no unit divides it. */
export function formatSize(bytes: number): string {
  for (const [unit, size] of [
    ['G', 1024 ** 3],
    ['M', 1024 ** 2],
    ['K', 1024],
  ] as const) {
    if (bytes >= size && bytes % size === 0) return `${bytes / size}${unit}`;
  }
  return String(bytes);
}

/**
 * The default of `flag` as `--help` and docs/configuration.md show it, read from `defaults` (a
 * fixed value) or `computed` (a description); tests pass other tables.
 */
export function flagDefault(
  flag: FlagSpec,
  defaults: Defaults = DEFAULTS,
  computed: ComputedDefaults = COMPUTED_DEFAULTS,
): string {
  const value = defaultValue(flag, defaults, computed);
  return flag.defaultNote ? `${value} (${flag.defaultNote})` : value;
}

function defaultValue(flag: FlagSpec, defaults: Defaults, computed: ComputedDefaults): string {
  if (Object.hasOwn(computed, flag.option)) return computed[flag.option as keyof ComputedDefaults];
  if (!Object.hasOwn(defaults, flag.option)) throw new Error(`--${flag.name}: no default for ${flag.option}`);
  const value: unknown = defaults[flag.option as keyof Defaults];
  if (Array.isArray(value)) return value.length === 0 ? 'none' : value.join(',');
  if (typeof value === 'object' && value !== null) {
    const pairs = Object.entries(value).map(([name, v]) => `${name}=${String(v)}`);
    return pairs.length === 0 ? 'none' : pairs.join(',');
  }
  if (value === '') return 'none';
  if (flag.type === 'size' && typeof value === 'number') return formatSize(value);
  return String(value);
}
