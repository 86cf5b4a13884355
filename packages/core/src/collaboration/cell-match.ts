import { diffArrays } from 'diff';
import { isObject } from '../util/is-object.js';

interface Cell {
  cell_type: string;
  id?: unknown;
  source?: unknown;
}

/** A cell's source as one string (nbformat allows a list of lines). */
export function sourceOf(cell: Cell): string {
  return Array.isArray(cell.source) ? cell.source.join('') : typeof cell.source === 'string' ? cell.source : '';
}

/** The same cell content (id and trust aside). */
export function sameCell(a: Cell, b: Cell): boolean {
  return canonical(a) === canonical(b);
}

function canonical(cell: Cell): string {
  const { id: _, ...rest } = cell as Cell & Record<string, unknown>;
  return stableJson(rest);
}

/**
 * JSON for comparing what the file held with what the document holds: keys sorted, lists of lines
 * joined (nbformat allows either), cell trust left out (the contents API sets it when reading).
 */
export function stableJson(value: unknown): string {
  return JSON.stringify(value, (key, item: unknown) => {
    if (key === 'trusted') return undefined;
    if ((key === 'source' || key === 'text') && Array.isArray(item)) return item.join('');
    if (!isObject(item) || Array.isArray(item)) return item;
    return Object.fromEntries(Object.entries(item).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  });
}

/**
 * Which cell of `before` each cell of `after` is (its index, or -1 for a new cell): by id first;
 * the cells left are aligned by content (type and source, in order, as a diff of the two lists);
 * then, between two aligned cells, a cell of `after` without an id (nbformat before 4.5) takes the
 * next cell of `before` of its type there: the same cell with its source edited.
 */
export function matchCells(before: readonly Cell[], after: readonly Cell[]): number[] {
  const pairs = after.map(() => -1);
  const byId = new Map<unknown, number>();
  before.forEach((cell, i) => {
    if (typeof cell.id === 'string' && !byId.has(cell.id)) byId.set(cell.id, i);
  });
  const used = new Set<number>();
  after.forEach((cell, i) => {
    const b = typeof cell.id === 'string' ? byId.get(cell.id) : undefined;
    if (b !== undefined && !used.has(b)) {
      pairs[i] = b;
      used.add(b);
    }
  });
  const restBefore = before.map((_, i) => i).filter((i) => !used.has(i));
  const restAfter = after.map((_, i) => i).filter((i) => pairs[i] === -1);
  const key = (cell: Cell) => `${cell.cell_type}\0${sourceOf(cell)}`;
  const same = (b: number, a: number) => key(before[b] as Cell) === key(after[a] as Cell);
  let [ib, ia] = [0, 0];
  let removed: number[] = [];
  let added: number[] = [];
  const pairHunk = () => {
    for (const a of added) {
      if (typeof after[a]?.id === 'string') continue;
      const at = removed.findIndex((b) => before[b]?.cell_type === after[a]?.cell_type);
      if (at < 0) continue;
      pairs[a] = removed[at] as number;
      removed = removed.slice(at + 1);
    }
    [removed, added] = [[], []];
  };
  for (const change of diffArrays(restBefore, restAfter, { comparator: same })) {
    const count = change.count;
    if (change.removed) {
      removed.push(...restBefore.slice(ib, ib + count));
      ib += count;
    } else if (change.added) {
      added.push(...restAfter.slice(ia, ia + count));
      ia += count;
    } else {
      pairHunk();
      for (let k = 0; k < count; k++) pairs[restAfter[ia + k] as number] = restBefore[ib + k] as number;
      ib += count;
      ia += count;
    }
  }
  pairHunk();
  return pairs;
}
