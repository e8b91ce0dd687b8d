// The baseline of the write benchmarks: one raw INSERT … SELECT FROM unnest(…) into a
// hypertable identical to trades (same columns, constraints and indexes) without aggregates.
import type { Database } from '../../src/db/types.ts';
import type { Trade } from '../../src/domain/events.ts';
import { randomTrades } from '../../test/helpers/trades.ts';

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
      col((t) => t.time.toISOString()),
      col((t) => t.blockHeight),
      col((t) => t.txIndex),
      col((t) => t.eventIndex),
      col((t) => t.msgIndex),
      col((t) => t.txHash),
      col((t) => t.source),
      col((t) => t.action),
      col((t) => t.direction),
      col((t) => t.tokenAddress),
      col((t) => `${t.priceUnative}`),
      col((t) => `${t.volumeUnative}`),
      col((t) => `${t.volumeToken}`),
      col((t) => `${t.feeUnative}`),
      col((t) => t.trader),
      col((t) => `${t.inputAmount}`),
      col((t) => `${t.outputAmount}`),
      col((t) => `${t.nativeReserves}`),
    ],
  );
}

/**
 * bench:ingest's rows: `total` trades of 1000 tokens over the last 90 days in `rounds`
 * later and later 30-day slices (as an indexer moving forward writes them), time-ordered.
 */
export function ingestRounds(total: number, rounds: number, now = Date.now()): Trade[][] {
  const tokens = Array.from({ length: 1000 }, (_, i) => `native1benchtoken${String(i).padStart(4, '0')}`);
  const perRound = Math.ceil(total / rounds);
  return Array.from({ length: rounds }, (_, r) => {
    const from = new Date(now - (90 - r * (90 / rounds)) * 86_400_000);
    const to = new Date(from.getTime() + (90 / rounds) * 86_400_000);
    const rows = randomTrades({
      seed: 100 + r,
      from,
      to,
      tokens,
      blocks: Math.ceil(perRound / 3.5),
      startHeight: 1 + r * 1_000_000,
    }).slice(0, perRound);
    return rows.sort((a, b) => a.time.getTime() - b.time.getTime());
  });
}
