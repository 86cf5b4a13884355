import { stat } from 'node:fs/promises';
import path from 'node:path';
import { badRequest } from '../errors.js';

/**
 * The kernel's working directory for an API path hint (`path` of POST /api/kernels or a
 * session): the directory it names, or for a file or missing path the nearest existing parent,
 * never above the contents root.
 */
export async function resolveWorkingDir(rootDir: string, apiPath: string | undefined): Promise<string> {
  const root = path.resolve(rootDir);
  const segments = (apiPath ?? '').split('/').filter((s) => s !== '' && s !== '.');
  if (segments.includes('..') || segments.some((s) => s.includes('\0'))) {
    throw badRequest(`Invalid kernel path: ${apiPath}`, 'bad path');
  }
  for (let n = segments.length; n >= 0; n--) {
    const candidate = path.join(root, ...segments.slice(0, n));
    try {
      if ((await stat(candidate)).isDirectory()) return candidate;
    } catch {
      // walk up
    }
  }
  return root;
}
