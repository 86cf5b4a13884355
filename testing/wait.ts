/**
 * Polls `predicate` every `intervalMs` until it holds; throws after `timeoutMs` (default 30 s: the
 * machine running the tests may be loaded).
 */
export async function waitFor(
  predicate: () => boolean | Promise<boolean>,
  {
    timeoutMs = 30_000,
    intervalMs = 25,
    what = 'condition',
  }: { timeoutMs?: number; intervalMs?: number; what?: string } = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`${what} not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** Polls `probe` until it gives a value (a throw counts as none yet), and returns it; throws after `timeoutMs`. */
export async function waitForValue<T>(
  what: string,
  timeoutMs: number,
  probe: () => T | undefined | Promise<T | undefined>,
  intervalMs = 250,
): Promise<T> {
  let value: T | undefined;
  const found = async () => {
    value = await Promise.resolve()
      .then(probe)
      .catch(() => undefined);
    return value !== undefined;
  };
  await waitFor(found, { timeoutMs, intervalMs, what: `Timed out waiting for ${what}` });
  return value as T;
}

/** `waitFor` that answers whether `predicate` came to hold in time instead of throwing (the test asserts after). */
export async function waitUntil(
  predicate: () => boolean | Promise<boolean>,
  options: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<boolean> {
  return await waitFor(predicate, options).then(
    () => true,
    () => false,
  );
}

/** `promise`, or a rejection naming `what` once `timeoutMs` passed without it settling. */
export async function within<T>(promise: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}
