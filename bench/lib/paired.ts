import { median, sorted } from './stats.js';

/**
 * Paired ratios for latency comparisons on a loaded machine. Each round runs one block of every
 * client back to back (the order rotating through all permutations, so none is always first or
 * last); a round's ratio is the median of a client's block over the median of the reference's
 * block in the same round. Load from elsewhere changes slowly compared with a round, so it hits
 * both blocks of a round alike and cancels in their ratio; the median over rounds then ignores
 * the rounds a burst of load hit unevenly.
 */
export interface PairedRatio {
  /** Median over rounds of (client's block median / reference's block median). */
  median: number;
  /** Distribution-free 95 % confidence interval of that median (order statistics of the rounds' ratios). */
  low: number;
  high: number;
  rounds: number;
}

/** Every ordering of `items`, so that a round-robin over them puts each item in each place equally often. */
export function permutations<T>(items: readonly T[]): T[][] {
  if (items.length <= 1) return [[...items]];
  return items.flatMap((item, i) =>
    permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [item, ...rest]),
  );
}

/** `blocks[r]` and `reference[r]` are the samples of round r. */
export function pairedRatio(blocks: readonly number[][], reference: readonly number[][]): PairedRatio {
  const ratios = blocks.map((b, r) => median(b) / median(reference[r] ?? []));
  const s = sorted(ratios.filter(Number.isFinite));
  const n = s.length;
  const [lo, hi] = medianConfidenceRanks(n);
  return { median: median(s), low: s[lo] ?? Number.NaN, high: s[hi] ?? Number.NaN, rounds: n };
}

/**
 * 0-based ranks (k, n-1-k) of the order statistics bounding a ≥95 % confidence interval for the
 * median of n samples: the largest k with P(Binomial(n, 1/2) ≤ k) ≤ 0.025.
 */
export function medianConfidenceRanks(n: number): [number, number] {
  let k = -1;
  let cumulative = 0;
  let term = 0.5 ** n; // P(X = 0)
  for (let i = 0; i < n; i++) {
    cumulative += term;
    if (cumulative > 0.025) break;
    k = i;
    term = (term * (n - i)) / (i + 1);
  }
  // with k = -1 (too few rounds) the interval is the whole range
  return [Math.max(k, 0), n - 1 - Math.max(k, 0)];
}

export function formatPaired(p: PairedRatio): string {
  return `${p.median.toFixed(3)}x (95 % CI ${p.low.toFixed(3)}–${p.high.toFixed(3)}, ${p.rounds} rounds)`;
}
