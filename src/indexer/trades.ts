// The write path of trades: one bulk load per batch (COPY on the embedded database), idempotent
// on the trade's event key when asked, so a replayed block stores nothing twice.
import type { CopyOptions, Queryable } from '../db/types.ts';

export type TradeSource = 'launchpad' | 'amm';
export type TradeAction = 'buy' | 'sell' | 'swap' | 'buy_and_graduate';
export type TradeDirection = 'native_to_token' | 'token_to_native';

export interface Trade {
  time: Date;
  blockHeight: number;
  txIndex: number;
  eventIndex: number;
  msgIndex: number;
  txHash: string;
  source: TradeSource;
  action: TradeAction;
  direction: TradeDirection;
  tokenAddress: string;
  priceUnative: bigint;
  volumeUnative: bigint;
  volumeToken: bigint;
  feeUnative: bigint;
  trader: string;
  inputAmount: bigint;
  outputAmount: bigint;
  nativeReserves: bigint;
}

/** The chain-order key of an event, as the trades.seq column computes it. */
export function seqOf(at: { blockHeight: number; txIndex: number; eventIndex: number }): bigint {
  return (BigInt(at.blockHeight) << 32n) | (BigInt(at.txIndex) << 16n) | BigInt(at.eventIndex);
}

const TRADE_COLUMNS = [
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
  return db.copyIn(
    'trades',
    TRADE_COLUMNS,
    trades.map((t) => [
      t.time,
      t.blockHeight,
      t.txIndex,
      t.eventIndex,
      t.msgIndex,
      t.txHash,
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
    ]),
    options,
  );
}

/** Inserts trades, skipping any already stored; returns how many were new. */
export const insertTrades = (db: Queryable, trades: readonly Trade[]) =>
  writeTrades(db, trades, { ignoreDuplicates: true });
