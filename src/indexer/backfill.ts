// Backfill: indexes a range of past heights without feeding SSE (history is not news).
// On an empty database it starts the index (moving the cursor, so the live indexer goes
// on from there); on an existing one it fills history below or inside the index.
import type { ChainClient } from '../chain/client.ts';
import type { Database } from '../db/types.ts';
import type { ContractAddresses } from '../domain/events.ts';
import { ServiceError } from '../internal/errors.ts';
import type { Logger } from '../internal/logger.ts';
import { nodeViewOf, readCursor, verifyChainIdentity } from './cursor.ts';
import { nodeCall } from './errors.ts';
import { type BatchSummary, indexRange } from './index-range.ts';

export interface BackfillOptions {
  db: Database;
  chain: ChainClient;
  contracts: ContractAddresses;
  logger: Logger;
  /** Default: the lowest height the node keeps (1 on an archive node). */
  from?: number;
  /** Default: the height before the index's first block, or the node's tip for an empty index. */
  to?: number;
  maxTxsPerBatch?: number;
  fetchConcurrency?: number;
  /** CW20 contracts followed besides the launchpad's and the AMM's tokens (CW20_CONTRACTS). */
  cw20Contracts?: readonly string[];
  signal?: AbortSignal;
  onBatch?: (batch: BatchSummary) => void;
}

export interface BackfillPlan {
  from: number;
  to: number;
  /** true when the range extends the index at its head (or starts it). */
  movesCursor: boolean;
}

export class BackfillRangeError extends ServiceError {
  override name = 'BackfillRangeError';
}

export interface PlanOptions extends Pick<BackfillOptions, 'db' | 'chain' | 'from' | 'to'> {
  /** A live indexer runs in the same service: it owns the cursor; wait for it to record one. */
  besideLiveIndexer?: boolean;
}

async function waitForCursor(db: Database, timeoutMs = 120_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const cursor = await readCursor(db);
    if (cursor || Date.now() > deadline) return cursor;
    await new Promise((r) => setTimeout(r, 250));
  }
}

export async function planBackfill({
  db,
  chain,
  from,
  to,
  besideLiveIndexer = false,
}: PlanOptions): Promise<BackfillPlan> {
  const cursor = besideLiveIndexer ? await waitForCursor(db) : await readCursor(db);
  if (besideLiveIndexer && !cursor)
    throw new BackfillRangeError('the live indexer has not started its index yet; try again once it has');
  await nodeCall('status', () => chain.detect());
  const node = await nodeViewOf(chain);
  const tip = node.tipHeight;
  if (cursor) await verifyChainIdentity(cursor, node, db);
  const start = from ?? node.earliestHeight;
  const end = to ?? (cursor ? cursor.firstHeight - 1 : tip);
  if (!Number.isInteger(start) || start < 1)
    throw new BackfillRangeError(`--from must be a height of 1 or more, got ${from}`);
  if (start < node.earliestHeight)
    throw new BackfillRangeError(
      `--from ${start} is below the lowest height the node keeps, ${node.earliestHeight} (it prunes older blocks, or was state-synced): start at --from ${node.earliestHeight}, or point CHAIN_RPC_URL at an archive node`,
    );
  if (end > tip) throw new BackfillRangeError(`--to ${end} is above the node's tip ${tip}`);
  if (end < start)
    throw new BackfillRangeError(
      cursor && to === undefined
        ? `nothing to backfill: the index already starts at height ${cursor.firstHeight}`
        : `--to ${end} is below --from ${start}`,
    );
  const movesCursor = !besideLiveIndexer && (!cursor || start === cursor.lastHeight + 1);
  if (!movesCursor && end > cursor!.lastHeight) {
    throw new BackfillRangeError(
      `--to ${end} is past the index's head ${cursor!.lastHeight}; the live indexer indexes from there (or start at --from ${cursor!.lastHeight + 1})`,
    );
  }
  return { from: start, to: end, movesCursor };
}

export async function backfill(options: BackfillOptions, plan?: BackfillPlan): Promise<BackfillPlan> {
  const p = plan ?? (await planBackfill(options));
  await indexRange(p.from, p.to, {
    db: options.db,
    chain: options.chain,
    contracts: options.contracts,
    logger: options.logger,
    moveCursor: p.movesCursor,
    emitFeed: false,
    maxTxsPerBatch: options.maxTxsPerBatch,
    fetchConcurrency: options.fetchConcurrency,
    cw20Contracts: options.cw20Contracts,
    signal: options.signal,
    onBatch: options.onBatch,
  });
  return p;
}
