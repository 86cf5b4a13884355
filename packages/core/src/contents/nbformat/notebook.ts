import * as v from 'valibot';
import { badRequest } from '../../errors.js';
import { rejoinLines, splitLines, stripTransient } from './lines.js';
import { notebookShapeSchema, validateNotebookV4 } from './schema-v4.js';
import { randomCellId, upgradeV3ToV4 } from './upgrade-v3.js';

type Json = Record<string, unknown>;

export interface ParsedNotebook {
  /** nbformat v4 content as served (multi-line fields joined into strings). */
  notebook: Json;
  /** `Notebook validation failed: ...` when the notebook does not satisfy the v4 schema. */
  validationMessage: string | null;
}

/** A new, empty v4.5 notebook, as `nbformat.v4.new_notebook()`. */
export function newNotebook(): Json {
  return { cells: [], metadata: {}, nbformat: 4, nbformat_minor: 5 };
}

/**
 * Turns submitted or stored JSON into a v4 notebook. Throws a 400 when the value is not a
 * notebook at all; schema violations below that level are reported, not rejected, as Jupyter does.
 */
export function toNotebookV4(value: unknown, what: string): ParsedNotebook {
  const shape = v.safeParse(notebookShapeSchema, value);
  if (!shape.success) {
    const nbformat = (value as { nbformat?: unknown } | null)?.nbformat;
    const detail =
      typeof nbformat === 'number' && nbformat !== 3 && nbformat !== 4
        ? `unsupported nbformat ${nbformat}`
        : 'expected an object with nbformat 4 (metadata, nbformat_minor, cells) or 3 (worksheets)';
    throw badRequest(`${what}: not a notebook (${detail})`, 'bad notebook');
  }
  const copy = structuredClone(shape.output) as Json;
  const notebook = rejoinLines(copy.nbformat === 3 ? upgradeV3ToV4(copy) : copy);
  addMissingCellIds(notebook);
  const problem = validateNotebookV4(stripForValidation(notebook));
  return { notebook, validationMessage: problem === null ? null : `Notebook validation failed: ${problem}` };
}

/** nbformat 4.5 requires cell ids; like nbformat's validator, fill in missing ones instead of failing. */
function addMissingCellIds(nb: Json): void {
  if (typeof nb.nbformat_minor !== 'number' || nb.nbformat_minor < 5 || !Array.isArray(nb.cells)) return;
  for (const cell of nb.cells as Json[]) {
    if (cell.id === undefined) cell.id = randomCellId();
  }
}

/** Transient keys (orig_nbformat, trusted) are legal in memory but not in the schema's strict objects. */
function stripForValidation(nb: Json): Json {
  return stripTransient(structuredClone(nb));
}

/** Reads notebook bytes from storage; unreadable JSON is a 400 naming the path, as in Jupyter. */
export function readNotebook(bytes: Uint8Array, path: string): ParsedNotebook {
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch (e) {
    throw badRequest(`Unreadable Notebook: ${path} ${e instanceof Error ? e.message : 'invalid JSON'}`, 'bad notebook');
  }
  // As nbformat.reads: transient keys go before the upgrade, which then records orig_nbformat
  // (JupyterLab tells the user the notebook was converted from v3 when it sees it).
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) stripTransient(value as Json);
  return toNotebookV4(value, `Unreadable Notebook: ${path}`);
}

/** Serializes like nbformat.writes: sorted keys, one-space indent, split lines, trailing newline. */
export function serializeNotebook(nb: Json): Uint8Array {
  const onDisk = splitLines(stripTransient(structuredClone(nb)));
  return new TextEncoder().encode(`${JSON.stringify(sortKeys(onDisk), null, 1)}\n`);
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value !== 'object' || value === null) return value;
  const out: Json = {};
  for (const key of Object.keys(value).sort()) out[key] = sortKeys((value as Json)[key]);
  return out;
}
