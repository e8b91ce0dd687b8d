// Waiting in tests: a plain pause, polling a condition within a bound, and a deadline for a
// promise. A test waits for the event it needs, never for a fixed time standing in for it.

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Polls `holds` (which may answer asynchronously) every `everyMs` until it is true or
 * `withinMs` have passed; resolves to whether it held.
 */
export async function waitFor(
  holds: () => boolean | Promise<boolean>,
  withinMs: number,
  everyMs = 10,
): Promise<boolean> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    if (await holds()) return true;
    if (Date.now() >= deadline) return false;
    await sleep(everyMs);
  }
}

/** `promise`'s outcome, or a rejection naming `what` when it has not settled within `ms`. */
export async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
