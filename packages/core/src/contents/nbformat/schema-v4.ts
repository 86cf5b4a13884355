import * as v from 'valibot';
import { describeIssues } from '../../util/validation-issues.js';

/**
 * nbformat v4 (minor 0-5) as valibot schemas, transcribed from nbformat.v4.schema.json.
 * Cell ids are required from minor 5 on; `validateNotebookV4` applies that rule.
 */
const multilineString = v.union([v.string(), v.array(v.string())], 'Expected a string or an array of strings');
const jsonMime = /^application\/(.*\+)?json$/;

const mimeBundle = v.pipe(
  v.record(v.string(), v.unknown()),
  v.check(
    (bundle) =>
      Object.entries(bundle).every(
        ([key, value]) =>
          jsonMime.test(key) ||
          typeof value === 'string' ||
          (Array.isArray(value) && value.every((line) => typeof line === 'string')),
      ),
    'Non-JSON mimebundle values must be a string or an array of strings',
  ),
);

const metadata = v.looseObject({});
const cellId = v.pipe(v.string(), v.regex(/^[a-zA-Z0-9-_]+$/), v.minLength(1), v.maxLength(64));
const executionCount = v.nullable(v.pipe(v.number(), v.integer(), v.minValue(0)));
const tags = v.pipe(
  v.array(v.pipe(v.string(), v.regex(/^[^,]+$/, 'Tags must not contain commas'))),
  v.check((list) => new Set(list).size === list.length, 'Tags must be unique'),
);
const cellMetadata = v.looseObject({ name: v.optional(v.pipe(v.string(), v.minLength(1))), tags: v.optional(tags) });
const attachments = v.record(v.string(), mimeBundle);

const executeResult = v.strictObject({
  output_type: v.literal('execute_result'),
  execution_count: executionCount,
  data: mimeBundle,
  metadata,
});
const displayData = v.strictObject({ output_type: v.literal('display_data'), data: mimeBundle, metadata });
const stream = v.strictObject({ output_type: v.literal('stream'), name: v.string(), text: multilineString });
const errorOutput = v.strictObject({
  output_type: v.literal('error'),
  ename: v.string(),
  evalue: v.string(),
  traceback: v.array(v.string()),
});
/** Outputs from a future minor revision are allowed, as in the schema's `unrecognized_output`. */
const unrecognizedOutput = v.looseObject({ output_type: v.string() });

const OUTPUTS: Record<string, v.GenericSchema> = {
  execute_result: executeResult,
  display_data: displayData,
  stream,
  error: errorOutput,
};
export const outputSchema = v.lazy((input: unknown) => {
  const kind = (input as { output_type?: unknown } | null)?.output_type;
  return (typeof kind === 'string' && OUTPUTS[kind]) || unrecognizedOutput;
});

const rawCell = v.strictObject({
  id: v.optional(cellId),
  cell_type: v.literal('raw'),
  metadata: cellMetadata,
  attachments: v.optional(attachments),
  source: multilineString,
});
const markdownCell = v.strictObject({
  id: v.optional(cellId),
  cell_type: v.literal('markdown'),
  metadata: cellMetadata,
  attachments: v.optional(attachments),
  source: multilineString,
});
const codeCell = v.strictObject({
  id: v.optional(cellId),
  cell_type: v.literal('code'),
  metadata: cellMetadata,
  source: multilineString,
  outputs: v.array(outputSchema),
  execution_count: executionCount,
});
const unrecognizedCell = v.looseObject({ cell_type: v.string(), metadata: cellMetadata });

const CELLS: Record<string, v.GenericSchema> = { raw: rawCell, markdown: markdownCell, code: codeCell };
export const cellSchema = v.lazy((input: unknown) => {
  const kind = (input as { cell_type?: unknown } | null)?.cell_type;
  return (typeof kind === 'string' && CELLS[kind]) || unrecognizedCell;
});

export const notebookV4Schema = v.strictObject({
  metadata: v.looseObject({
    kernelspec: v.optional(v.looseObject({ name: v.string(), display_name: v.string() })),
    language_info: v.optional(v.looseObject({ name: v.string() })),
    orig_nbformat: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
    title: v.optional(v.string()),
  }),
  nbformat_minor: v.pipe(v.number(), v.integer(), v.minValue(0)),
  nbformat: v.literal(4),
  cells: v.array(cellSchema),
});

export type NotebookV4 = v.InferOutput<typeof notebookV4Schema>;

/**
 * The least a value must be to be read as a notebook at all; anything less is rejected outright.
 * Below that, a v4 notebook is served and saved as it is, with a validation message (as Jupyter
 * does), so that a user can open a broken notebook and repair it. v3 and v2 are upgraded.
 */
const worksheets = v.array(v.looseObject({ cells: v.array(v.looseObject({ cell_type: v.string() })) }));
export const notebookShapeSchema = v.union([
  v.looseObject({ nbformat: v.literal(4), cells: v.array(v.looseObject({})) }),
  v.looseObject({ nbformat: v.literal(3), metadata: v.optional(v.looseObject({})), worksheets }),
  v.looseObject({ nbformat: v.literal(2), metadata: v.optional(v.looseObject({})), worksheets }),
]);

/** Full schema check; `null` when valid, else a readable summary of the problems. */
export function validateNotebookV4(nb: unknown): string | null {
  const result = v.safeParse(notebookV4Schema, nb);
  if (!result.success) return describeIssues(result.issues);
  if (result.output.nbformat_minor >= 5) {
    const missing = result.output.cells.findIndex((cell) => typeof (cell as { id?: unknown }).id !== 'string');
    if (missing !== -1) return `cells[${missing}]: 'id' is a required property (nbformat 4.5+)`;
  }
  return null;
}
