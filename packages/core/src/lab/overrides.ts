import { promises as fs } from 'node:fs';
import path from 'node:path';
import { isObject } from '../util/is-object.js';
import { loadJson5 } from './lazy-parsers.js';

type Overrides = Record<string, Record<string, unknown>>;

/**
 * Default-setting overrides as jupyterlab_server reads them from an app settings folder:
 * `overrides.d/*.json(5)` in name order, then `overrides.json` and `overrides.json5`, each merged
 * over the previous per plugin id; over several folders, later ones win. A file that cannot be
 * parsed is skipped with a warning, as jupyterlab_server logs "Failed loading overrides".
 */
export async function readOverrides(dirs: readonly string[], warn?: (message: string) => void): Promise<Overrides> {
  const result: Overrides = {};
  for (const dir of dirs) {
    const files: string[] = [];
    try {
      const names = await fs.readdir(path.join(dir, 'overrides.d'));
      files.push(
        ...names
          .filter((name) => name.endsWith('.json') || name.endsWith('.json5'))
          .sort()
          .map((name) => path.join(dir, 'overrides.d', name)),
      );
    } catch {
      // no overrides.d here
    }
    files.push(path.join(dir, 'overrides.json'), path.join(dir, 'overrides.json5'));
    for (const file of files) {
      let text: string;
      try {
        text = await fs.readFile(file, 'utf8');
      } catch {
        continue;
      }
      let parsed: unknown;
      try {
        parsed = file.endsWith('.json5') ? (await loadJson5()).parse(text) : JSON.parse(text);
      } catch (error) {
        warn?.(`Failed loading overrides ${file}: ${error instanceof Error ? error.message : String(error)}`);
        continue;
      }
      if (!isObject(parsed)) continue;
      for (const [id, config] of Object.entries(parsed)) {
        if (isObject(config)) result[id] = mergeObjects(result[id] ?? {}, config);
      }
    }
  }
  return result;
}

/** Objects merged key by key (deeply); any other value replaces. Neither input is changed. */
export function mergeObjects(
  target: Record<string, unknown>,
  update: Record<string, unknown>,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...target };
  for (const [key, value] of Object.entries(update)) {
    const current = out[key];
    out[key] = isObject(current) && isObject(value) ? mergeObjects(current, value) : value;
  }
  return out;
}
