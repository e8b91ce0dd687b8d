// The baseline of the write benchmarks: one raw INSERT … SELECT FROM unnest(…) into a
// hypertable identical to trades (same columns, constraints and indexes) without aggregates.
import type { Database } from '../../src/db/types.ts';
import type { Trade } from '../../src/indexer/trades.ts';

export async function createRawTradesTable(db: Database): Promise<void> {
  await db.exec(`
    DROP TABLE IF EXISTS bench_raw_trades;
    CREATE TABLE bench_raw_trades (LIKE trades INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING GENERATED INCLUDING INDEXES);
    SELECT create_hypertable('bench_raw_trades', by_range('time', INTERVAL '1 day'));
  `);
}

export async function rawInsertTrades(db: Database, rows: readonly Trade[]): Promise<void> {
  const col = <T>(f: (t: Trade) => T) => rows.map(f);
  await db.query(
    `INSERT INTO bench_raw_trades (time, block_height, tx_index, event_index, msg_index, tx_hash, source, action, direction,
       token_address, price_unative, volume_unative, volume_token, fee_unative, trader, input_amount, output_amount, native_reserves)
     SELECT * FROM unnest($1::timestamptz[], $2::bigint[], $3::int[], $4::int[], $5::int[], $6::text[], $7::text[], $8::text[], $9::text[],
       $10::text[], $11::numeric[], $12::numeric[], $13::numeric[], $14::numeric[], $15::text[], $16::numeric[], $17::numeric[], $18::numeric[])`,
    [
      col((t) => t.time.toISOString()), col((t) => t.blockHeight), col((t) => t.txIndex), col((t) => t.eventIndex), col((t) => t.msgIndex),
      col((t) => t.txHash), col((t) => t.source), col((t) => t.action), col((t) => t.direction), col((t) => t.tokenAddress),
      col((t) => `${t.priceUnative}`), col((t) => `${t.volumeUnative}`), col((t) => `${t.volumeToken}`), col((t) => `${t.feeUnative}`),
      col((t) => t.trader), col((t) => `${t.inputAmount}`), col((t) => `${t.outputAmount}`), col((t) => `${t.nativeReserves}`),
    ],
  );
}
