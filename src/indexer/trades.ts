// The write path of trades: one bulk load per batch (a binary COPY, or an INSERT when
// duplicates are skipped), idempotent on the trade's event key when asked, so a replayed
// block stores nothing twice.
import { encodeRows } from '../db/copy-format.ts';
import {
  type BinaryColumnType,
  type CopyOptions,
  type EncodedRows,
  isEncodedRows,
  type Queryable,
} from '../db/types.ts';
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

/** Their types (sql/0002_trades.sql; the tx hash as bytes since sql/0016_trades_columnstore_layout.sql). */
const TRADE_TYPES: readonly BinaryColumnType[] = [
  'timestamp with time zone',
  'bigint',
  'integer',
  'integer',
  'integer',
  'bytea',
  'text',
  'text',
  'text',
  'text',
  'numeric',
  'numeric',
  'numeric',
  'numeric',
  'text',
  'numeric',
  'numeric',
  'numeric',
];

/** Trades as the rows `writeTrades` copies, encoded where they were decoded (src/indexer/shape-block.ts). */
export const encodeTrades = (trades: readonly Trade[]): EncodedRows =>
  encodeRows(TRADE_TYPES, trades.map(tradeRow), 400 * trades.length);

/**
 * Bulk-loads trades (or their rows encoded beforehand, `encodeTrades`); returns how many were stored. By default a trade already stored
 * fails the write (where none can exist yet: the head of the index); `ignoreDuplicates`
 * skips it instead, so a replayed block stores nothing twice.
 */
export async function writeTrades(
  db: Queryable,
  trades: readonly Trade[] | EncodedRows,
  options: CopyOptions = {},
): Promise<number> {
  return db.copyIn('trades', TRADE_COLUMNS, isEncodedRows(trades) ? trades : trades.map(tradeRow), options);
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
