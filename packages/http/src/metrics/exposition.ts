/**
 * Prometheus' text exposition format, version 0.0.4:
 * https://prometheus.io/docs/instrumenting/exposition_formats/#text-based-format
 */

/** What `GET /metrics` answers with, as Prometheus' own client libraries send it. */
export const EXPOSITION_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

export type MetricType = 'counter' | 'gauge' | 'histogram';

export type Labels = Readonly<Record<string, string>>;

export interface Sample {
  /** The sample's name: the family name, or it plus `_bucket`, `_sum`, `_count` for histograms. */
  name: string;
  labels?: Labels;
  value: number;
}

/** One metric: its `# HELP`, its `# TYPE` and its samples. */
export interface MetricFamily {
  name: string;
  help: string;
  type: MetricType;
  samples: readonly Sample[];
}

/** A number as Prometheus writes it: `+Inf`, `-Inf`, `NaN`, else the shortest round-tripping form. */
export function formatValue(value: number): string {
  if (value === Number.POSITIVE_INFINITY) return '+Inf';
  if (value === Number.NEGATIVE_INFINITY) return '-Inf';
  if (Number.isNaN(value)) return 'NaN';
  return String(value);
}

/**
 * A histogram bound as the Python client writes `le` (`0.005`, `1.0`, `+Inf`), so queries and
 * dashboards written against jupyter_server match these series label for label.
 */
export function formatBound(bound: number): string {
  if (Number.isInteger(bound)) return bound.toFixed(1);
  return formatValue(bound);
}

function escapeHelp(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

function escapeLabelValue(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
}

function formatLabels(labels: Labels | undefined): string {
  if (!labels) return '';
  const parts = Object.entries(labels).map(([key, value]) => `${key}="${escapeLabelValue(value)}"`);
  return parts.length === 0 ? '' : `{${parts.join(',')}}`;
}

/** The whole exposition: every family's HELP and TYPE lines, then its samples, one per line. */
export function renderExposition(families: readonly MetricFamily[]): string {
  const lines: string[] = [];
  for (const family of families) {
    lines.push(`# HELP ${family.name} ${escapeHelp(family.help)}`);
    lines.push(`# TYPE ${family.name} ${family.type}`);
    for (const sample of family.samples) {
      lines.push(`${sample.name}${formatLabels(sample.labels)} ${formatValue(sample.value)}`);
    }
  }
  return `${lines.join('\n')}\n`;
}
