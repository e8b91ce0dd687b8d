// Writes one batch of blocks in one transaction: chain index (blocks, txs, their hashes, event
// attributes by their numbered pairs), tokens, CW20 balances, trades, SSE outbox rows and the cursor, with at most
// two NOTIFYs (src/feed/notice.ts): the new outbox id when it added feed rows, and one typed
// domain change for what no feed row tells: the holders whose CW20 balances moved, the
// vouched set (a token became known, or the vouching moved) or, for a backfill with trades
// or new tokens, anything. A crash at any point leaves either the whole batch
// or none of it.

import { attributeIds, idOf } from '../db/attribute-values.ts';
import { joinEncodedRows } from '../db/copy-format.ts';
import { storeNativeUsdPrices } from '../db/native-usd-prices.ts';
import { markSuppliesStale, markThresholdsStale, storeSeenTokens, storeTokenStates } from '../db/tokens.ts';
import type { Queryable } from '../db/types.ts';
import type { DomainEvent } from '../domain/events.ts';
import { notify } from '../feed/notice.ts';
import { appendToOutbox } from '../feed/outbox.ts';
import { attributePairs, HASH_COLUMNS, TX_COLUMNS } from './chain-rows.ts';
import { readCursor } from './cursor.ts';
import { writeCw20Balances } from './cw20-balances.ts';
import { ChainMismatchError, CursorMovedError } from './errors.ts';
import type { FetchedBlock } from './fetch-blocks.ts';
import { foldTokenChanges } from './token-changes.ts';
import { writeTrades } from './trades.ts';

export interface Batch {
  blocks: readonly FetchedBlock[];
  events: readonly DomainEvent[];
}

export interface WriteOptions {
  /** Extend the index at its head: check continuity with the cursor and move it. */
  moveCursor: boolean;
  /**
   * Bulk-load with COPY. Only where no row can exist yet (the head of the index, right
   * after the cursor check); a duplicate key then fails the batch rather than being skipped.
   */
  bulk?: boolean;
  /** Write SSE outbox rows (live indexing; a backfill of history does not). */
  emitFeed: boolean;
  /** CW20 contracts followed besides the launchpad's and the AMM's tokens (CW20_CONTRACTS). */
  cw20Contracts?: readonly string[];
  /** Test hook: called between statements to simulate a crash mid-batch. */
  faultPoint?: (step: string) => void;
}

export interface WriteResult {
  blocks: number;
  txs: number;
  trades: number;
  newTokens: string[];
  feedEvents: number;
  /** Token facts the metadata reader is to read again: graduation thresholds (the oracle price changed) or total supplies (a mint or burn). */
  metadataStale: boolean;
}

async function checkContinuity(tx: Queryable, first: FetchedBlock): Promise<void> {
  const cursor = await readCursor(tx, { forUpdate: true });
  if (!cursor) {
    await tx.query(
      `INSERT INTO indexer_state (chain_id, first_height, first_block_hash, last_height, last_block_hash, last_block_time)
       VALUES ($1, $2, $3, $4, $5, $6)`,
      [first.chainId, first.height, first.hash, first.height - 1, first.lastBlockHash, first.time],
    );
    return;
  }
  if (first.chainId !== cursor.chainId)
    throw new ChainMismatchError(
      `block ${first.height} is from chain ${first.chainId}, this database indexes ${cursor.chainId}`,
    );
  if (first.height !== cursor.lastHeight + 1) {
    throw new CursorMovedError(
      `the cursor is at ${cursor.lastHeight}, this batch starts at ${first.height} (another indexer wrote meanwhile?)`,
    );
  }
  if (cursor.lastBlockHash && first.lastBlockHash !== cursor.lastBlockHash) {
    throw new ChainMismatchError(
      `block ${first.height} follows block hash ${first.lastBlockHash.slice(0, 12)}…, but the indexed block ${cursor.lastHeight} has hash ${cursor.lastBlockHash.slice(0, 12)}…: the node serves another chain`,
    );
  }
}

const BLOCK_COLUMNS = ['height', 'hash', 'time', 'time_rfc3339', 'chain_id', 'proposer', 'tx_count', 'block'] as const;
const ATTRIBUTE_COLUMNS = ['attribute', 'height', 'tx_index'] as const;

/** Rows of tx_attribute_refs: each tx's indexed pairs by their numbers (src/db/attribute-values.ts). */
async function attributeRows(tx: Queryable, blocks: readonly FetchedBlock[]): Promise<unknown[][]> {
  const ids = await attributeIds(tx, attributePairs(blocks.map((b) => b.rows.attributes)));
  const rows: unknown[][] = [];
  for (const b of blocks) {
    const { keys, values, refs } = b.rows.attributes;
    const numbers = keys.map((key, i) => idOf(ids, key, values[i]!)!);
    for (let r = 0; r < refs.length; r += 2) rows.push([numbers[refs[r + 1]!], b.height, refs[r]]);
  }
  return rows;
}

/** The batch's blocks, txs (their rows encoded where each block was read), hashes and attribute pairs. */
async function writeChainIndex(tx: Queryable, blocks: readonly FetchedBlock[], bulk: boolean): Promise<number> {
  const options = { ignoreDuplicates: !bulk };
  const blockRows = blocks.map((b) => [
    b.height,
    b.hash,
    b.time,
    b.timeRfc3339,
    b.chainId,
    b.proposer,
    b.txCount,
    b.rest,
  ]);
  await tx.copyIn('blocks', BLOCK_COLUMNS, blockRows, options);
  const txs = joinEncodedRows(blocks.map((b) => b.rows.txs));
  await tx.copyIn('txs', TX_COLUMNS, txs, options);
  // the way in by hash (sql/0019_chain_index_columnstore.sql)
  await tx.copyIn('tx_hashes', HASH_COLUMNS, joinEncodedRows(blocks.map((b) => b.rows.hashes)), options);
  await tx.copyIn('tx_attribute_refs', ATTRIBUTE_COLUMNS, await attributeRows(tx, blocks), options);
  return txs.count;
}

async function writeTokens(tx: Queryable, events: readonly DomainEvent[]): Promise<string[]> {
  const changes = [...foldTokenChanges(events).values()];
  const created = await storeSeenTokens(
    tx,
    changes.map((c) => ({
      address: c.address,
      source: c.source,
      creator: c.launch?.creator ?? null,
      name: c.launch?.name ?? null,
      symbol: c.launch?.symbol ?? null,
      image: c.launch?.image ?? null,
      description: c.launch?.description ?? null,
      initialReserves: c.launch?.initialReserves.toString() ?? null,
      createdAt: c.launch?.at.time.toISOString() ?? null,
      createdHeight: c.launch?.at.blockHeight ?? null,
    })),
  );
  await storeTokenStates(
    tx,
    changes.map((c) => ({
      address: c.address,
      reserves: c.reserves.toString(),
      seq: c.seq.toString(),
      price: (c.price ?? 0n).toString(),
      lastTradeAt: c.lastTradeAt?.toISOString() ?? null,
      tradeSeq: c.tradeSeq.toString(),
      graduatedAt: c.graduatedAt?.toISOString() ?? null,
    })),
  );
  return created;
}

/** Writes a batch of consecutive blocks atomically (the caller runs it in a transaction). */
export async function writeBatch(
  tx: Queryable,
  batch: Batch,
  { moveCursor, emitFeed, bulk = false, faultPoint, cw20Contracts }: WriteOptions,
): Promise<WriteResult> {
  const first = batch.blocks[0];
  const last = batch.blocks.at(-1);
  if (!first || !last) return { blocks: 0, txs: 0, trades: 0, newTokens: [], feedEvents: 0, metadataStale: false };
  if (moveCursor) await checkContinuity(tx, first);
  faultPoint?.('continuity');
  const txs = await writeChainIndex(tx, batch.blocks, bulk);
  faultPoint?.('chain-index');
  const newTokens = await writeTokens(tx, batch.events);
  const thresholdsStale = batch.blocks.some((b) => (b.decoded.oracleUpdates?.length ?? 0) > 0);
  // the metadata fetcher asks the launchpad for the new thresholds (src/indexer/token-metadata.ts)
  if (thresholdsStale) await markThresholdsStale(tx);
  const prices = batch.blocks.flatMap((b) =>
    (b.decoded.oracleUpdates ?? []).flatMap(({ at, nativeUsdMicro }) =>
      nativeUsdMicro === null
        ? []
        : [
            {
              time: at.time,
              blockHeight: at.blockHeight,
              txIndex: at.txIndex,
              eventIndex: at.eventIndex,
              usdMicro: nativeUsdMicro,
            },
          ],
    ),
  );
  await storeNativeUsdPrices(tx, prices);
  // and for the total supply of the tokens minted or burnt
  const suppliesMoved = [...new Set(batch.blocks.flatMap((b) => b.cw20?.supplyChanged ?? []))];
  await markSuppliesStale(tx, suppliesMoved);
  faultPoint?.('tokens');
  const balances = await writeCw20Balances(tx, batch.blocks, {
    head: moveCursor,
    newTokens,
    cw20Contracts,
  });
  faultPoint?.('cw20-balances');
  const tradeList = batch.events.flatMap((e) => (e.kind === 'trade' ? [e.trade] : []));
  const trades = await writeTrades(tx, tradeList, { ignoreDuplicates: !bulk });
  faultPoint?.('trades');
  const feedEvents = emitFeed ? await appendToOutbox(tx, batch.events) : 0;
  // what no feed row tells (src/feed/notice.ts): a backfill's trades (it writes no feed
  // rows), the holders whose balances moved, or the vouched set when a token became known
  if (!emitFeed && (trades > 0 || newTokens.length > 0)) await notify(tx, { kind: 'anything' });
  else if (balances.vouchingChanged) await notify(tx, { kind: 'vouched' });
  else if (newTokens.length > 0)
    // the new tokens, and the tokens whose balances moved beside them
    await notify(tx, { kind: 'vouched', tokens: [...new Set([...newTokens, ...balances.tokens])] });
  else if (balances.holders.length > 0)
    await notify(tx, { kind: 'balances', holders: balances.holders, tokens: balances.tokens });
  // a new oracle price moves every answer in USD (a period's candle takes the price by its end)
  if (prices.length > 0) await notify(tx, { kind: 'prices' });
  faultPoint?.('feed');
  if (moveCursor) {
    await tx.query(
      `UPDATE indexer_state SET last_height = $1, last_block_hash = $2, last_block_time = $3, updated_at = now()`,
      [last.height, last.hash, last.time],
    );
  }
  faultPoint?.('cursor');
  return {
    blocks: batch.blocks.length,
    txs,
    trades,
    newTokens,
    feedEvents,
    metadataStale: thresholdsStale || suppliesMoved.length > 0,
  };
}
