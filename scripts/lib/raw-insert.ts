// The baselines of the write benchmarks, into hypertables identical to trades (same
// columns, constraints and indexes) without continuous aggregates:
// - the ceiling: db.copyIn of the very rows writeTrades builds (TRADE_COLUMNS, tradeRow),
//   without ignoreDuplicates: one binary COPY straight into the table, on either database;
// - one INSERT … SELECT FROM unnest(…) of 18 typed JS arrays, as a hand-written insert sends.
import type { Database, Queryable } from '../../src/db/types.ts';
import type { Trade } from '../../src/domain/events.ts';
import { TRADE_COLUMNS, tradeRow } from '../../src/indexer/trades.ts';
import { randomTrades } from '../../test/helpers/trades.ts';

/** The COPY ceiling's table. */
const RAW_COPY_TABLE = 'bench_raw_trades';
/** The unnest baseline's table (the same rows cannot go into one table twice). */
const RAW_UNNEST_TABLE = 'bench_raw_trades_unnest';

/** Creates (afresh) both baseline tables, each identical to trades. */
export async function createRawTradesTables(db: Database): Promise<void> {
  for (const table of [RAW_COPY_TABLE, RAW_UNNEST_TABLE]) {
    await db.exec(`
      DROP TABLE IF EXISTS ${table};
      CREATE TABLE ${table} (LIKE trades INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING GENERATED INCLUDING INDEXES);
      SELECT create_hypertable('${table}', by_range('time', INTERVAL '1 day'));
    `);
  }
}

/** The ceiling: the rows writeTrades would send, bulk-loaded by db.copyIn into bench_raw_trades. */
async function rawCopyTrades(db: Queryable, rows: readonly Trade[]): Promise<number> {
  return db.copyIn(RAW_COPY_TABLE, TRADE_COLUMNS, rows.map(tradeRow));
}

async function rawInsertTrades(db: Queryable, rows: readonly Trade[]): Promise<number> {
  const col = <T>(f: (t: Trade) => T) => rows.map(f);
  const [stored] = await db.query<{ n: number }>(
    `WITH stored AS (INSERT INTO ${RAW_UNNEST_TABLE} (time, block_height, tx_index, event_index, msg_index, tx_hash, source, action, direction,
       token_address, price_unative, volume_unative, volume_token, fee_unative, trader, input_amount, output_amount, native_reserves)
     SELECT time, block_height, tx_index, event_index, msg_index, decode(tx_hash, 'hex'), source, action, direction,
       token_address, price_unative, volume_unative, volume_token, fee_unative, trader, input_amount, output_amount, native_reserves
     FROM unnest($1::timestamptz[], $2::bigint[], $3::int[], $4::int[], $5::int[], $6::text[], $7::text[], $8::text[], $9::text[],
       $10::text[], $11::numeric[], $12::numeric[], $13::numeric[], $14::numeric[], $15::text[], $16::numeric[], $17::numeric[], $18::numeric[])
       AS u(time, block_height, tx_index, event_index, msg_index, tx_hash, source, action, direction,
         token_address, price_unative, volume_unative, volume_token, fee_unative, trader, input_amount, output_amount, native_reserves)
     RETURNING 1)
     SELECT count(*)::int AS n FROM stored`,
    [
      col((t) => t.time.toISOString()),
      col((t) => t.blockHeight),
      col((t) => t.txIndex),
      col((t) => t.eventIndex),
      col((t) => t.msgIndex),
      col((t) => t.txHash), // hex, decoded as the indexer's rows store it
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
  return Number(stored!.n);
}

/** Both baselines' writes by name, each resolving to the rows it stored. */
export const rawWrites = (db: Queryable) => ({
  copy: (rows: readonly Trade[]) => rawCopyTrades(db, rows),
  unnest: (rows: readonly Trade[]) => rawInsertTrades(db, rows),
});

/**
 * What a table of trades holds, to show that paths stored the very same rows: the count,
 * and sums of the ordering key and of the amounts (as text: exact).
 */
export async function tradesFingerprint(db: Queryable, table: string): Promise<string> {
  const [row] = await db.query<{ n: string; seq: string; volume: string; price: string }>(
    `SELECT count(*)::text AS n, coalesce(sum(seq), 0)::text AS seq, coalesce(sum(volume_unative), 0)::text AS volume,
            coalesce(sum(price_unative), 0)::text AS price FROM ${table}`,
  );
  return `${row!.n} rows, Σseq ${row!.seq}, Σvolume ${row!.volume}, Σprice ${row!.price}`;
}

/** The fingerprints of trades, then of the COPY ceiling's table, then of the unnest baseline's. */
export const storedFingerprints = (db: Queryable): Promise<string[]> =>
  Promise.all(['trades', RAW_COPY_TABLE, RAW_UNNEST_TABLE].map((table) => tradesFingerprint(db, table)));

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
