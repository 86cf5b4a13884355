import type { ContentType } from './model.js';
import type { StoreNames } from './store.js';

const DIR_ORDER: Record<ContentType, number> = { directory: 0, notebook: 1, file: 2 };
/** Names kept in SortedNamesCache, over all its directories. */
const MAX_CACHED_NAMES = 250_000;

/**
 * A directory's listed children as a listing orders them: directories, then notebooks, then other
 * files, each by name (see byName); names `listed` refuses (hidden files, hide globs) left out.
 */
export function sortNames({ files, directories }: StoreNames, listed: (name: string) => boolean): string[] {
  const notebooks: string[] = [];
  const others: string[] = [];
  for (const name of files) {
    if (listed(name)) (name.endsWith('.ipynb') ? notebooks : others).push(name);
  }
  const sorted = byName(directories.filter(listed));
  for (const names of [byName(notebooks), byName(others)]) for (const name of names) sorted.push(name);
  return sorted;
}

/**
 * Names in case-insensitive order (as byKindThenName within a kind). Sorted by the engine's own
 * string order, with no comparator call per comparison: a name that lowercases to itself is its own
 * key, any other is keyed `lower\0name` (no name holds a NUL), which orders by the lowercased name
 * first and breaks its ties by the name, the all-lowercase one first.
 */
export function byName(names: readonly string[]): string[] {
  const keys = new Array<string>(names.length);
  let keyed = false;
  for (let i = 0; i < names.length; i++) {
    const name = names[i] as string;
    const lower = name.toLowerCase();
    if (lower === name) keys[i] = name;
    else {
      keys[i] = `${lower}\0${name}`;
      keyed = true;
    }
  }
  keys.sort();
  if (keyed) {
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i] as string;
      const at = key.indexOf('\0');
      if (at >= 0) keys[i] = key.slice(at + 1);
    }
  }
  return keys;
}

/** Case-insensitive within each kind (IPython 3 order), ties broken as byName breaks them. */
export function byKindThenName(
  a: { type: ContentType; key: string; name: string },
  b: { type: ContentType; key: string; name: string },
): number {
  const byType = DIR_ORDER[a.type] - DIR_ORDER[b.type];
  if (byType !== 0) return byType;
  if (a.key !== b.key) return a.key < b.key ? -1 : 1;
  if (a.name === b.name) return 0;
  return a.name === a.key ? -1 : b.name === b.key ? 1 : a.name < b.name ? -1 : 1;
}

/**
 * Sorted names of directories by the stamp their store gave them (see ContentsStore.namesStamp):
 * a directory listed again unchanged is neither read nor sorted again; its entries are still
 * stat'ed afresh by every listing. Holds at most MAX_CACHED_NAMES names, the oldest dropped first.
 */
export class SortedNamesCache {
  readonly #byPath = new Map<string, { stamp: string; names: readonly string[] }>();
  #count = 0;

  get(path: string, stamp: string): readonly string[] | undefined {
    const entry = this.#byPath.get(path);
    return entry?.stamp === stamp ? entry.names : undefined;
  }

  set(path: string, stamp: string, names: readonly string[]): void {
    this.#drop(path);
    if (names.length > MAX_CACHED_NAMES) return;
    for (const [oldest] of this.#byPath) {
      if (this.#count + names.length <= MAX_CACHED_NAMES) break;
      this.#drop(oldest);
    }
    this.#byPath.set(path, { stamp, names });
    this.#count += names.length;
  }

  clear(): void {
    this.#byPath.clear();
    this.#count = 0;
  }

  #drop(path: string): void {
    const entry = this.#byPath.get(path);
    if (!entry) return;
    this.#byPath.delete(path);
    this.#count -= entry.names.length;
  }
}
