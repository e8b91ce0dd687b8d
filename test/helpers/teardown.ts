// Tearing down what a test started: every step runs, in order, even when one before it
// failed (a test may have closed the database or the server itself).

/** What the API tests start: the server under test, the indexer, the devnet and the test database, any not (yet) started. */
export interface Started {
  api?: { close(): Promise<unknown> };
  running?: { stop(): Promise<unknown> };
  devnet?: { close(): Promise<unknown> };
  t?: { dispose(): Promise<unknown> };
}

/** Closes the server, stops the indexer, closes the devnet and disposes of the database; a failing step is ignored. */
export async function closeStarted(ctx: Started): Promise<void> {
  for (const step of [
    () => ctx.api?.close(),
    () => ctx.running?.stop(),
    () => ctx.devnet?.close(),
    () => ctx.t?.dispose(),
  ])
    await step()?.catch(() => {});
}
