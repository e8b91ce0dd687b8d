// The `native_usd_prices` table (sql/0013_market_data.sql): the native coin's USD price each
// time the launchpad's oracle set it, which prices the USD candles.
import { sql } from './sql.ts';
import type { Queryable } from './types.ts';

export interface NativeUsdPrice {
  time: Date;
  blockHeight: number;
  txIndex: number;
  eventIndex: number;
  /** Micro-USD per display unit of the native coin. */
  usdMicro: string;
}

/** Stores oracle prices (one indexed again is stored once). */
export async function storeNativeUsdPrices(tx: Queryable, prices: readonly NativeUsdPrice[]): Promise<void> {
  if (prices.length === 0) return;
  await tx.query(
    sql`INSERT INTO native_usd_prices (time, block_height, tx_index, event_index, usd_micro)
        SELECT * FROM unnest(${prices.map((p) => p.time)}::timestamptz[], ${prices.map((p) => p.blockHeight)}::bigint[],
                             ${prices.map((p) => p.txIndex)}::integer[], ${prices.map((p) => p.eventIndex)}::integer[],
                             ${prices.map((p) => p.usdMicro)}::numeric[])
        ON CONFLICT DO NOTHING`,
  );
}

/**
 * The prices in effect from `from` to `to`: the last one set before `from` (when any) and
 * every one set up to `to`, in chain order.
 */
export function nativeUsdPrices(db: Queryable, from: Date, to: Date): Promise<{ time: Date; usd_micro: string }[]> {
  return db.query<{ time: Date; usd_micro: string }>(
    sql`(SELECT time, usd_micro::text AS usd_micro, block_height, tx_index, event_index FROM native_usd_prices
         WHERE time < ${from} ORDER BY time DESC, block_height DESC, tx_index DESC, event_index DESC LIMIT 1)
        UNION ALL
        (SELECT time, usd_micro::text, block_height, tx_index, event_index FROM native_usd_prices
         WHERE time >= ${from} AND time <= ${to})
        ORDER BY time, block_height, tx_index, event_index`,
  );
}
