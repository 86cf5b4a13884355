import { isAscii } from 'node:buffer';
import * as v from 'valibot';
import { badRequest } from '../../errors.js';
import { isObject } from '../../util/is-object.js';
import type { SpareBuffer } from '../../util/spare-buffer.js';
import { rejoinLines, splitLines, stripTransient } from './lines.js';
import { parseJsonBytes } from './parse-bytes.js';
import { parseUntrustedJson } from './parse-json.js';
import { notebookShapeSchema, validateNotebookV4 } from './schema-v4.js';
import { type RawStrings, sortedJsonBytes } from './sorted-json.js';
import { upgradeV2ToV3 } from './upgrade-v2.js';
import { randomCellId, upgradeV3ToV4 } from './upgrade-v3.js';

type Json = Record<string, unknown>;

export interface ParsedNotebook {
  /** nbformat v4 content as served (multi-line fields joined into strings). */
  notebook: Json;
  /** `Notebook validation failed: ...` when the notebook does not satisfy the v4 schema. */
  validationMessage: string | null;
  /** True when cells lacked the ids nbformat 4.5 requires (or came from v2/v3) and were given random ones. */
  generatedIds: boolean;
}

/** A new, empty v4.5 notebook, as `nbformat.v4.new_notebook()`. */
export function newNotebook(): Json {
  return { cells: [], metadata: {}, nbformat: 4, nbformat_minor: 5 };
}

/**
 * Turns submitted or stored JSON into a v4 notebook, upgrading v2 and v3 as `nbformat.convert`
 * does. Throws a 400 when the value is not a notebook at all; schema violations below that level
 * are reported, not rejected, as Jupyter does.
 */
export function toNotebookV4(value: unknown, what: string): ParsedNotebook {
  const shape = v.safeParse(notebookShapeSchema, value);
  if (!shape.success) {
    const nbformat = (value as { nbformat?: unknown } | null)?.nbformat;
    const detail =
      typeof nbformat === 'number' && ![2, 3, 4].includes(nbformat)
        ? `unsupported nbformat ${nbformat}`
        : 'expected an object with nbformat 4 (cells), or 3 or 2 (worksheets)';
    throw badRequest(`${what}: not a notebook (${detail})`, 'bad notebook');
  }
  // The shape check returned fresh top-level objects; the transforms below copy what they change.
  const input = shape.output as Json;
  const v3OrV4 = input.nbformat === 2 ? upgradeV2ToV3(input) : input;
  const notebook = rejoinLines(v3OrV4.nbformat === 3 ? upgradeV3ToV4(v3OrV4) : v3OrV4);
  // the v3 upgrade makes up ids too
  const generatedIds = addMissingCellIds(notebook) || input.nbformat !== 4;
  const problem = validateNotebookV4(notebook);
  return {
    notebook,
    validationMessage: problem === null ? null : `Notebook validation failed: ${problem}`,
    generatedIds,
  };
}

/**
 * nbformat 4.5 requires cell ids; like nbformat's validator, fill in missing ones instead of
 * failing. Returns whether any id was made up.
 */
function addMissingCellIds(nb: Json): boolean {
  if (typeof nb.nbformat_minor !== 'number' || nb.nbformat_minor < 5 || !Array.isArray(nb.cells)) return false;
  let generated = false;
  for (const cell of nb.cells as Json[]) {
    if (cell.id !== undefined) continue;
    cell.id = randomCellId(); // cells are rejoinLines' own copies
    generated = true;
  }
  return generated;
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** UTF-8 text, invalid bytes an error; ASCII (most notebooks) is read as Latin-1, the same string ~10x faster. */
function decodeStrict(bytes: Uint8Array): string {
  return isAscii(bytes)
    ? Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1')
    : strictUtf8.decode(bytes);
}

/** Reads notebook bytes from storage; unreadable JSON is a 400 naming the path, as in Jupyter. */
export function readNotebook(bytes: Uint8Array, path: string): ParsedNotebook {
  return readNotebookText(decodeNotebookBytes(bytes, path), path);
}

/** The text of stored notebook bytes; bytes that are not UTF-8 are a 400 naming the path, as in readNotebook. */
export function decodeNotebookBytes(bytes: Uint8Array, path: string): string {
  try {
    return decodeStrict(bytes);
  } catch (e) {
    throw unreadable(path, e);
  }
}

/** readNotebook for text decoded with decodeNotebookBytes (the bytes need not be kept meanwhile). */
export function readNotebookText(text: string, path: string): ParsedNotebook {
  let value: unknown;
  try {
    value = parseUntrustedJson(text);
  } catch (e) {
    throw unreadable(path, e);
  }
  // As nbformat.reads: transient keys go before the upgrade, which then records orig_nbformat
  // (JupyterLab tells the user the notebook was converted from v3 when it sees it).
  const stripped = isObject(value) ? stripTransient(value) : value;
  return toNotebookV4(stripped, `Unreadable Notebook: ${path}`);
}

/**
 * readNotebook without decoding the bytes, for a notebook that is mostly long strings (images):
 * those stay in `bytes` and the notebook holds markers for them, which `raw` resolves and the
 * JSON writers given `raw` copy (see parseJsonBytes). `null` when that does not apply, or for
 * anything but a valid v4 notebook: readNotebook then reads it, and gives the message or the error.
 */
export function readNotebookBytes(bytes: Uint8Array): (ParsedNotebook & { raw: RawStrings }) | null {
  const cut = parseJsonBytes(bytes);
  if (cut === null || !isObject(cut.value) || cut.value.nbformat !== 4) return null;
  let parsed: ParsedNotebook;
  try {
    parsed = toNotebookV4(stripTransient(cut.value), 'notebook');
  } catch {
    return null;
  }
  // a marker passes where its string does, and fails where its string fails (no long literal is
  // an id, a tag or a type), but the message would show the marker: readNotebook words it
  return parsed.validationMessage === null ? { ...parsed, raw: cut.raw } : null;
}

function unreadable(path: string, e: unknown): Error {
  return badRequest(`Unreadable Notebook: ${path} ${e instanceof Error ? e.message : 'invalid JSON'}`, 'bad notebook');
}

/**
 * Serializes like nbformat.writes: sorted keys, one-space indent, split lines, trailing newline.
 * With `buffers`, into its spare buffer when that is big enough (see sortedJsonBytes); with `raw`,
 * a notebook from parseJsonBytes, its markers written as the bytes they stand for.
 */
export function serializeNotebook(nb: Json, buffers?: SpareBuffer, raw?: RawStrings): Buffer {
  // (a marker of `raw` is never split: the string it stands for holds no line break)
  return sortedJsonBytes(splitLines(stripTransient(nb)), '\n', buffers, raw);
}
