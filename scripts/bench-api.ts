// `npm run bench:api [-- --trades N --tokens N --duration S --subscribers N --fresh --prepare --http-only
//                       --accept-encoding E]`
//
// (1) HTTP: req/s and p99 of the Launchpad API's hot routes against a Polka hello-world
//     route served by the same kind of process, loaded by autocannon in the same run;
//     printed as ratios (targets: tokens/:address >= 0.25, trades/recent >= 0.15,
//     candles 1m limit 1000 >= 0.10). Per route, runs read-only (after warm-up the
//     answers come from the response cache) alternate with runs under live writes: a
//     block a second of --write-rate trades (default 50) through the indexer's write path
//     (writeBatch in one transaction: trades, tokens, feed outbox and NOTIFY), so the
//     cache is invalidated as in production. req/s are total requests over total time.
// (2) Candles through the continuous aggregates vs the same candles by GROUP BY
//     time_bucket over raw trades, per timeframe (target >= 20x).
// (3) SSE fan-out: N idle subscribers on one API process; time from the NOTIFY's commit
//     to the last subscriber receiving the event (p50/p99 over several events), and
//     memory per subscriber.
// `--http-only` measures (1) alone.
//
// Data: 1k tokens with 90 days of trades (default 10M, about 110k a day: the scale the
// aggregates exist for; at 1M the busiest token has about one trade a minute and 1m
// candles have nothing to aggregate), token activity Zipf-distributed (a few tokens
// carry most trades, as on a real launchpad); HTTP requests pick tokens with the same
// popularity; the chunks a week old are in the columnstore, as the service's hourly upkeep
// leaves them. The first run prepares the data (~15 min, ~11 GB for 10M; `--prepare` only that); later runs
// reuse it; `--trades 1000000` is a quicker run. Uses DATABASE_URL when set, otherwise
// an embedded TimescaleDB kept in the system temp directory.
import { existsSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { TIMEFRAMES } from '../src/api/launchpad/routes/candles.ts';
import { openDatabase } from '../src/db/index.ts';
import { runJobs } from '../src/db/jobs.ts';
import { migrate } from '../src/db/migrate.ts';
import type { Database } from '../src/db/types.ts';
import type { Trade } from '../src/domain/events.ts';
import { insertTrades } from '../src/indexer/trades.ts';
import { makeTrade, rng } from '../test/helpers/trades.ts';
import { type BenchChild, startBenchChild } from './lib/bench-child.ts';
import { loadBenchConfig } from './lib/bench-config.ts';
import { benchTokenAddress, LIVE_TRADER, type LiveWriterStats, zipf } from './lib/live-writer.ts';
import { type Load, warmLoad } from './lib/load.ts';
import { measured, spread } from './lib/report.ts';
import { median, percentile } from './lib/stats.ts';

const { values } = parseArgs({
  options: {
    trades: { type: 'string', default: '10000000' },
    tokens: { type: 'string', default: '1000' },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '32' },
    subscribers: { type: 'string', default: '10000' },
    events: { type: 'string', default: '20' },
    fresh: { type: 'boolean', default: false },
    prepare: { type: 'boolean', default: false },
    'write-rate': { type: 'string', default: '50' },
    'http-only': { type: 'boolean', default: false },
    'accept-encoding': { type: 'string', default: '' },
  },
});
const TRADES = Number(values.trades);
const TOKENS = Number(values.tokens);
const DURATION = Number(values.duration);
const CONNECTIONS = Number(values.connections);
const SUBSCRIBERS = Number(values.subscribers);
const EVENTS = Number(values.events);
const WRITE_RATE = Number(values['write-rate']);
/** Sent with every request of the HTTP load when set (`gzip, deflate, br` is what browsers send); none by default. */
const ACCEPT_ENCODING = values['accept-encoding'];
const DAY = 86_400_000;

const tokens = Array.from({ length: TOKENS }, (_, i) => benchTokenAddress(i));

const fmt = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

async function prepare(db: Database): Promise<void> {
  await migrate(db);
  // trades written by earlier runs' load under writes are told apart by their trader
  const [{ n, live }] = (await db.query<{ n: number; live: number }>(
    `SELECT count(*) FILTER (WHERE trader <> $1)::bigint AS n, count(*) FILTER (WHERE trader = $1)::bigint AS live FROM trades`,
    [LIVE_TRADER],
  )) as [{ n: number; live: number }];
  const [{ t }] = (await db.query<{ t: number }>(`SELECT count(*)::int AS t FROM tokens`)) as [{ t: number }];
  if (Number(n) === TRADES && t === TOKENS) {
    console.log(
      `  reusing ${fmt(TRADES)} trades of ${fmt(TOKENS)} tokens${Number(live) > 0 ? ` (and ${fmt(Number(live))} written live by earlier runs)` : ''}`,
    );
    await storeTokenStates(db, { reused: true });
    await indexBlocks(db);
    return;
  }
  if (Number(n) !== 0) throw new Error('the bench database holds other data; run with --fresh');
  const started = performance.now();
  const now = Date.now();
  await db.query(
    `INSERT INTO tokens (address, name, symbol, source, creator, first_seen_at, created_at, native_reserves, current_price, metadata_fetched)
     SELECT a, 'Bench ' || i, 'B' || i, 'launchpad', $2, $3::timestamptz - (i || ' minutes')::interval, $3::timestamptz - (i || ' minutes')::interval, 1000000000, 1000, true
     FROM unnest($1::text[]) WITH ORDINALITY AS u(a, i)`,
    [tokens, tokens[0], new Date(now - 90 * DAY)],
  );
  const r = rng(42);
  const pick = zipf(TOKENS, r.next);
  const CHUNK = 100_000;
  const from = now - 90 * DAY;
  const step = (90 * DAY - 60_000) / TRADES; // trades spread evenly in time, several per block
  let height = 1;
  for (let done = 0; done < TRADES; done += CHUNK) {
    const rows: Trade[] = [];
    const end = Math.min(TRADES, done + CHUNK);
    for (let i = done; i < end; ) {
      const time = new Date(Math.floor(from + i * step));
      const perBlock = Math.min(r.int(1, 6), end - i); // a block may end a chunk early, never overrun it
      for (let k = 0; k < perBlock; k++, i++) {
        rows.push(
          makeTrade(
            { time, blockHeight: height, txIndex: k, eventIndex: 0, tokenAddress: tokens[pick()]! },
            BigInt(r.int(1_000, 5_000_000_000)),
            BigInt(r.int(1_000, 9_000_000_000)),
          ),
        );
      }
      height++;
    }
    await insertTrades(db, rows);
    process.stdout.write(`\r  inserted ${fmt(done + rows.length)} / ${fmt(TRADES)} trades`);
  }
  process.stdout.write('\n');
  await storeTokenStates(db, { reused: false });
  // the indexer's cursor tells the refresh job how far the data goes
  await db.query(
    `INSERT INTO indexer_state (chain_id, first_height, first_block_hash, last_height, last_block_hash, last_block_time)
     VALUES ('bench', 1, 'BENCH', $1, 'BENCH', $2)`,
    [height, new Date(now)],
  );
  await indexBlocks(db);
  const refreshStarted = performance.now();
  await runJobs(db, 'refresh');
  console.log(
    `  prepared in ${fmt((performance.now() - started) / 1000, 1)} s (first refresh of the aggregates ${fmt((performance.now() - refreshStarted) / 1000, 1)} s)`,
  );
}

/**
 * Each token's last trade, as the indexer stores it with the trade: its time and its chain
 * order (the API's windows of the last day are read up to the chain order the tokens show).
 */
async function storeTokenStates(db: Database, { reused }: { reused: boolean }): Promise<void> {
  // data prepared before the chain order was stored has the last trade's time without it
  const [{ missing }] = (await db.query<{ missing: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM tokens WHERE price_seq = 0 AND last_trade_at IS NOT NULL) AS missing`,
  )) as [{ missing: boolean }];
  if (reused && !missing) return;
  await db.query(
    `UPDATE tokens t SET last_trade_at = m.at, price_seq = m.seq, state_seq = m.seq
     FROM (SELECT token_address, max(time) AS at, max(seq) AS seq FROM trades WHERE trader <> $1 GROUP BY 1) m
     WHERE m.token_address = t.address AND t.price_seq = 0`,
    [LIVE_TRADER],
  );
}

/**
 * The market data the token routes read besides trades (kept in the same data directory,
 * added to one prepared before them): every token's total supply, and its holders' CW20
 * balances, from 2,000 holders for the most popular token down to 10 (Zipf, as trades).
 */
async function prepareMarketData(db: Database): Promise<void> {
  const [{ n }] = (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM cw20_balances`)) as [{ n: number }];
  if (n > 0) return;
  const started = performance.now();
  await db.query(`UPDATE tokens SET total_supply = 1000000000000000`);
  const r = rng(11);
  let rows = 0;
  for (let from = 0; from < TOKENS; from += 500) {
    const holders: string[] = [];
    const owned: string[] = [];
    const balances: string[] = [];
    for (let i = from; i < Math.min(TOKENS, from + 500); i++) {
      const count = Math.max(10, Math.floor(2000 / (i + 1)));
      for (let k = 0; k < count; k++) {
        holders.push(benchTokenAddress(1_000_000 + k)); // holders shared across tokens, as wallets are
        owned.push(tokens[i]!);
        balances.push(String(r.int(1, 1_000_000) * 1_000_000));
      }
    }
    await db.query(
      `INSERT INTO cw20_balances (holder, token, balance) SELECT * FROM unnest($1::text[], $2::text[], $3::numeric[]) ON CONFLICT DO NOTHING`,
      [holders, owned, balances],
    );
    rows += holders.length;
  }
  console.log(
    `  market data: total supply and ${fmt(rows)} CW20 balances in ${fmt((performance.now() - started) / 1000, 1)} s`,
  );
}

/**
 * For the busiest tokens (at least 100 pages of 50 trades), the position of their 5,000th
 * newest trade: `before` it asks for the page 100 pages deep into their history.
 */
async function deepPositions(db: Database): Promise<string[]> {
  const busy = await db.query<{ token_address: string }>(
    `SELECT token_address FROM trades GROUP BY 1 HAVING count(*) > 5050 ORDER BY count(*) DESC LIMIT 200`,
  );
  const out: string[] = [];
  for (const { token_address } of busy) {
    const [row] = await db.query<{ p: string }>(
      `SELECT block_height || '-' || tx_index || '-' || event_index AS p FROM trades WHERE token_address = $1
       ORDER BY time DESC, seq DESC OFFSET 4999 LIMIT 1`,
      [token_address],
    );
    if (row) out.push(`${token_address}&before=${row.p}`);
  }
  return out;
}

/**
 * The blocks of the prepared trades, as the indexer stores a block with its trades (the trades
 * routes read a `before` position's block time from them). Their bodies are empty: no route
 * measured here serves a block.
 */
async function indexBlocks(db: Database): Promise<void> {
  const [{ missing }] = (await db.query<{ missing: boolean }>(
    `SELECT NOT EXISTS (SELECT 1 FROM blocks WHERE height = 1) AS missing`,
  )) as [{ missing: boolean }];
  if (!missing) return;
  const started = performance.now();
  const [{ n }] = (await db.query<{ n: number }>(
    `WITH added AS (
       INSERT INTO blocks (height, hash, time, time_rfc3339, chain_id, proposer, tx_count, block)
       SELECT block_height, upper(md5(block_height::text) || md5('bench' || block_height)), min(time),
              to_char(min(time) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'), 'bench', 'BENCH', count(*), '{}'::jsonb
       FROM trades WHERE trader <> $1 GROUP BY block_height
       ON CONFLICT DO NOTHING RETURNING 1)
     SELECT count(*)::int AS n FROM added`,
    [LIVE_TRADER],
  )) as [{ n: number }];
  console.log(`  blocks of the prepared trades: ${fmt(n)} in ${fmt((performance.now() - started) / 1000, 1)} s`);
}

async function caggVersusRaw(db: Database): Promise<void> {
  console.log(
    '\n(2) 1000 candles of one token over 90 days: continuous aggregate vs GROUP BY time_bucket over raw trades (5 warm runs each, after one untimed; ratio = total raw time / total aggregate time)',
  );
  console.log(
    '    round trip: the query as the API sends it, rows back in the process; in the database: planning + execution (EXPLAIN ANALYZE, no per-node timing)',
  );
  const counts = await db.query<{ token_address: string; n: number }>(
    `SELECT token_address, count(*)::int AS n FROM trades GROUP BY 1 ORDER BY 2 DESC`,
  );
  const picks = [
    ['most traded token', counts[0]!],
    ['median token', counts[Math.floor(counts.length / 2)]!],
  ] as const;
  const from = new Date(Date.now() - 90 * DAY);
  const runsOf = async (run: () => Promise<number>) => {
    await run();
    const runs: number[] = [];
    for (let i = 0; i < 5; i++) runs.push(await run());
    return runs;
  };
  const roundTrip = (sql: string, params: unknown[]) =>
    runsOf(async () => {
      const started = performance.now();
      await db.query(sql, params);
      return performance.now() - started;
    });
  const inDatabase = (sql: string, params: unknown[]) =>
    runsOf(async () => {
      const [row] = await db.query<{ 'QUERY PLAN': [{ 'Planning Time': number; 'Execution Time': number }] }>(
        `EXPLAIN (ANALYZE, TIMING OFF, FORMAT JSON) ${sql}`,
        params,
      );
      const [plan] = row!['QUERY PLAN'];
      return plan['Planning Time'] + plan['Execution Time'];
    });
  for (const [label, { token_address, n }] of picks) {
    console.log(`  ${label} (${fmt(n)} trades)`);
    for (const [tf, { view, ms }] of Object.entries(TIMEFRAMES)) {
      const aggregate = `SELECT bucket, open::text, high::text, low::text, close::text, volume::text, trade_count FROM ${view}
         WHERE token_address = $1 AND bucket >= $2 ORDER BY bucket DESC LIMIT 1000`;
      const raw = `SELECT time_bucket(INTERVAL '${ms / 1000} seconds', time) AS bucket, first(price_unative, seq)::text AS open, max(price_unative)::text AS high,
                min(price_unative)::text AS low, last(price_unative, seq)::text AS close, sum(volume_unative)::text AS volume, count(*) AS trade_count
         FROM trades WHERE token_address = $1 AND time >= $2 GROUP BY 1 ORDER BY 1 DESC LIMIT 1000`;
      const params = [token_address, from];
      const [a, r] = [await roundTrip(aggregate, params), await roundTrip(raw, params)];
      const [ad, rd] = [await inDatabase(aggregate, params), await inDatabase(raw, params)];
      const sum = (xs: number[]) => xs.reduce((x, y) => x + y, 0);
      const times = (xs: number[]) => spread(xs, (v) => fmt(v, 2));
      console.log(
        `    ${tf.padEnd(3)} round trip: ${fmt(sum(r) / sum(a), 1).padStart(5)}x (aggregate ${times(a)} ms; raw ${times(r)} ms)`,
      );
      console.log(
        `        in the database: ${fmt(sum(rd) / sum(ad), 1).padStart(5)}x (aggregate ${times(ad)} ms; raw ${times(rd)} ms)   (target >= 20x)`,
      );
    }
  }
}

type ServerProcess = BenchChild & { api: string; hello: string };

const startServer = (config: { databaseUrl?: string; dataDir: string; tokens: number }) =>
  startBenchChild<{ api: string; hello: string }>(new URL('./lib/api-bench-server.ts', import.meta.url), config, {
    name: 'the API bench server',
    nodeOptions: ['--expose-gc'],
  });

async function load(title: string, url: string, paths: () => string): Promise<Load> {
  const requests = ACCEPT_ENCODING ? () => ({ path: paths(), headers: { 'Accept-Encoding': ACCEPT_ENCODING } }) : paths;
  const m = await warmLoad(url, requests, { connections: CONNECTIONS, duration: DURATION });
  if (m.non2xx > 0) console.log(`    (${title}: ${m.non2xx} non-2xx responses or errors)`);
  return m;
}

const loadLine = (m: Load) =>
  `${fmt(m.rps).padStart(7)} req/s  p99 ${fmt(m.p99, 1).padStart(6)} ms  (per second: min ${fmt(m.perSecond.min)} / median ${fmt(m.perSecond.median)} / max ${fmt(m.perSecond.max)})`;

/**
 * A server that has been running has answered for most tokens already: one request per
 * token first (8 at a time), which also measures what an uncached answer costs.
 */
async function coldPass(origin: string, name: string, paths: () => string) {
  const path = paths();
  const template = path.replace(/native1[0-9a-z]{58}/, '{t}');
  const queue = template.includes('{t}') ? [...tokens] : [''];
  const asked = queue.length;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      for (let t = queue.pop(); t; t = queue.pop())
        await (await fetch(origin + template.replace('{t}', t))).arrayBuffer();
    }),
  );
  const ms = performance.now() - started;
  console.log(
    `  ${name.padEnd(41)} ${asked === 1 ? 'first answer' : `first answer for each of ${fmt(asked)} tokens`}: ${fmt(ms / 1000, 1)} s (${fmt(ms / asked, 1)} ms each, 8 concurrent)`,
  );
}

/** Several runs as one: total requests over total time; the p99 of each run. */
function combined(runs: readonly Load[]) {
  const requests = runs.reduce((n, m) => n + m.requests, 0);
  const seconds = runs.reduce((n, m) => n + m.seconds, 0);
  return {
    rps: requests / seconds,
    text: `${fmt(requests / seconds).padStart(7)} req/s (${fmt(requests)} requests in ${fmt(seconds, 1)} s; p99 of each run ${runs.map((m) => fmt(m.p99)).join(' / ')} ms)`,
  };
}

async function httpLoad(server: ServerProcess, deep: readonly string[]): Promise<void> {
  console.log(
    `\n(1) HTTP load: autocannon, ${CONNECTIONS} connections, ${DURATION} s per run after a 2 s warm-up; per route 2 runs read-only and 2 under live writes, alternating; ${ACCEPT_ENCODING ? `requests say Accept-Encoding: ${ACCEPT_ENCODING}` : 'requests send no Accept-Encoding (answers as they are)'}`,
  );
  console.log(
    `    read-only: nothing is written (after the warm-up, answers come from the response cache); under live writes: a block a second of ${WRITE_RATE} trades through the indexer's write path (writeBatch in a transaction: chain index, tokens, trades, feed outbox + NOTIFY, which invalidates the cache) in the API process`,
  );
  const r = rng(7);
  const pick = zipf(TOKENS, r.next);
  const apiUrl = new URL(server.api);
  const helloRuns = [await load('hello', server.hello, () => '/hello')];
  console.log(`  Polka hello-world (before the routes)     ${loadLine(helloRuns[0]!)}`);
  const pickDeep = zipf(Math.max(1, deep.length), r.next);
  // a target below 1 is a ratio of hello-world; 'token' is 0.8 of /api/tokens/:address's ratio
  const routes: [string, number | 'token', () => string][] = [
    ['/api/tokens/:address', 0.25, () => `/api/tokens/${tokens[pick()]}`],
    ['/api/trades/recent?token_address=…', 0.15, () => `/api/trades/recent?token_address=${tokens[pick()]}`],
    ['/api/candles/:t?timeframe=1m&limit=1000', 0.1, () => `/api/candles/${tokens[pick()]}?timeframe=1m&limit=1000`],
    ['/api/tokens?sort=volume_24h&limit=50', 'token', () => '/api/tokens?sort=volume_24h&limit=50'],
    ['/api/tokens/:address/holders?limit=50', 'token', () => `/api/tokens/${tokens[pick()]}/holders?limit=50`],
  ];
  if (deep.length > 0)
    routes.push([
      '/api/trades/recent, 100 pages deep',
      'token',
      () => `/api/trades/recent?limit=50&token_address=${deep[pickDeep()]}`,
    ]);
  else console.log('  (no token has 100 pages of trades: the deep trades page is not measured)');
  const written: LiveWriterStats = { blocks: 0, trades: 0, seconds: 0, commitMs: [], late: 0 };
  const results: {
    name: string;
    target: number | 'token';
    readOnly: Load[];
    underWrites: Load[];
    bytes: number;
    fixed: Load;
  }[] = [];
  for (const [name, target, paths] of routes) {
    await coldPass(apiUrl.origin, name, paths);
    const readOnly: Load[] = [];
    const underWrites: Load[] = [];
    for (let round = 0; round < 2; round++) {
      for (const writes of round % 2 === 0 ? [false, true] : [true, false]) {
        if (writes) await server.send(`write-start ${WRITE_RATE} 1000`, 'write-started');
        const m = await load(name, apiUrl.origin, paths);
        if (writes) {
          const w = JSON.parse(await server.send('write-stop', 'write-stopped ')) as LiveWriterStats;
          written.blocks += w.blocks;
          written.trades += w.trades;
          written.seconds += w.seconds;
          written.late += w.late;
          written.commitMs.push(...w.commitMs);
        }
        (writes ? underWrites : readOnly).push(m);
        console.log(`  ${name.padEnd(41)} ${loadLine(m)}  ${writes ? 'under writes' : 'read-only'}`);
      }
    }
    // what answering that many bytes costs alone: a fixed body of the answers' mean size from the hello-world process
    const sizes = await Promise.all(
      Array.from({ length: 20 }, async () => (await (await fetch(apiUrl.origin + paths())).arrayBuffer()).byteLength),
    );
    const bytes = Math.round(sizes.reduce((a, b) => a + b, 0) / sizes.length);
    const fixed = await load('fixed body', new URL(server.hello).origin, () => `/bytes/${bytes}`);
    console.log(`  ${`a fixed ${fmt(bytes)}-byte body`.padEnd(41)} ${loadLine(fixed)}`);
    results.push({ name, target, readOnly, underWrites, bytes, fixed });
  }
  helloRuns.push(await load('hello', server.hello, () => '/hello'));
  console.log(`  Polka hello-world (after the routes)      ${loadLine(helloRuns[1]!)}`);
  const hello = combined(helloRuns);
  console.log(`  Polka hello-world, both runs:              ${hello.text}`);
  const [token] = results;
  const tokenRo = combined(token!.readOnly).rps;
  const tokenUw = combined(token!.underWrites).rps;
  for (const { name, target, readOnly, underWrites, bytes, fixed } of results) {
    const ro = combined(readOnly);
    const uw = combined(underWrites);
    console.log(
      `  ${name}  (answers of ${fmt(bytes)} bytes on average; a fixed body of that size: ${fmt(fixed.rps)} req/s, ${fmt(fixed.rps / hello.rps, 2)} of hello-world; read-only ${fmt(ro.rps / fixed.rps, 2)} of it)`,
    );
    if (target === 'token') {
      console.log(
        `    read-only     ${ro.text}   ratio ${fmt(ro.rps / hello.rps, 2)} of hello-world, ${fmt(ro.rps / tokenRo, 2)} of /api/tokens/:address (target >= 0.8)`,
      );
      console.log(
        `    under writes  ${uw.text}   ratio ${fmt(uw.rps / hello.rps, 2)} of hello-world, ${fmt(uw.rps / tokenUw, 2)} of /api/tokens/:address under writes (target >= 0.8)`,
      );
      continue;
    }
    console.log(
      `    read-only     ${ro.text}   ratio ${fmt(ro.rps / hello.rps, 2)} of hello-world (target >= ${target})`,
    );
    console.log(
      `    under writes  ${uw.text}   ratio ${fmt(uw.rps / hello.rps, 2)} of hello-world, ${fmt(uw.rps / ro.rps, 2)} of read-only`,
    );
  }
  console.log(
    `  written during the runs under writes: ${fmt(written.trades)} trades in ${fmt(written.blocks)} blocks over ${fmt(written.seconds, 1)} s = ${fmt(written.trades / written.seconds, 1)} trades/s` +
      ` (${written.late} blocks late); a block's transaction p50 ${fmt(percentile(written.commitMs, 50), 1)} ms, p99 ${fmt(percentile(written.commitMs, 99), 1)} ms, max ${fmt(Math.max(...written.commitMs), 1)} ms`,
  );
  measured(
    `req/s = all requests of a route's runs (${DURATION} s each, ${CONNECTIONS} connections, Zipf-picked tokens, after a 2 s warm-up) / their total duration; hello-world = its runs before and after the routes, same process shape, same run; read-only and under-writes runs alternate; a fixed body: one run of the hello-world process answering a body made beforehand of the route's mean answer size (the most those bytes allow)`,
  );
}

async function sseFanOut(server: ServerProcess): Promise<void> {
  console.log(`\n(3) SSE fan-out: ${fmt(SUBSCRIBERS)} idle subscribers on one API process`);
  const { port, hostname } = new URL(server.api);
  await server.send('gc', 'gc done');
  const before = JSON.parse(await server.send('stats', 'stats '));
  const sockets: net.Socket[] = [];
  const received = new Map<number, number[]>(); // event id -> arrival times
  const now = () => performance.timeOrigin + performance.now();
  const connectOne = () =>
    new Promise<void>((resolve, reject) => {
      const socket = net.connect(Number(port), hostname, () => {
        socket.write(`GET /api/sse/feed HTTP/1.1\r\nHost: ${hostname}\r\nAccept: text/event-stream\r\n\r\n`);
      });
      let connected = false;
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => {
        if (!connected && chunk.includes(': connected')) {
          connected = true;
          resolve();
        }
        const at = now();
        for (const m of chunk.matchAll(/^id: (\d+)$/gm)) {
          const id = Number(m[1]);
          let times = received.get(id);
          if (!times) {
            times = [];
            received.set(id, times);
          }
          times.push(at);
        }
      });
      socket.on('error', reject);
      sockets.push(socket);
    });
  const started = performance.now();
  for (let i = 0; i < SUBSCRIBERS; i += 500)
    await Promise.all(Array.from({ length: Math.min(500, SUBSCRIBERS - i) }, connectOne));
  console.log(`  connected ${fmt(sockets.length)} subscribers in ${fmt((performance.now() - started) / 1000, 1)} s`);
  await server.send('gc', 'gc done');
  const after = JSON.parse(await server.send('stats', 'stats '));
  if (after.subscribers !== SUBSCRIBERS) console.log(`  (server counts ${after.subscribers} subscribers)`);

  const lastArrival: number[] = [];
  const all: number[] = [];
  for (let e = 0; e < EVENTS; e++) {
    const [id, sentAt] = (await server.send('emit', 'emitted ')).split(' ').map(Number) as [number, number];
    const deadline = Date.now() + 30_000;
    while ((received.get(id)?.length ?? 0) < SUBSCRIBERS && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 5));
    const times = received.get(id) ?? [];
    if (times.length < SUBSCRIBERS)
      console.log(`  event ${id}: only ${times.length} subscribers received it within 30 s`);
    const lat = times.map((t) => t - sentAt);
    lastArrival.push(Math.max(...lat));
    all.push(...lat);
    await new Promise((r) => setTimeout(r, 100));
  }
  console.log(
    `  event sent (its transaction begins) -> last subscriber: p50 ${fmt(median(lastArrival), 1)} ms, p99 ${fmt(percentile(lastArrival, 99), 1)} ms, min ${fmt(Math.min(...lastArrival), 1)} ms, max ${fmt(Math.max(...lastArrival), 1)} ms over ${EVENTS} events`,
  );
  console.log(
    `  event sent (its transaction begins) -> each subscriber: p50 ${fmt(percentile(all, 50), 1)} ms, p99 ${fmt(percentile(all, 99), 1)} ms (${fmt(all.length)} deliveries)`,
  );
  measured(
    `${EVENTS} feed events, each committed with its NOTIFY by the API process, timed from the start of its transaction to its arrival at each of ${fmt(SUBSCRIBERS)} SSE sockets of this process`,
  );
  const perSub = (k: 'rss' | 'heapUsed') => (after[k] - before[k]) / SUBSCRIBERS;
  console.log(
    `  memory per subscriber: ${fmt(perSub('rss') / 1024, 1)} KiB RSS, ${fmt(perSub('heapUsed') / 1024, 1)} KiB JS heap (RSS ${fmt(before.rss / 2 ** 20)} -> ${fmt(after.rss / 2 ** 20)} MiB)`,
  );
  for (const s of sockets) s.destroy();
}

const { databaseUrl } = loadBenchConfig();
const dataDir = path.join(tmpdir(), `launchpad-bench-api-${TOKENS}-${TRADES}`);
if (values.fresh && !databaseUrl && existsSync(dataDir)) rmSync(dataDir, { recursive: true, force: true });
console.log(
  `bench:api on ${databaseUrl ? 'a TimescaleDB server (DATABASE_URL)' : `the embedded TimescaleDB in ${dataDir}`}`,
);
console.log(`  data: ${fmt(TRADES)} trades over 90 days for ${fmt(TOKENS)} tokens (Zipf popularity)`);
const db = await openDatabase({ databaseUrl, dataDir });
let deep: string[] = [];
try {
  await prepare(db);
  await prepareMarketData(db);
  // as in production: the chunks a week old in the columnstore, as the compression policy
  // leaves them (chunk by chunk here: a server's own workers may be running the policy too)
  const compressing = performance.now();
  await db.query(
    `SELECT count(compress_chunk(c, if_not_compressed => true)) FROM show_chunks('trades', older_than => INTERVAL '7 days') c`,
  );
  console.log(
    `  week-old chunks compressed into the columnstore (what the policy had not done yet): ${fmt((performance.now() - compressing) / 1000, 1)} s`,
  );
  if (!values.prepare) {
    deep = await deepPositions(db);
    if (!values['http-only']) await caggVersusRaw(db);
  }
} finally {
  await db.close();
}
if (values.prepare) {
  console.log('  prepared (--prepare: nothing measured)');
  process.exit(0);
}
const server = await startServer({ databaseUrl, dataDir, tokens: TOKENS });
try {
  await httpLoad(server, deep);
  if (!values['http-only']) await sseFanOut(server);
} finally {
  await server.stop();
}
