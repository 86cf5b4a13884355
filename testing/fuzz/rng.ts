import { random } from '../random.js';

/** The fuzzer's choices, all drawn from one seeded generator (testing/random.ts) so a seed replays. */
export class Rng {
  readonly #next: () => number;

  constructor(readonly seed: number) {
    this.#next = random(seed);
  }

  /** In [0, 1). */
  float(): number {
    return this.#next();
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.#next() * n);
  }

  /** An integer in [min, max]. */
  between(min: number, max: number): number {
    return min + this.int(max - min + 1);
  }

  chance(p: number): boolean {
    return this.#next() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list');
    return items[this.int(items.length)] as T;
  }

  /** One of `choices`, each with its weight: `[[3, 'a'], [1, 'b']]`. */
  weighted<T>(choices: ReadonlyArray<readonly [number, T]>): T {
    const total = choices.reduce((sum, [w]) => sum + w, 0);
    let at = this.#next() * total;
    for (const [w, value] of choices) {
      at -= w;
      if (at < 0) return value;
    }
    return (choices[choices.length - 1] as readonly [number, T])[1];
  }

  /** A string of `length` characters drawn from `alphabet`. */
  string(length: number, alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789'): string {
    let out = '';
    for (let i = 0; i < length; i++) out += alphabet[this.int(alphabet.length)];
    return out;
  }

  bytes(length: number): Buffer {
    const out = Buffer.alloc(length);
    for (let i = 0; i < length; i++) out[i] = this.int(256);
    return out;
  }
}
