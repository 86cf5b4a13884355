import { badRequest } from '../errors.js';
import { isWellFormedText } from '../util/unicode.js';

/**
 * API paths: `/`-separated, relative to the contents root, `""` for the root. This is the one
 * lexical gate every path passes before any store sees it; stores still enforce containment.
 */
export function normalizeApiPath(raw: string): string {
  if (raw.includes('\0')) throw invalidPath(raw);
  if (raw.includes('\\')) throw invalidPath(raw);
  // A lone surrogate cannot be a file name: the file system would get U+FFFD instead.
  if (!isWellFormedText(raw)) throw invalidPath(raw);
  // A single leading or trailing slash is how clients join URLs; anything else is not a relative path.
  let path = raw;
  if (path.startsWith('/')) path = path.slice(1);
  if (path.endsWith('/')) path = path.slice(0, -1);
  if (path === '') return '';
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.' || segment === '..') throw invalidPath(raw);
  }
  return path;
}

function invalidPath(raw: string) {
  return badRequest(`Invalid path: ${JSON.stringify(raw.replace(/\0/g, '\\0'))}`, 'bad path');
}

export function splitPath(path: string): string[] {
  return path === '' ? [] : path.split('/');
}

export function joinPath(dir: string, name: string): string {
  return dir === '' ? name : `${dir}/${name}`;
}

export function parentPath(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash === -1 ? '' : path.slice(0, slash);
}

export function baseName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** Validates a single name (no separators): used for untitled bases and copy targets. */
export function isValidName(name: string): boolean {
  return name !== '' && name !== '.' && name !== '..' && !/[/\\\0]/.test(name);
}
