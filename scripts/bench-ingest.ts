// `npm run bench:ingest [-- --trades N --rounds R]`: rows/s of the same trades through
// three paths, measured in the same run on the same database, their order rotated each
// round so each path goes first in turn:
// - project: insertTrades into the trades hypertable with its 4 continuous aggregates
//   (db.copyIn with ignoreDuplicates: on the embedded database a binary COPY into a
//   staging table, then INSERT … ON CONFLICT DO NOTHING into trades);
// - the ceiling: db.copyIn of the very same rows (TRADE_COLUMNS, tradeRow) into an
//   identical hypertable without aggregates, without ignoreDuplicates (embedded: one
//   binary COPY straight into the table);
// - unnest: one INSERT … SELECT FROM unnest(…) of 18 JS arrays into another identical table.
// Rates are total rows over total time of a path; the ratios are of those rates.
// Uses DATABASE_URL when set, otherwise an embedded TimescaleDB in a temporary directory.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { openDatabase } from '../src/db/index.ts';
import { migrate } from '../src/db/migrate.ts';
import type { Trade } from '../src/domain/events.ts';
import { insertTrades } from '../src/indexer/trades.ts';
import { loadBenchConfig } from './lib/bench-config.ts';
import { createRawTradesTables, ingestRounds, rawWrites, storedFingerprints } from './lib/raw-insert.ts';
import { fmt, measured, ratio, rotation, tally, timed } from './lib/report.ts';

const { values } = parseArgs({
  options: { trades: { type: 'string', default: '200000' }, rounds: { type: 'string', default: '3' } },
});
const total = Number(values.trades);
const rounds = Number(values.rounds);

const { databaseUrl } = loadBenchConfig();
const dataDir = databaseUrl ? '' : mkdtempSync(path.join(tmpdir(), 'bench-ingest-'));
const db = await openDatabase({ databaseUrl, dataDir });
try {
  await migrate(db);
  await createRawTradesTables(db);
  const raw = rawWrites(db);
  const paths = {
    project: { tally: tally('project'), write: (rows: readonly Trade[]) => insertTrades(db, rows) },
    copy: { tally: tally('copy'), write: raw.copy },
    unnest: { tally: tally('unnest'), write: raw.unnest },
  };
  const where = db.kind === 'embedded' ? 'embedded TimescaleDB (on disk)' : 'TimescaleDB server';
  console.log(`bench:ingest  ${fmt(total)} trades in ${rounds} rounds, 1000 tokens over 90 days, on ${where}`);
  const slices = ingestRounds(total, rounds);
  for (let r = 0; r < rounds; r++) {
    const rows = slices[r]!;
    for (const name of rotation(['project', 'copy', 'unnest'] as const, r)) {
      const target = paths[name];
      const { seconds, value: stored } = await timed(() => target.write(rows));
      if (stored !== rows.length) throw new Error(`${name} stored ${stored} of ${rows.length} rows`);
      const rate = target.tally.add(rows.length, seconds);
      console.log(
        `  round ${r + 1}  ${name.padEnd(7)}  ${fmt(rows.length)} rows in ${fmt(seconds, 2)} s  ${fmt(rate)} rows/s`,
      );
    }
  }
  // the three tables hold the very same rows
  const prints = await storedFingerprints(db);
  if (new Set(prints).size !== 1) throw new Error(`the paths stored different rows: ${prints.join(' | ')}`);
  console.log(`  all three tables hold the same rows: ${prints[0]}`);
  const copyLabel = 'raw binary COPY into an identical table (db.copyIn, no ON CONFLICT)';
  console.log(
    `project write path (insertTrades, hypertable + 4 continuous aggregates): ${paths.project.tally.describe('rows')}`,
  );
  console.log(`${copyLabel}: ${paths.copy.tally.describe('rows')}`);
  console.log(
    `raw INSERT … SELECT FROM unnest of 18 arrays into an identical table: ${paths.unnest.tally.describe('rows')}`,
  );
  console.log(
    `ratio project/COPY ceiling: ${ratio(paths.project.tally, paths.copy.tally)}; project/unnest: ${ratio(paths.project.tally, paths.unnest.tally)} (target >= 0.5)`,
  );
  measured(
    `the same ${fmt(paths.copy.tally.units())} trades (${rounds} time-ordered 30-day slices) written once by each path on ${where}, order rotated per round; rates = total rows / total seconds per path`,
  );
} finally {
  await db.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
}
