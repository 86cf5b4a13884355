import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** Every entry below a directory (symlinks not followed) as `relative path -> signature`. */
export type Snapshot = Map<string, string>;

/** Files up to this size are hashed; bigger ones are compared by size, mtime and inode. */
const HASH_LIMIT = 256 * 1024;

/**
 * Taken between two requests while the server is idle, so synchronous calls are both safe and
 * several times faster than a promise per file on a loaded machine.
 */
export function snapshot(dir: string): Snapshot {
  const out: Snapshot = new Map();
  walk(dir, '', out);
  return out;
}

function walk(dir: string, relative: string, out: Snapshot): void {
  let names: string[];
  try {
    names = fs.readdirSync(path.join(dir, relative));
  } catch {
    return; // not a directory any more: its absence shows in the parent's entries
  }
  for (const name of names.sort()) {
    const rel = relative === '' ? name : `${relative}/${name}`;
    const full = path.join(dir, rel);
    let stat: fs.Stats;
    try {
      stat = fs.lstatSync(full);
    } catch {
      continue;
    }
    if (stat.isSymbolicLink()) {
      out.set(rel, `link ${fs.readlinkSync(full)}`);
    } else if (stat.isDirectory()) {
      out.set(rel, `dir ${stat.mode.toString(8)}`);
      walk(dir, rel, out);
    } else {
      const content =
        stat.size <= HASH_LIMIT ? createHash('sha1').update(fs.readFileSync(full)).digest('hex') : `${stat.ino}`;
      out.set(rel, `file ${stat.size} ${stat.mtimeMs} ${stat.mode.toString(8)} ${content}`);
    }
  }
}

/** What differs between two snapshots: `+added`, `-removed`, `~changed` paths. */
export function changes(before: Snapshot, after: Snapshot): string[] {
  const out: string[] = [];
  for (const [rel, sig] of after) {
    const was = before.get(rel);
    if (was === undefined) out.push(`+${rel}`);
    else if (was !== sig) out.push(`~${rel}`);
  }
  for (const rel of before.keys()) if (!after.has(rel)) out.push(`-${rel}`);
  return out;
}
