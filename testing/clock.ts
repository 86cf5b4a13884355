import { vi } from 'vitest';

/**
 * A test clock for waits the server measures with `Date` and `performance.now()` (a listing
 * served again for 100 ms, a directory whose mtime counts as settled after 2 s, a ticker's
 * period). Only those two are faked: timers and I/O stay real, and the clock keeps running with
 * real time, so the server under test works as usual while a test jumps over a wait.
 */
export function useTestClock(): void {
  vi.useFakeTimers({ toFake: ['Date', 'performance'], shouldAdvanceTime: true });
}

/** Moves the clock of `useTestClock` forward by `ms`, at once (both `Date` and `performance.now()`). */
export function advanceClock(ms: number): void {
  vi.advanceTimersByTime(ms);
}

/**
 * Puts `Date` SETTLE_MS past the real time: whatever changed on disk until now counts as
 * settled. What a test changes on disk afterwards is stamped with the real time, so call
 * `backToRealTime()` first when that change must look recent, as after a real wait.
 */
export function settleDirectories(): void {
  vi.setSystemTime(vi.getRealSystemTime() + SETTLE_MS);
}

/** Puts `Date` back at the real time (`performance.now()` keeps what `advanceClock` added). */
export function backToRealTime(): void {
  vi.setSystemTime(vi.getRealSystemTime());
}

/** Gives the real clock back. */
export function useRealClock(): void {
  vi.useRealTimers();
}

/** Past the 2 s after which a directory's mtime and ctime count as settled (metadata-calls.ts). */
export const SETTLE_MS = 2300;

/** Past the 100 ms in which a listing is served again as it was (served-bytes.ts). */
export const LISTING_REUSE_PAST_MS = 150;
