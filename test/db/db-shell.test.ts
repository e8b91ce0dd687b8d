// npm run db:shell: psql on the embedded database while the service is stopped. psql prints
// exactly what POST /api/sql answered for the same data; \copy in and out work; a message
// too large for the embedded build is refused with an error and the session goes on; and
// the data directory is one process's at a time, with a clear message either way.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createEmbeddedDatabase } from '../../src/db/embedded.ts';
import { migrate } from '../../src/db/migrate.ts';
import { DatabaseError } from '../../src/db/types.ts';
import { insertTrades } from '../../src/indexer/trades.ts';
import { startApi } from '../helpers/launchpad-api.ts';
import { psqlRows } from '../helpers/psql.ts';
import { makeTrade, rng } from '../helpers/trades.ts';
import { waitFor } from '../helpers/wait.ts';

const test = suite('npm run db:shell');
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const ctx = {} as { dir: string; shell?: ChildProcess; url: string; output: string; answers: Map<string, unknown> };

const QUERIES = [
  'SELECT * FROM trades ORDER BY seq',
  'SELECT * FROM tokens ORDER BY address',
  'SELECT * FROM daily_volume ORDER BY day, token_address',
  `SELECT 1.0 / 3 AS third, 0.1::float8 + 0.2::float8 AS f, interval '1 day 2 hours' AS i, ARRAY[true, false] AS a, NULL::text AS n, '{"a": [1, 2.50]}'::jsonb AS j`,
];

function psql(args: string[], input = ''): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(
      'psql',
      [ctx.url, '-X', ...args],
      { maxBuffer: 1 << 28, timeout: 60_000 },
      (error, stdout, stderr) =>
        resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
    child.stdin!.end(input);
  });
}

const startShell = (dir: string) =>
  spawn(process.execPath, ['--import', 'tsx', 'scripts/db-shell.ts', '--port', '0'], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dir, DATABASE_URL: '' },
  });

test.before(async () => {
  try {
    await setUp();
  } catch (error) {
    console.error('Setting up the db:shell tests failed:', error);
    throw error;
  }
});

async function setUp() {
  ctx.dir = mkdtempSync('/tmp/db-shell-test-');
  const db = await createEmbeddedDatabase({ dataDir: ctx.dir });
  await migrate(db);
  await db.query(
    `INSERT INTO tokens (address, name, symbol, source, graduated, created_at) VALUES
       ('native1shella', 'Shell A', 'SHA', 'launchpad', false, '2026-01-01T00:00:00Z'),
       ('native1shellb', 'Shell "B"', 'SHB', 'amm', true, NULL)`,
  );
  const r = rng(3);
  await insertTrades(
    db,
    Array.from({ length: 40 }, (_, i) =>
      makeTrade(
        {
          time: new Date(Date.UTC(2026, 0, 1 + (i % 3), i % 24, i, 7) + (i % 4) * 123),
          blockHeight: 100 + i,
          tokenAddress: i % 2 ? 'native1shella' : 'native1shellb',
        },
        BigInt(r.int(1_000, 9_000_000_000_000)),
        BigInt(r.int(1_000, 9_000_000_000)),
      ),
    ),
  );
  // POST /api/sql's answers for the same data, while the service has the directory
  const api = await startApi(db, {
    sql: { mode: 'loopback', maxRows: 1000, rateLimit: 1000, timeoutMs: 5000, maxCost: 250_000 },
  });
  ctx.answers = new Map();
  for (const sql of QUERIES) {
    const res = await fetch(`${api.url}/api/sql`, { method: 'POST', body: JSON.stringify({ sql }) });
    const body = (await res.json()) as { rows: unknown };
    assert.is(res.status, 200, JSON.stringify(body));
    ctx.answers.set(sql, body.rows);
  }
  // while it has the directory, db:shell refuses to open it
  const refused = startShell(ctx.dir);
  let said = '';
  refused.stderr!.on('data', (d) => {
    said += d;
  });
  const code = await new Promise<number | null>((resolve) => refused.on('exit', resolve));
  assert.is(code, 1);
  assert.match(said, /is in use by process \d+[\s\S]*db:shell opens DATA_DIR only while the service is stopped/);
  await api.close();
  await db.close();

  ctx.shell = startShell(ctx.dir);
  ctx.output = '';
  ctx.shell.stdout!.on('data', (d) => {
    ctx.output += d;
  });
  ctx.shell.stderr!.on('data', (d) => {
    ctx.output += d;
  });
  assert.ok(
    await waitFor(() => /psql '(postgres:\/\/[^']+)'/.test(ctx.output), 60_000),
    `db:shell printed where psql connects: ${ctx.output}`,
  );
  ctx.url = /psql '(postgres:\/\/[^']+)'/.exec(ctx.output)![1]!;
}

test.after(async () => {
  ctx.shell?.kill('SIGINT');
  if (ctx.shell && ctx.shell.exitCode === null) await new Promise((resolve) => ctx.shell!.on('exit', resolve));
});

test('psql prints exactly what POST /api/sql answered', async () => {
  for (const sql of QUERIES) {
    const rows = await psqlRows(ctx.url, sql);
    assert.ok(rows.length > 0, sql);
    assert.equal(rows, ctx.answers.get(sql), sql);
  }
});

test('\\copy in and out, a query past the message limit refused, and the session goes on', async () => {
  const lines = Array.from({ length: 50_000 }, (_, i) => `${i}\trow ${i} "quoted", tab-free`);
  const script = [
    'CREATE TABLE shell_copy (n int, t text);',
    '\\copy shell_copy from stdin',
    ...lines,
    '\\.',
    'SELECT count(*), sum(n) FROM shell_copy;',
    `SELECT '${'z'.repeat(1_100_000)}' IS NOT NULL;`,
    'SELECT 7 AS still_here;',
    '\\copy (SELECT n, t FROM shell_copy WHERE n < 3 ORDER BY n) to stdout with (format csv)',
  ].join('\n');
  const out = await psql(['-A', '-t'], `${script}\n`);
  assert.match(out.stdout, /^COPY 50000$/m);
  assert.match(out.stdout, /^50000\|1249975000$/m);
  assert.match(out.stderr, /ERROR: {2}a message of \d+ bytes is over this shell's limit of 1047552/);
  assert.match(out.stdout, /^7$/m);
  assert.match(out.stdout, /^0,"row 0 ""quoted"", tab-free"\n1,"row 1 ""quoted"", tab-free"\n2,/m);
});

test('while db:shell has the directory, the service cannot open it, and is told why', async () => {
  try {
    await createEmbeddedDatabase({ dataDir: ctx.dir });
    assert.unreachable('the directory was opened twice');
  } catch (error) {
    assert.instance(error, DatabaseError);
    assert.is((error as DatabaseError).code, 'DATA_DIR_LOCKED');
  }
});

test('Ctrl-C closes it and gives the directory back', async () => {
  ctx.shell!.kill('SIGINT');
  const code = await new Promise<number | null>((resolve) => ctx.shell!.on('exit', resolve));
  assert.is(code, 0);
  const db = await createEmbeddedDatabase({ dataDir: ctx.dir });
  const [row] = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM shell_copy');
  assert.is(row!.n, 50_000, 'what psql wrote is there');
  await db.close();
});

test.run();
