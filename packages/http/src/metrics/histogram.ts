import { formatBound, type MetricFamily, type Sample } from './exposition.js';

/** The Python client's default buckets, which jupyter_server's request histogram uses. */
export const DEFAULT_BUCKETS: readonly number[] = [
  0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10,
];

interface Series {
  labels: Record<string, string>;
  /** Observations per bucket (not cumulative); the last slot is `+Inf`. */
  counts: number[];
  sum: number;
  count: number;
}

/**
 * A Prometheus histogram with a fixed set of label names. The caller keeps label values bounded
 * (route patterns, never raw paths): every distinct combination is a series kept forever.
 */
export class Histogram {
  readonly #series = new Map<string, Series>();

  constructor(
    readonly name: string,
    readonly help: string,
    readonly labelNames: readonly string[],
    readonly buckets: readonly number[] = DEFAULT_BUCKETS,
  ) {}

  /** Records one observation; `values` follow `labelNames`. */
  observe(values: readonly string[], value: number): void {
    const key = values.join('\u0000');
    let series = this.#series.get(key);
    if (!series) {
      const labels: Record<string, string> = {};
      this.labelNames.forEach((name, i) => {
        labels[name] = values[i] ?? '';
      });
      series = { labels, counts: new Array<number>(this.buckets.length + 1).fill(0), sum: 0, count: 0 };
      this.#series.set(key, series);
    }
    let slot = this.buckets.findIndex((bound) => value <= bound);
    if (slot === -1) slot = this.buckets.length;
    series.counts[slot] = (series.counts[slot] ?? 0) + 1;
    series.sum += value;
    series.count++;
  }

  family(): MetricFamily {
    const samples: Sample[] = [];
    const bounds = [...this.buckets.map(formatBound), '+Inf'];
    for (const series of this.#series.values()) {
      let cumulative = 0;
      bounds.forEach((le, i) => {
        cumulative += series.counts[i] ?? 0;
        samples.push({ name: `${this.name}_bucket`, labels: { ...series.labels, le }, value: cumulative });
      });
      samples.push({ name: `${this.name}_count`, labels: series.labels, value: series.count });
      samples.push({ name: `${this.name}_sum`, labels: series.labels, value: series.sum });
    }
    return { name: this.name, help: this.help, type: 'histogram', samples };
  }
}
