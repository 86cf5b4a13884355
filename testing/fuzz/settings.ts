import { BASE_URL_MATRIX, type ServerEntry } from '../server.js';

/** The seeds CI runs, each against its own fresh server. */
export const CI_SEEDS: readonly number[] = [1, 2, 3];

/** Requests (HTTP and WebSocket conversations) per seed unless `FUZZ_REQUESTS` says otherwise. */
export const DEFAULT_REQUESTS = 600;

export const FUZZ_TEST_FILE = 'packages/http/test/api-fuzz.test.ts';

/** `FUZZ_SEED=n` replays one seed; `FUZZ_SEEDS=a,b,c` runs those; `FUZZ_REQUESTS=n` sets the length. */
export function fuzzSettings(env: NodeJS.ProcessEnv = process.env): { seeds: number[]; requests: number } {
  const list = env.FUZZ_SEED ?? env.FUZZ_SEEDS;
  const seeds = list ? list.split(',').map((s) => Number.parseInt(s.trim(), 10)) : [...CI_SEEDS];
  if (seeds.some((s) => !Number.isSafeInteger(s))) throw new Error(`FUZZ_SEED(S) must be integers, not ${list}`);
  const requests = env.FUZZ_REQUESTS ? Number.parseInt(env.FUZZ_REQUESTS, 10) : DEFAULT_REQUESTS;
  if (!Number.isSafeInteger(requests) || requests < 1) throw new Error(`FUZZ_REQUESTS must be a positive integer`);
  return { seeds, requests };
}

/** Where a seed's server is served: the seed picks an entry of the base-URL matrix. */
export function entryForSeed(seed: number): ServerEntry {
  return BASE_URL_MATRIX[Math.abs(seed) % BASE_URL_MATRIX.length] as ServerEntry;
}

export function replayCommand(seed: number, requests: number): string {
  const length = requests === DEFAULT_REQUESTS ? '' : ` FUZZ_REQUESTS=${requests}`;
  return `FUZZ_SEED=${seed}${length} pnpm exec vitest run ${FUZZ_TEST_FILE}`;
}
