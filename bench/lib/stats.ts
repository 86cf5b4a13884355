/** Order statistics over latency/duration samples. */

export function sorted(samples: readonly number[]): number[] {
  return [...samples].sort((a, b) => a - b);
}

/** Nearest-rank percentile (p in 0..100); NaN for no samples. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const s = sorted(samples);
  const rank = Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1));
  return s[rank] as number;
}

export function median(samples: readonly number[]): number {
  if (samples.length === 0) return Number.NaN;
  const s = sorted(samples);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

/** Milliseconds since `start` (a `performance.now()` value). */
export function since(start: number): number {
  return performance.now() - start;
}

/** Appends samples to the list kept under `key`. */
export function addSamples<K extends string>(map: Partial<Record<K, number[]>>, key: K, ...values: number[]): void {
  const list = map[key] ?? [];
  list.push(...values);
  map[key] = list;
}
