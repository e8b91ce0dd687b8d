// The write path of trades: one INSERT … SELECT FROM unnest(…) per batch, idempotent
// on the trade's event key so a replayed block stores nothing twice.
import type { Queryable } from '../db/types.ts';

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

const INSERT_TRADES = `
WITH inserted AS (
  INSERT INTO trades (time, block_height, tx_index, event_index, msg_index, tx_hash, source, action, direction,
                      token_address, price_unative, volume_unative, volume_token, fee_unative, trader,
                      input_amount, output_amount, native_reserves)
  SELECT * FROM unnest($1::timestamptz[], $2::bigint[], $3::int[], $4::int[], $5::int[], $6::text[], $7::text[], $8::text[], $9::text[],
                       $10::text[], $11::numeric[], $12::numeric[], $13::numeric[], $14::numeric[], $15::text[],
                       $16::numeric[], $17::numeric[], $18::numeric[])
  ON CONFLICT DO NOTHING
  RETURNING 1
)
SELECT count(*)::int AS inserted FROM inserted`;

/** Inserts trades (any number; sent in batches); returns how many were new. */
export async function insertTrades(db: Queryable, trades: readonly Trade[], batchSize = 5000): Promise<number> {
  let inserted = 0;
  for (let start = 0; start < trades.length; start += batchSize) {
    const batch = trades.slice(start, start + batchSize);
    const column = <T>(pick: (t: Trade) => T) => batch.map(pick);
    const [row] = await db.query<{ inserted: number }>(INSERT_TRADES, [
      column((t) => t.time.toISOString()),
      column((t) => t.blockHeight),
      column((t) => t.txIndex),
      column((t) => t.eventIndex),
      column((t) => t.msgIndex),
      column((t) => t.txHash),
      column((t) => t.source),
      column((t) => t.action),
      column((t) => t.direction),
      column((t) => t.tokenAddress),
      column((t) => t.priceUnative.toString()),
      column((t) => t.volumeUnative.toString()),
      column((t) => t.volumeToken.toString()),
      column((t) => t.feeUnative.toString()),
      column((t) => t.trader),
      column((t) => t.inputAmount.toString()),
      column((t) => t.outputAmount.toString()),
      column((t) => t.nativeReserves.toString()),
    ]);
    inserted += row!.inserted;
  }
  return inserted;
}

const TRADE_COLUMNS = [
  'time', 'block_height', 'tx_index', 'event_index', 'msg_index', 'tx_hash', 'source', 'action', 'direction', 'token_address',
  'price_unative', 'volume_unative', 'volume_token', 'fee_unative', 'trader', 'input_amount', 'output_amount', 'native_reserves',
] as const;

/** Bulk-loads trades with COPY where none can exist yet; a duplicate fails the statement. */
export async function copyTrades(db: Queryable, trades: readonly Trade[]): Promise<number> {
  await db.copyIn(
    'trades',
    TRADE_COLUMNS,
    trades.map((t) => [
      t.time, t.blockHeight, t.txIndex, t.eventIndex, t.msgIndex, t.txHash, t.source, t.action, t.direction, t.tokenAddress,
      t.priceUnative, t.volumeUnative, t.volumeToken, t.feeUnative, t.trader, t.inputAmount, t.outputAmount, t.nativeReserves,
    ]),
  );
  return trades.length;
}
