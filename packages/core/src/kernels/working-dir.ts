import { statSync } from 'node:fs';
import path from 'node:path';
import { badRequest } from '../errors.js';

/**
 * The kernel's working directory for an API path hint (`path` of POST /api/kernels or a
 * session): the directory it names, or for a file or missing path the nearest existing parent,
 * never above the contents root. The stats are synchronous: one or two of a local folder take
 * microseconds, while each round trip through libuv's thread pool took 10–50 ms on a loaded
 * 2-core machine, on the path of every kernel start (a pooled one is ready in tens of ms).
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
      if (statSync(candidate, { throwIfNoEntry: false })?.isDirectory()) return candidate;
    } catch {
      // not a folder we may look at (ENOTDIR, EACCES): walk up
    }
  }
  return root;
}
