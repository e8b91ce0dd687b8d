// `npm run bench:ingest [-- --trades N]`: trades/s through the project's write path
// (insertTrades into the trades hypertable with its continuous aggregates) against one
// raw INSERT … SELECT FROM unnest(…) of the same rows into an identical hypertable
// without aggregates, measured in the same run on the same database.
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
import { createRawTradesTable, ingestRounds, rawInsertTrades } from './lib/raw-insert.ts';

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
  await createRawTradesTable(db);
  const rawInsert = (rows: readonly Trade[]) => rawInsertTrades(db, rows);

  const project: number[] = [];
  const raw: number[] = [];
  console.log(
    `bench:ingest  ${total} trades in ${rounds} rounds, 1000 tokens over 90 days, on ${db.kind === 'embedded' ? 'embedded TimescaleDB (on disk)' : 'TimescaleDB server'}`,
  );
  const slices = ingestRounds(total, rounds);
  for (let r = 0; r < rounds; r++) {
    const rows = slices[r]!;
    // alternate which goes first so neither always gets the warmer cache
    const order = r % 2 === 0 ? (['project', 'raw'] as const) : (['raw', 'project'] as const);
    for (const which of order) {
      const started = performance.now();
      if (which === 'project') {
        const n = await insertTrades(db, rows);
        if (n !== rows.length) throw new Error(`write path stored ${n} of ${rows.length}`);
      } else await rawInsert(rows);
      const rate = rows.length / ((performance.now() - started) / 1000);
      (which === 'project' ? project : raw).push(rate);
      console.log(`  round ${r + 1}  ${which.padEnd(7)}  ${rows.length} rows  ${Math.round(rate)} rows/s`);
    }
  }
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  const projectRate = sum(project) / project.length;
  const rawRate = sum(raw) / raw.length;
  console.log(
    `project write path (insertTrades, hypertable + 4 continuous aggregates): ${Math.round(projectRate)} rows/s`,
  );
  console.log(`raw INSERT … SELECT FROM unnest into an identical table:               ${Math.round(rawRate)} rows/s`);
  console.log(`ratio project/raw: ${(projectRate / rawRate).toFixed(2)} (target >= 0.5)`);
} finally {
  await db.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
}
