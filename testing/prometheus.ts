/**
 * Reading a `/metrics` answer the way Prometheus does: a real text-format parser
 * (`parse-prometheus-text-format`, which throws on a line Prometheus would reject), and lookups of
 * one series by name and labels.
 */
import parsePrometheusTextFormat, { type PrometheusFamily, type PrometheusMetric } from 'parse-prometheus-text-format';
import type { Send, SendInit } from './server.js';

export type { PrometheusFamily, PrometheusMetric };

export interface HistogramSeries {
  /** Cumulative counts keyed by the `le` bound as written (`0.005`, `1.0`, `+Inf`). */
  buckets: Record<string, number>;
  count: number;
  sum: number;
}

/**
 * One scrape, parsed twice: as written (metric types and help, and a parse error for any line
 * Prometheus would reject), and with the TYPE lines dropped so that every sample name
 * (`x_bucket`, `x_count`, `x_sum`) is a family of its own. The second reading gives labelled
 * histograms series by series, which the parser's own histogram view folds into one.
 */
export class Scrape {
  readonly families: ReadonlyMap<string, PrometheusFamily>;
  readonly #samples: ReadonlyMap<string, readonly PrometheusMetric[]>;

  constructor(readonly text: string) {
    this.families = byName(parsePrometheusTextFormat(text));
    const untyped = text
      .split('\n')
      .filter((line) => !line.startsWith('# TYPE '))
      .join('\n');
    const samples = new Map<string, PrometheusMetric[]>();
    // A histogram's `x_bucket`, `x_count` and `x_sum` alternate series by series: collect each name's runs.
    for (const family of parsePrometheusTextFormat(untyped)) {
      samples.set(family.name, [...(samples.get(family.name) ?? []), ...family.metrics]);
    }
    this.#samples = samples;
  }

  family(name: string): PrometheusFamily {
    const family = this.families.get(name);
    if (!family) throw new Error(`no metric ${name} in the scrape:\n${this.text}`);
    return family;
  }

  /** The samples named `name` (a histogram's `x_count`, a gauge's `x`) whose labels are exactly `labels`. */
  sample(name: string, labels: Record<string, string> = {}): number | undefined {
    const wanted = Object.entries(labels);
    const match = (this.#samples.get(name) ?? []).find((metric) => {
      const have = metric.labels ?? {};
      return Object.keys(have).length === wanted.length && wanted.every(([key, value]) => have[key] === value);
    });
    return match?.value === undefined ? undefined : parseValue(match.value);
  }

  /** A counter's or gauge's value; 0 for a series not (yet) present. */
  value(name: string, labels: Record<string, string> = {}): number {
    this.family(name);
    return this.sample(name, labels) ?? 0;
  }

  /** One histogram series, or undefined while it has no observation. */
  histogram(name: string, labels: Record<string, string>): HistogramSeries | undefined {
    if (this.family(name).type !== 'HISTOGRAM') throw new Error(`${name} is not a histogram`);
    const count = this.sample(`${name}_count`, labels);
    if (count === undefined) return undefined;
    const buckets: Record<string, number> = {};
    for (const metric of this.#samples.get(`${name}_bucket`) ?? []) {
      const { le, ...rest } = metric.labels ?? {};
      const same = Object.keys(rest).length === Object.keys(labels).length;
      if (le !== undefined && same && Object.entries(labels).every(([k, v]) => rest[k] === v)) {
        buckets[le] = parseValue(metric.value ?? 'NaN');
      }
    }
    return { buckets, count, sum: this.sample(`${name}_sum`, labels) ?? Number.NaN };
  }

  /** How many observations a histogram series holds; 0 for a series not (yet) present. */
  count(name: string, labels: Record<string, string>): number {
    return this.histogram(name, labels)?.count ?? 0;
  }

  /** Every value a label takes across the samples named `name`. */
  labelValues(name: string, label: string): string[] {
    const values = (this.#samples.get(name) ?? []).map((metric) => metric.labels?.[label]);
    return [...new Set(values.filter((value): value is string => value !== undefined))];
  }
}

/** A sample value as Prometheus reads it (Go's ParseFloat: `+Inf`, `-Inf`, `NaN` included). */
function parseValue(text: string): number {
  if (text === '+Inf') return Number.POSITIVE_INFINITY;
  if (text === '-Inf') return Number.NEGATIVE_INFINITY;
  return Number(text);
}

function byName(families: PrometheusFamily[]): Map<string, PrometheusFamily> {
  const map = new Map<string, PrometheusFamily>();
  for (const family of families) {
    if (map.has(family.name)) throw new Error(`metric ${family.name} appears twice`);
    map.set(family.name, family);
  }
  return map;
}

/** The content type Prometheus' own client libraries answer a scrape with (text format 0.0.4). */
export const PROMETHEUS_TEXT = 'text/plain; version=0.0.4; charset=utf-8';

/** GETs `metrics` (relative to the server) and parses it; fails on a status other than 200 or another content type. */
export async function scrape(send: Send, init?: SendInit): Promise<Scrape> {
  const res = await send('metrics', init);
  const text = await res.text();
  if (res.status !== 200) throw new Error(`GET metrics answered ${res.status}: ${text.slice(0, 300)}`);
  const type = res.headers.get('content-type');
  if (type !== PROMETHEUS_TEXT) throw new Error(`GET metrics answered with content type ${type}`);
  return new Scrape(text);
}
