import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, release, totalmem } from 'node:os';
import { join } from 'node:path';

/** Who a figure belongs to. `floor` is a direct ZeroMQ client on the same kind of kernel. */
export type Subject =
  | 'nbserve'
  | 'nbserve-unpooled'
  | 'kernel-js'
  | 'floor'
  | 'ipykernel'
  | 'jupyter_server'
  | 'notebook6';

export const SUBJECT_ORDER: Subject[] = [
  'nbserve',
  'nbserve-unpooled',
  'kernel-js',
  'floor',
  'ipykernel',
  'jupyter_server',
  'notebook6',
];

export type Target =
  /** `values[primary] / values[against]` compared with `bound`. */
  | { kind: 'ratio'; against: Subject; op: '<=' | '>=' | '<'; bound: number; text: string }
  /** `values[primary]` must equal `expected` (e.g. every message delivered). */
  | { kind: 'exact'; expected: number; text: string }
  /** `values[primary] <= values[against] + bound`, in the row's unit (the ratio is shown too). */
  | { kind: 'margin'; against: Subject; bound: number; text: string };

export interface Row {
  scenario: string;
  metric: string;
  unit: string;
  /** The subject the targets judge; `nbserve` unless the row compares kernels. */
  primary: Subject;
  values: Partial<Record<Subject, number>>;
  targets: Target[];
  notes: string[];
}

export interface TargetResult {
  text: string;
  ratio?: number;
  pass: boolean | null;
}

export function evaluate(row: Row): TargetResult[] {
  const mine = row.values[row.primary];
  return row.targets.map((t) => {
    if (mine === undefined || !Number.isFinite(mine)) return { text: t.text, pass: null };
    if (t.kind === 'exact') return { text: t.text, pass: mine === t.expected };
    const other = row.values[t.against];
    if (t.kind === 'margin' && other !== undefined && Number.isFinite(other)) {
      return { text: t.text, ...(other > 0 ? { ratio: mine / other } : {}), pass: mine <= other + t.bound };
    }
    if (t.kind === 'margin' || other === undefined || !Number.isFinite(other) || other === 0) {
      return { text: t.text, pass: null };
    }
    const ratio = mine / other;
    const pass = t.op === '<=' ? ratio <= t.bound : t.op === '<' ? ratio < t.bound : ratio >= t.bound;
    return { text: t.text, ratio, pass };
  });
}

export function formatValue(value: number | undefined, unit: string): string {
  if (value === undefined) return '–';
  if (!Number.isFinite(value)) return 'n/a';
  const abs = Math.abs(value);
  const digits = abs >= 100 ? 0 : abs >= 10 ? 1 : abs >= 1 ? 2 : 3;
  return `${value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: 0 })} ${unit}`;
}

function formatTargets(row: Row): string {
  return evaluate(row)
    .map((r) => {
      const verdict = r.pass === null ? 'n/a' : r.pass ? 'PASS' : 'FAIL';
      const ratio = r.ratio === undefined ? '' : ` (${r.ratio.toFixed(r.ratio < 0.1 ? 3 : 2)}x)`;
      return `${r.text}${ratio} ${verdict}`;
    })
    .join('; ');
}

/** A Markdown table: readable in a terminal and pasteable into docs/benchmarks.md. */
export function renderTable(rows: Row[]): string {
  const subjects = SUBJECT_ORDER.filter((s) => rows.some((r) => r.values[s] !== undefined || r.primary === s));
  const header = ['Scenario', 'Metric', ...subjects, 'Target (ratio = ours / other)'];
  const lines = rows.map((r) => [
    r.scenario,
    r.metric,
    ...subjects.map((s) => formatValue(r.values[s], r.unit)),
    formatTargets(r) || '–',
  ]);
  const all = [header, ...lines];
  const widths = header.map((_, i) => Math.max(...all.map((l) => (l[i] ?? '').length)));
  const fmt = (l: string[]) => `| ${l.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  return [fmt(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...lines.map(fmt)].join('\n');
}

export function machineInfo() {
  const cpu = cpus();
  return {
    cpu: cpu[0]?.model ?? 'unknown',
    cores: cpu.length,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    kernel: release(),
    loadAverage: loadavg().map((l) => Number(l.toFixed(2))),
  };
}

export function writeResults(
  dir: string,
  data: { command: string; quick: boolean; rows: Row[]; failures: string[]; durationS: number },
): string {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'latest.json');
  const rows = data.rows.map((r) => ({ ...r, results: evaluate(r) }));
  const machine = machineInfo();
  const date = new Date().toISOString();
  writeFileSync(file, `${JSON.stringify({ date, machine, ...data, rows }, null, 2)}\n`);
  // the same figures as Markdown, ready for docs/benchmarks.md
  const notes = data.rows.flatMap((r) => r.notes.map((n) => `- ${r.scenario} / ${r.metric}: ${n}`));
  const markdown = [
    `${date} · \`${data.command}\` · ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGiB} GiB, ` +
      `Node ${machine.node}, Linux ${machine.kernel}, load average ${machine.loadAverage.join(' ')} · ${data.durationS.toFixed(0)} s`,
    '',
    renderTable(data.rows),
    '',
    ...notes,
    ...data.failures.map((f) => `- FAILED ${f}`),
    '',
  ].join('\n');
  writeFileSync(join(dir, 'latest.md'), markdown);
  return file;
}
