// The write path of trades: one bulk load per batch (a binary COPY, or an INSERT when
// duplicates are skipped), idempotent on the trade's event key when asked, so a replayed
// block stores nothing twice.
import type { CopyOptions, Queryable } from '../db/types.ts';
import type { Trade } from '../domain/events.ts';

/** The columns of `trades` a trade is written to, in the order of `tradeRow`. */
export const TRADE_COLUMNS = [
  'time',
  'block_height',
  'tx_index',
  'event_index',
  'msg_index',
  'tx_hash',
  'source',
  'action',
  'direction',
  'token_address',
  'price_unative',
  'volume_unative',
  'volume_token',
  'fee_unative',
  'trader',
  'input_amount',
  'output_amount',
  'native_reserves',
] as const;

/**
 * Bulk-loads trades; returns how many were stored. By default a trade already stored
 * fails the write (where none can exist yet: the head of the index); `ignoreDuplicates`
 * skips it instead, so a replayed block stores nothing twice.
 */
export async function writeTrades(db: Queryable, trades: readonly Trade[], options: CopyOptions = {}): Promise<number> {
  return db.copyIn('trades', TRADE_COLUMNS, trades.map(tradeRow), options);
}

/** A trade as the row `writeTrades` bulk-loads, in `TRADE_COLUMNS` order. */
export function tradeRow(t: Trade): unknown[] {
  return [
    t.time,
    t.blockHeight,
    t.txIndex,
    t.eventIndex,
    t.msgIndex,
    Buffer.from(t.txHash, 'hex'), // stored as its bytes (sql/0016_trades_columnstore_layout.sql); hex the indexer made
    t.source,
    t.action,
    t.direction,
    t.tokenAddress,
    t.priceUnative,
    t.volumeUnative,
    t.volumeToken,
    t.feeUnative,
    t.trader,
    t.inputAmount,
    t.outputAmount,
    t.nativeReserves,
  ];
}

/** Inserts trades, skipping any already stored; returns how many were new. */
export const insertTrades = (db: Queryable, trades: readonly Trade[]) =>
  writeTrades(db, trades, { ignoreDuplicates: true });
