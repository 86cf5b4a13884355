/**
 * Slows password guessing: login checks run one at a time, and each failure holds the line for a
 * delay that doubles with recent failures (250 ms up to 4 s), so parallel guesses gain nothing.
 * A success resets it; failures older than 15 minutes are forgotten.
 */
export class LoginThrottle {
  private queue: Promise<unknown> = Promise.resolve();
  private failures = 0;
  private lastFailure = 0;

  constructor(
    private readonly now: () => number = Date.now,
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  ) {}

  /** The delay the next failure would cost. */
  nextDelayMs(): number {
    const recent = this.now() - this.lastFailure < 15 * 60_000 ? this.failures : 0;
    return Math.min(250 * 2 ** recent, 4000);
  }

  /** Runs one credential check in line; resolves to its verdict after any penalty. */
  attempt(check: () => Promise<boolean>): Promise<boolean> {
    const run = this.queue.then(async () => {
      const ok = await check();
      if (ok) {
        this.failures = 0;
        return true;
      }
      const delay = this.nextDelayMs();
      this.failures = this.now() - this.lastFailure < 15 * 60_000 ? this.failures + 1 : 1;
      this.lastFailure = this.now();
      await this.sleep(delay);
      return false;
    });
    this.queue = run.catch(() => undefined);
    return run;
  }
}
