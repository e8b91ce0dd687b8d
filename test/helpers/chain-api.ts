// The Chain API over HTTP against a running server, as the test/chain-api files set it up: a
// test database, a devnet, an indexer following it and the Chain API reading the index and
// the devnet's node.
import { type ChainApi, type ChainApiOptions, startChainApi } from '../../src/api/chain/server.ts';
import type { ChainClient } from '../../src/chain/client.ts';
import type { Devnet } from '../../src/devnet/index.ts';
import { silentLogger } from '../../src/internal/logger.ts';
import { openTestDatabase, type TestDatabase } from './database.ts';
import { startDevnet } from './devnet.ts';
import { getJson } from './http.ts';
import { startIndexer } from './indexing.ts';
import { closeStarted } from './teardown.ts';

export interface ChainCtx {
  t: TestDatabase;
  devnet: Devnet;
  running: ReturnType<typeof startIndexer>;
  api: ChainApi;
}

/** A Chain API on a free port, silent, with limits no test reaches unless `options` says otherwise. */
export function startTestChainApi(
  t: TestDatabase,
  chain: ChainClient,
  options: Partial<ChainApiOptions> = {},
): Promise<ChainApi> {
  return startChainApi({
    db: t.db,
    chain,
    logger: silentLogger,
    accountPrefix: 'native',
    host: '127.0.0.1',
    port: 0,
    rateLimit: { reads: 100_000, broadcasts: 100_000, windowSeconds: 60, trustedHops: 0 },
    ...options,
  });
}

/** A test database, a devnet, an indexer following it and the Chain API under test, into `ctx`. */
export async function openChainApi(ctx: ChainCtx): Promise<void> {
  ctx.t = await openTestDatabase();
  ctx.devnet = await startDevnet();
  ctx.running = startIndexer(ctx.t.db, ctx.devnet, { pollIntervalMs: 100 });
  ctx.api = await startTestChainApi(ctx.t, ctx.running.chain, besideIndexer(ctx.running));
}

/** The options of a Chain API in the indexer's process: it hears of each block the indexer commits. */
export const besideIndexer = (running: ChainCtx['running']): Partial<ChainApiOptions> => ({
  indexedHeight: () => running.indexer.status().indexedHeight,
});

/** Stops what openChainApi started; each step runs even when the one before fails. */
export function closeChainApi(ctx: Partial<ChainCtx>): Promise<void> {
  return closeStarted(ctx);
}

/** GETs `path` from the Chain API: status, headers and the JSON body. */
export function chainGet(api: ChainApi, path: string, headers: Record<string, string> = {}) {
  return getJson(`${api.url}${path}`, headers);
}

/** POSTs a JSON body to the Chain API. */
// biome-ignore lint/suspicious/noExplicitAny: the tests read whatever fields they assert on
export async function chainPost<Body = any>(api: ChainApi, path: string, body: unknown) {
  const res = await fetch(`${api.url}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: (text ? JSON.parse(text) : undefined) as Body };
}
