import { readdir } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { badRequest } from '../errors.js';
import type { ClusterProfile } from './types.js';

const PREFIX = 'profile_';

/** IPython's own rule: `$IPYTHONDIR`, else `~/.ipython`. */
export function defaultIpythonDir(env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env.IPYTHONDIR?.trim();
  return fromEnv ? fromEnv : join(homedir(), '.ipython');
}

/**
 * Profile names come from URLs; they become a directory name, so anything that could walk out
 * of the search directories (`/`, `\`, `..`) or confuse a command line is refused.
 */
export function assertProfileName(name: string): void {
  const hasControl = [...name].some((ch) => ch.charCodeAt(0) < 0x20);
  if (
    name === '' ||
    name.length > 255 ||
    hasControl ||
    name.includes('/') ||
    name.includes('\\') ||
    name.includes('..') ||
    name.startsWith('-')
  ) {
    throw badRequest(`Invalid profile name: ${JSON.stringify(name)}`, 'bad name');
  }
}

/**
 * Lists `profile_*` directories of the given search dirs, earlier dirs winning on duplicate
 * names (as IPython resolves `--profile`). Sorted with `default` first, then by name.
 */
export async function discoverProfiles(searchDirs: readonly string[]): Promise<ClusterProfile[]> {
  const found = new Map<string, ClusterProfile>();
  for (const dir of searchDirs) {
    let entries: import('node:fs').Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      continue; // a missing IPython dir simply has no profiles
    }
    for (const entry of entries) {
      if (!entry.isDirectory() || !entry.name.startsWith(PREFIX)) continue;
      const name = entry.name.slice(PREFIX.length);
      if (name === '' || found.has(name)) continue;
      try {
        assertProfileName(name);
      } catch {
        continue;
      }
      found.set(name, { name, dir: join(dir, entry.name) });
    }
  }
  return [...found.values()].sort(compareProfiles);
}

function compareProfiles(a: ClusterProfile, b: ClusterProfile): number {
  if (a.name === b.name) return 0;
  if (a.name === 'default') return -1;
  if (b.name === 'default') return 1;
  return a.name < b.name ? -1 : 1;
}
