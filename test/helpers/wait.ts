// Waiting in tests: a plain pause, and polling a condition within a bound.

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls `holds` every `everyMs` until it is true or `withinMs` have passed; resolves to whether it held. */
export async function waitFor(holds: () => boolean, withinMs: number, everyMs = 10): Promise<boolean> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    if (holds()) return true;
    if (Date.now() >= deadline) return false;
    await sleep(everyMs);
  }
}
