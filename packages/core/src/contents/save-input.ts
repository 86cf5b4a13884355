import { badRequest } from '../errors.js';
import type { SaveInput } from './model.js';

const TYPES: ReadonlySet<string> = new Set(['directory', 'notebook', 'file']);
const FORMATS: ReadonlySet<string> = new Set(['json', 'text', 'base64']);

/**
 * A save's `type` and `format`, when given, must be ones Jupyter knows. Checked before the new-file
 * defaults, which would make an unknown type an empty text file (as jupyter_server's `new()` does)
 * and drop an unknown format: garbage in is a 400 here, with nothing written.
 */
export function checkSaveKinds(input: SaveInput): void {
  if (input.type !== undefined && !TYPES.has(input.type)) {
    throw badRequest(`Unhandled contents type: ${input.type}`, 'bad type');
  }
  if (typeof input.format === 'string' && !FORMATS.has(input.format)) {
    throw badRequest(`Format '${input.format}' is invalid`, 'bad format');
  }
}
