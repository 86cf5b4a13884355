import { type Change, diffArrays, diffLines } from 'diff';

/** The parts of a notebook cell a diff looks at. */
export interface DiffCell {
  id?: unknown;
  cell_type?: unknown;
  source?: unknown;
}

/** What a revert does to one cell: `lines` go from the cell now (`removed`) to the checkpoint's (`added`). */
export type CellChange =
  | { kind: 'changed'; index: number; type: string; lines: Change[] }
  /** A cell there is now and not in the checkpoint: the revert removes it. */
  | { kind: 'removed'; type: string; source: string }
  /** A cell of the checkpoint missing now: the revert brings it back, at `index`. */
  | { kind: 'restored'; index: number; type: string; source: string };

export interface NotebookDiff {
  changes: CellChange[];
  /** Cells the same in both. */
  unchanged: number;
}

export function cellSource(cell: DiffCell): string {
  return Array.isArray(cell.source) ? cell.source.join('') : typeof cell.source === 'string' ? cell.source : '';
}

const cellType = (cell: DiffCell) => (typeof cell.cell_type === 'string' ? cell.cell_type : 'code');

/** The same cell on both sides: by id where both have one (nbformat 4.5), else by type and source. */
function sameCell(a: DiffCell, b: DiffCell): boolean {
  if (typeof a.id === 'string' && typeof b.id === 'string') return a.id === b.id;
  return cellType(a) === cellType(b) && cellSource(a) === cellSource(b);
}

/**
 * What restoring a checkpoint does to the cells now: the cells are lined up (a longest common
 * subsequence, as `diff` computes it), then the sources of cells on both sides compared line by line.
 */
export function diffNotebooks(now: readonly DiffCell[], checkpoint: readonly DiffCell[]): NotebookDiff {
  const changes: CellChange[] = [];
  let unchanged = 0;
  let i = 0; // in `now`
  let j = 0; // in `checkpoint`
  for (const part of diffArrays([...now], [...checkpoint], { comparator: sameCell })) {
    for (let k = 0; k < part.count; k++) {
      if (part.removed) {
        const cell = now[i++] as DiffCell;
        changes.push({ kind: 'removed', type: cellType(cell), source: cellSource(cell) });
      } else if (part.added) {
        const cell = checkpoint[j] as DiffCell;
        changes.push({ kind: 'restored', index: j++, type: cellType(cell), source: cellSource(cell) });
      } else {
        const [a, b] = [now[i++] as DiffCell, checkpoint[j] as DiffCell];
        if (cellSource(a) === cellSource(b) && cellType(a) === cellType(b)) unchanged++;
        else
          changes.push({
            kind: 'changed',
            index: j,
            type: cellType(b),
            lines: diffLines(cellSource(a), cellSource(b)),
          });
        j++;
      }
    }
  }
  return { changes, unchanged };
}
