import { badRequest } from '../errors.js';
import type { ContentType, SaveInput } from './model.js';
import { newNotebook } from './nbformat/notebook.js';
import { isValidName } from './paths.js';

/** The names `newUntitled` starts from, before a number is added. */
export type UntitledBases = Record<ContentType, string>;

/**
 * What jupyter_server's `new_untitled` creates: the type (given, else from the extension), the
 * first name to try and what goes before the number of the next ones (`Untitled Folder 1`).
 */
export function untitledName(
  bases: UntitledBases,
  options: { type?: string; ext?: string },
): { type: ContentType; name: string; insert: string } {
  let ext = options.ext ?? '';
  const type = options.type || (ext === '.ipynb' ? 'notebook' : 'file');
  if (type !== 'directory' && type !== 'notebook' && type !== 'file') {
    throw badRequest(`Unexpected model type: '${type}'`, 'bad type');
  }
  if (type === 'directory') ext = '';
  if (type === 'notebook') ext = '.ipynb';
  const name = bases[type] + ext;
  if (!isValidName(name)) throw badRequest(`Invalid extension: ${JSON.stringify(ext)}`, 'bad name');
  return { type, name, insert: type === 'directory' ? ' ' : '' };
}

/**
 * Jupyter's name incrementer (`increment_filename`): try `base+ext`, then `base<insert>1+ext`, ...
 * The split point is the last dot for `.ipynb` and the first dot otherwise (`data.tar.gz` stays whole).
 */
export async function incrementName(
  name: string,
  insert: string,
  exists: (candidate: string) => Promise<boolean>,
): Promise<string> {
  const [base, suffix] = splitForIncrement(name);
  for (let i = 0; ; i++) {
    const candidate = i === 0 ? `${base}${suffix}` : `${base}${insert}${i}${suffix}`;
    if (!(await exists(candidate))) return candidate;
  }
}

function splitForIncrement(name: string): [string, string] {
  const last = name.lastIndexOf('.');
  if (last !== -1 && name.slice(last + 1) === 'ipynb') return [name.slice(0, last), name.slice(last)];
  const first = name.indexOf('.');
  return first === -1 ? [name, ''] : [name.slice(0, first), name.slice(first)];
}

/** `a-Copy3.ipynb` -> `a.ipynb`, so copying a copy does not stack suffixes (Jupyter's `copy_pat`). */
export function stripCopySuffix(name: string): string {
  return name.replace(/-Copy\d*\./g, '.');
}

/** jupyter_server's `ContentsManager.new()` defaults for a PUT that creates a file. */
export function withNewFileDefaults(path: string, input: SaveInput): SaveInput {
  const type = input.type ?? (path.endsWith('.ipynb') ? 'notebook' : 'file');
  if (input.content !== undefined || type === 'directory') return { ...input, type };
  if (type === 'notebook') return { ...input, type, content: newNotebook(), format: 'json' };
  return { ...input, type: 'file', content: '', format: 'text' };
}
