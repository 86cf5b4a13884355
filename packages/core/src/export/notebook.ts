import * as v from 'valibot';
import { badRequest } from '../errors.js';
import { describeIssues } from '../util/validation-issues.js';

/**
 * The parts of an nbformat v4 notebook the exporters read. Loose on purpose: unknown keys are
 * kept (the `notebook` exporter writes them back), and only shapes that would make an exporter
 * misbehave are refused.
 */
const MultilineString = v.union([v.string(), v.array(v.string())]);

const Output = v.looseObject({
  output_type: v.string(),
  name: v.optional(v.string()),
  text: v.optional(MultilineString),
  data: v.optional(v.record(v.string(), v.unknown())),
  metadata: v.optional(v.record(v.string(), v.unknown())),
  execution_count: v.optional(v.nullable(v.number())),
  ename: v.optional(v.string()),
  evalue: v.optional(v.string()),
  traceback: v.optional(v.array(v.string())),
});

const Cell = v.looseObject({
  cell_type: v.string(),
  source: MultilineString,
  metadata: v.optional(v.record(v.string(), v.unknown())),
  execution_count: v.optional(v.nullable(v.number())),
  outputs: v.optional(v.array(Output)),
  attachments: v.optional(v.record(v.string(), v.record(v.string(), v.unknown()))),
});

const LanguageInfo = v.looseObject({
  name: v.optional(v.string()),
  file_extension: v.optional(v.string()),
  mimetype: v.optional(v.string()),
});

const KernelSpec = v.looseObject({
  name: v.optional(v.string()),
  display_name: v.optional(v.string()),
  language: v.optional(v.string()),
});

export const ExportNotebookSchema = v.looseObject({
  nbformat: v.literal(4),
  nbformat_minor: v.number(),
  metadata: v.looseObject({
    kernelspec: v.optional(KernelSpec),
    language_info: v.optional(LanguageInfo),
    title: v.optional(v.string()),
  }),
  cells: v.array(Cell),
});

export type ExportNotebook = v.InferOutput<typeof ExportNotebookSchema>;
export type ExportCell = v.InferOutput<typeof Cell>;
export type ExportOutput = v.InferOutput<typeof Output>;

/** Validates an nbformat v4 notebook for export; anything else is a 400. */
export function parseExportNotebook(value: unknown): ExportNotebook {
  const result = v.safeParse(ExportNotebookSchema, value);
  if (!result.success) {
    throw badRequest(`Not an nbformat 4 notebook: ${describeIssues(result.issues.slice(0, 1))}`, 'bad notebook');
  }
  return result.output;
}

/** nbformat stores multi-line strings either whole or as a list of lines. */
export function joinSource(value: string | readonly string[] | undefined): string {
  if (value === undefined) return '';
  return typeof value === 'string' ? value : value.join('');
}

/** A mimebundle value as text (JSON values are stringified as nbformat allows). */
export function bundleText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && value.every((line) => typeof line === 'string')) return value.join('');
  return JSON.stringify(value, null, 2);
}

/** The notebook's language: language_info first, then the kernelspec's, lower-cased. */
export function notebookLanguage(nb: ExportNotebook): string {
  return (nb.metadata.language_info?.name ?? nb.metadata.kernelspec?.language ?? 'python').toLowerCase();
}
