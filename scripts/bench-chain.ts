// `npm run bench:chain [-- --txs N --txs-per-block K --duration S --rounds R --connections C
//                        --accept-encoding E --fresh]`
//
// The Chain API's block and transaction reads over an index of N transactions (default 1M),
// served by the API in its own process, against a Polka hello-world route served by the
// same kind of process (the baseline), and against the same reads from the devnet's
// CometBFT RPC (for reference):
//   GET /cosmos/base/tendermint/v1beta1/blocks/{height}       vs RPC /block?height=
//   GET /cosmos/tx/v1beta1/txs/{hash}                          vs RPC /tx?hash=0x…
//   GET /cosmos/tx/v1beta1/txs?events=message.sender='…'&pagination.limit=100
//                                                              vs RPC /tx_search?query="message.sender='…'"&per_page=100
//   and the same search newest first (&order_by=ORDER_BY_DESC: an explorer's view of an address)
// and, for blocks and txs, a hot set (the newest 1,000 blocks and their newest 10,000 txs,
// Zipf-picked, the newest most often) and requests from a client that holds the answer
// (If-None-Match with its ETag: 304). Targets: random blocks/{height} and txs/{hash} >= 0.8
// of the one-query floor (below), the hot set >= 0.5 of hello-world, 304s >= 0.7 of
// hello-world, the search >= 0.1 of hello-world.
//
// The index is built the real way: a devnet (its own process) pregenerates N trades,
// K per block (each trade is one tx), and the service's backfill indexes them. The devnet
// keeps its chain in <tmp>/chain-bench-N/devnet and the embedded database lives in
// <tmp>/chain-bench-N/db (with DATABASE_URL: database chain_bench_N on that server; N-K
// and N_K when K is not 1000), so a second run reuses both; an index of another chain (the
// devnet was rebuilt) is rebuilt, one that stops short is extended; `--fresh` rebuilds
// everything. The first 1M run spends ~10 minutes pregenerating, then backfilling;
// later ones spend a few minutes replaying the devnet's chain.
//
// The API keeps answers within CACHE_MB, read from the environment as the service reads it.
// Every request says `Accept-Encoding: E` (default `gzip, deflate, br`, what browsers and
// Node's fetch send; `identity` for clients that take no compression), and the fixed bodies
// are the size of the API's answers as sent.
//
// Requests pick a height, a tx hash or a sender at random from lists read once from the
// index (every height, 100k hashes sampled at random, every sender). Each route runs R
// rounds of S seconds (after an untimed 2 s warm-up each; the hot sets' runs after one
// untimed request for each of their keys, as production keeps asking for them), the order of the routes rotated
// every round, each run's backlog worked off before the next; req/s = all requests over
// all measured seconds; p99 over every response; per-second rates over every whole second
// of the measured runs. Beside each API route, the hello-world process answers a fixed body
// of that route's answer size (`/bytes/{n}`): what sending that many bytes costs alone; and
// hello-world after one `SELECT 1` on the index's database (`/one-query`): the most a route
// that asks the database once can reach.
import { existsSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { createChainClient } from '../src/chain/client.ts';
import { type Database, openDatabase } from '../src/db/index.ts';
import { migrate } from '../src/db/migrate.ts';
import { createServerDatabase } from '../src/db/postgres.ts';
import { nodeViewOf, readCursor, verifyChainIdentity } from '../src/indexer/cursor.ts';
import { ChainMismatchError } from '../src/indexer/errors.ts';
import { getRaw } from '../test/helpers/http.ts';
import { rng } from '../test/helpers/trades.ts';
import { type BenchChild, startBenchChild } from './lib/bench-child.ts';
import { loadBenchConfig } from './lib/bench-config.ts';
import type { NodeServerConfig } from './lib/bench-servers.ts';
import { machineCpuSeconds, processCpuSeconds } from './lib/cpu.ts';
import { backfillDevnet, type DevnetProcess, startDevnetProcess } from './lib/devnet-process.ts';
import { zipf } from './lib/live-writer.ts';
import { type LoadRequest, loadRun } from './lib/load.ts';
import { fmt, measured, rotation, spread } from './lib/report.ts';
import { percentile } from './lib/stats.ts';

const { values } = parseArgs({
  options: {
    txs: { type: 'string', default: '1000000' },
    'txs-per-block': { type: 'string', default: '1000' },
    duration: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '3' },
    connections: { type: 'string', default: '32' },
    'accept-encoding': { type: 'string', default: 'gzip, deflate, br' },
    fresh: { type: 'boolean', default: false },
  },
});
const TXS = Number(values.txs);
const PER_BLOCK = Number(values['txs-per-block']);
const DURATION = Number(values.duration);
const ROUNDS = Number(values.rounds);
const CONNECTIONS = Number(values.connections);
const ACCEPT_ENCODING = values['accept-encoding']!;
const WARM_UP = 2;
const HASH_SAMPLE = 100_000;
/** The hot set: the newest blocks, and the newest txs among them, picked Zipf-distributed (the newest most often). */
const HOT_BLOCKS = 1000;
const HOT_TXS = 10_000;
/** Keys whose ETags are read once for the 304 runs. */
const ETAG_SAMPLE = 1000;
/** Seconds autocannon waits for an answer (its default, 10, is shorter than the node's queue under load). */
const TIMEOUT = 30;
for (const [name, n] of Object.entries({ txs: TXS, 'txs-per-block': PER_BLOCK, duration: DURATION, rounds: ROUNDS }))
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a whole number of at least 1`);

const { databaseUrl: serverUrl } = loadBenchConfig();
// keyed by size (and by block size when it is not the default)
const key = PER_BLOCK === 1000 ? `${TXS}` : `${TXS}-${PER_BLOCK}`;
const baseDir = path.join(tmpdir(), `chain-bench-${key}`);
const devnetDir = path.join(baseDir, 'devnet');
const dbDir = path.join(baseDir, 'db');
const serverDbName = `chain_bench_${key.replace('-', '_')}`;
const where = serverUrl
  ? `a TimescaleDB server (DATABASE_URL, database ${serverDbName})`
  : `the embedded TimescaleDB in ${dbDir}`;

// --- the index --------------------------------------------------------------------------

/** The server database of this size (created when missing, dropped first when `drop`), its URL. */
async function serverDatabase(drop: boolean): Promise<string> {
  const admin = createServerDatabase({ url: serverUrl!, max: 1 });
  try {
    if (drop) await admin.exec(`DROP DATABASE IF EXISTS ${serverDbName} WITH (FORCE)`);
    const [row] = await admin.query('SELECT 1 AS found FROM pg_database WHERE datname = $1', [serverDbName]);
    // from template0, which nobody connects to (TimescaleDB's scheduler visits template1)
    if (!row) await admin.exec(`CREATE DATABASE ${serverDbName} TEMPLATE template0`);
  } finally {
    await admin.close();
  }
  const url = new URL(serverUrl!);
  url.pathname = `/${serverDbName}`;
  return url.toString();
}

async function openIndex(drop: boolean): Promise<{ db: Database; databaseUrl?: string }> {
  if (serverUrl) {
    const databaseUrl = await serverDatabase(drop);
    return { db: await openDatabase({ databaseUrl, dataDir: '' }), databaseUrl };
  }
  if (drop) rmSync(dbDir, { recursive: true, force: true });
  return { db: await openDatabase({ dataDir: dbDir }) };
}

async function prepareDevnet(): Promise<DevnetProcess> {
  console.log(
    `devnet: ${fmt(TXS)} trades, ${fmt(PER_BLOCK)} per block (each trade one tx), chain kept in ${devnetDir}`,
  );
  const started = performance.now();
  const devnet = await startDevnetProcess({ dataDir: devnetDir, pregenerate: TXS, tradesPerBlock: PER_BLOCK }, (p) =>
    process.stdout.write(
      `\r  pregenerated ${fmt(p.trades)} trades in ${fmt(p.height)} blocks (${fmt(p.seconds)} s)          `,
    ),
  );
  if (devnet.generateSeconds > 0) process.stdout.write('\n');
  const { restored } = devnet;
  if (restored.height > 1)
    console.log(
      `  read back ${fmt(restored.trades)} trades in ${fmt(restored.height)} blocks from the data directory (${fmt(devnet.restoreSeconds, 1)} s, every tx re-executed)`,
    );
  if (devnet.generateSeconds > 0)
    console.log(
      `  pregenerated ${fmt(devnet.trades - restored.trades)} trades in ${fmt(devnet.generateSeconds, 1)} s (${fmt((devnet.trades - restored.trades) / devnet.generateSeconds)} trades/s)`,
    );
  console.log(
    `  serving ${fmt(devnet.trades)} trades in ${fmt(devnet.height)} blocks at ${devnet.rpcUrl} (ready in ${fmt((performance.now() - started) / 1000, 1)} s)`,
  );
  return devnet;
}

interface Lists {
  heights: number[];
  hashes: string[];
  senders: { address: string; txs: number }[];
  /** The hot set: the newest HOT_BLOCKS heights and the hashes of their newest HOT_TXS txs, newest first. */
  hotHeights: number[];
  hotHashes: string[];
}

async function prepareIndex(devnet: DevnetProcess): Promise<{ lists: Lists; databaseUrl?: string }> {
  console.log(`index: on ${where}`);
  let { db, databaseUrl } = await openIndex(values.fresh);
  const chain = createChainClient(devnet.rpcUrl, { timeoutMs: 120_000 });
  try {
    await migrate(db);
    let cursor = await readCursor(db);
    if (cursor) {
      try {
        await verifyChainIdentity(cursor, await nodeViewOf(chain));
      } catch (error) {
        if (!(error instanceof ChainMismatchError)) throw error;
        console.log(`  the index holds another chain (the devnet was rebuilt): rebuilding it`);
        await db.close();
        ({ db, databaseUrl } = await openIndex(true));
        await migrate(db);
        cursor = undefined;
      }
    }
    if (cursor && cursor.lastHeight >= devnet.height) {
      console.log(`  reusing the index of heights ${fmt(cursor.firstHeight)}..${fmt(cursor.lastHeight)}`);
    } else {
      const from = cursor ? cursor.lastHeight + 1 : 1;
      console.log(`  backfill (src/indexer/backfill.ts) of heights ${fmt(from)}..${fmt(devnet.height)}`);
      let txs = 0;
      const started = performance.now();
      await backfillDevnet(devnet, {
        db,
        chain,
        from,
        onBatch: (b) => {
          txs += b.txs;
          const s = (performance.now() - started) / 1000;
          process.stdout.write(
            `\r  indexed ${fmt(txs)} txs, height ${fmt(b.toHeight)} of ${fmt(devnet.height)} (${fmt(s)} s, ${fmt(txs / s)} txs/s)   `,
          );
        },
      });
      const s = (performance.now() - started) / 1000;
      process.stdout.write('\n');
      console.log(`  backfilled ${fmt(txs)} txs in ${fmt(s, 1)} s (${fmt(txs / s)} txs/s)`);
    }
    // as autovacuum would have by now on a server: statistics, and the visibility map
    // index-only scans need (quick when nothing changed)
    for (const table of ['blocks', 'txs', 'tx_hashes', 'tx_attribute_refs', 'attribute_values'])
      await db.exec(`VACUUM ANALYZE ${table}`);
    const [counts] = await db.query<{ txs: number; blocks: number; attributes: number; size: string }>(
      `SELECT (SELECT count(*) FROM txs)::int AS txs, (SELECT count(*) FROM blocks)::int AS blocks,
              (SELECT count(*) FROM tx_attribute_refs)::int AS attributes,
              pg_size_pretty(hypertable_size('txs') + pg_total_relation_size('tx_hashes') + pg_total_relation_size('blocks')
                + hypertable_size('tx_attribute_refs') + pg_total_relation_size('attribute_values')) AS size`,
    );
    console.log(
      `  the index holds ${fmt(counts!.txs)} txs in ${fmt(counts!.blocks)} blocks, ${fmt(counts!.attributes)} attribute rows (blocks, txs with their hashes and the attribute index: ${counts!.size})`,
    );
    if (counts!.txs < TXS) throw new Error(`the index holds ${counts!.txs} txs, fewer than ${TXS}`);

    const started = performance.now();
    const heights = (
      await db.query<{ height: string }>('SELECT height::text AS height FROM blocks ORDER BY blocks.height')
    ).map((r) => Number(r.height));
    const hashes = (
      await db.query<{ hash: string }>(
        "SELECT upper(encode(hash, 'hex')) AS hash FROM txs ORDER BY random() LIMIT $1",
        [HASH_SAMPLE],
      )
    ).map((r) => r.hash);
    const senders = (
      await db.query<{ value: string; n: number }>(
        `SELECT value, count(*)::int AS n FROM tx_attributes WHERE key = 'message.sender' GROUP BY value ORDER BY value`,
      )
    ).map((r) => ({ address: r.value, txs: r.n }));
    const hotHeights = heights.slice(-HOT_BLOCKS).reverse();
    const hotHashes = (
      await db.query<{ hash: string }>(
        "SELECT upper(encode(hash, 'hex')) AS hash FROM txs WHERE height >= $1 ORDER BY height DESC, tx_index DESC LIMIT $2",
        [hotHeights.at(-1) ?? 0, HOT_TXS],
      )
    ).map((r) => r.hash);
    console.log(
      `  request lists read from the index in ${fmt((performance.now() - started) / 1000, 1)} s: ${fmt(heights.length)} heights, ${fmt(hashes.length)} tx hashes (a random sample), ${fmt(senders.length)} senders (txs each: ${spread(senders.map((s) => s.txs))}); the hot set: the newest ${fmt(hotHeights.length)} blocks and their newest ${fmt(hotHashes.length)} txs`,
    );
    return { lists: { heights, hashes, senders, hotHeights, hotHashes }, databaseUrl };
  } finally {
    chain.disconnect();
    await db.close();
  }
}

// --- the API process -----------------------------------------------------------------------

type ServerProcess = BenchChild & { api: string; hello: string };

const startServer = (config: NodeServerConfig) =>
  startBenchChild<{ api: string; hello: string }>(new URL('./lib/chain-bench-server.ts', import.meta.url), config, {
    name: 'the Chain API bench server',
  });

// --- checks: each route answers what it is asked, from the index as the node does ------------

/** A request's path and headers, with the run's Accept-Encoding. */
function withEncoding(request: string | LoadRequest): LoadRequest {
  const { path, headers = {}, ...rest } = typeof request === 'string' ? { path: request } : request;
  return { ...rest, path, headers: { 'Accept-Encoding': ACCEPT_ENCODING, ...headers } };
}

/** The answer's JSON, and its size as sent (compressed when the API compressed it). */
async function getJson<T>(url: string): Promise<T> {
  return (await getSized<T>(url)).json;
}

async function getSized<T>(url: string): Promise<{ json: T; sentBytes: number }> {
  const { status, body, headers } = await getRaw(url, { 'Accept-Encoding': ACCEPT_ENCODING });
  const json = headers['content-encoding'] === 'gzip' ? gunzipSync(body) : body;
  if (status !== 200) throw new Error(`${url}: HTTP ${status} ${json.toString('utf8').slice(0, 300)}`);
  return { json: JSON.parse(json.toString('utf8')) as T, sentBytes: body.length };
}

const pick = <T>(xs: readonly T[]): T => xs[Math.floor(Math.random() * xs.length)]!;
const searchPath = (sender: string) =>
  `/cosmos/tx/v1beta1/txs?events=${encodeURIComponent(`message.sender='${sender}'`)}&pagination.limit=100`;
const rpcSearchPath = (sender: string) =>
  `/tx_search?query=${encodeURIComponent(`"message.sender='${sender}'"`)}&per_page=100`;

/** Checks each route's answer against the node's; resolves to the API answers' sizes as sent, in bytes (block, tx, search). */
async function check(server: ServerProcess, rpcUrl: string, lists: Lists): Promise<number[]> {
  const fail = (what: string) => {
    throw new Error(`check failed: ${what}`);
  };
  // a full block: the Chain API's txs are the node's, in the node's order
  const height = lists.heights.at(-2) ?? lists.heights.at(-1)!;
  type Block = { block: { header: { height: string }; data: { txs: string[] } } };
  const { json: apiBlock, sentBytes: blockBytes } = await getSized<Block>(
    `${server.api}/cosmos/base/tendermint/v1beta1/blocks/${height}`,
  );
  const rpcBlock = (await getJson<{ result: Block }>(`${rpcUrl}/block?height=${height}`)).result;
  if (apiBlock.block.header.height !== String(height)) fail(`blocks/${height} answered another height`);
  if (JSON.stringify(apiBlock.block.data.txs) !== JSON.stringify(rpcBlock.block.data.txs))
    fail(`blocks/${height}: txs differ from the node's`);

  const hash = lists.hashes[0]!;
  const { json: apiTx, sentBytes: txBytes } = await getSized<{ tx_response: { txhash: string; height: string } }>(
    `${server.api}/cosmos/tx/v1beta1/txs/${hash}`,
  );
  const rpcTx = (await getJson<{ result: { hash: string; height: string } }>(`${rpcUrl}/tx?hash=0x${hash}`)).result;
  if (apiTx.tx_response.txhash !== hash || rpcTx.hash !== hash || apiTx.tx_response.height !== rpcTx.height)
    fail(`txs/${hash}: the API and the node disagree`);

  const sender = lists.senders.reduce((a, b) => (b.txs > a.txs ? b : a));
  type Events = { events: { type: string; attributes: { key: string; value: string }[] }[] };
  const { json: apiSearch, sentBytes: searchBytes } = await getSized<{ tx_responses: (Events & { txhash: string })[] }>(
    server.api + searchPath(sender.address),
  );
  const rpcSearch = (
    await getJson<{ result: { txs: { hash: string }[]; total_count: string } }>(rpcUrl + rpcSearchPath(sender.address))
  ).result;
  const expected = Math.min(100, sender.txs);
  if (apiSearch.tx_responses.length !== expected) fail(`search: ${apiSearch.tx_responses.length} txs, not ${expected}`);
  const signed = (r: Events) =>
    r.events.some(
      (e) => e.type === 'message' && e.attributes.some((a) => a.key === 'sender' && a.value === sender.address),
    );
  if (!apiSearch.tx_responses.every(signed)) fail('search: a tx of another sender');
  if (rpcSearch.total_count !== String(sender.txs))
    fail(`RPC tx_search counts ${rpcSearch.total_count}, the index ${sender.txs}`);
  if (apiSearch.tx_responses.map((r) => r.txhash).join() !== rpcSearch.txs.map((t) => t.hash).join())
    fail("search: the API's page is not the node's first page");
  const floor = await getJson<{ hello: string }>(`${server.hello}/one-query`);
  if (floor.hello !== 'world') fail('/one-query did not answer hello-world');
  console.log(
    `checked: blocks/${height} holds the node's ${fmt(rpcBlock.block.data.txs.length)} txs in its order; txs/{hash} and the node's /tx agree; the search's first 100 txs of the busiest sender (${fmt(sender.txs)} txs) are the node's tx_search page 1, all signed by that sender`,
  );
  return [blockBytes, txBytes, searchBytes];
}

/** The ETags of a random sample of blocks and txs, for requests a client that holds them sends. */
async function readEtags(server: ServerProcess, lists: Lists): Promise<{ blocks: Conditional[]; txs: Conditional[] }> {
  const read = async (path: string): Promise<Conditional> => {
    const res = await getRaw(server.api + path, { 'Accept-Encoding': ACCEPT_ENCODING });
    const etag = res.headers.etag;
    if (res.status !== 200 || !etag) throw new Error(`${path}: HTTP ${res.status}, ETag ${etag}`);
    return { path, etag };
  };
  const sample = <T>(xs: readonly T[]) => Array.from({ length: Math.min(ETAG_SAMPLE, xs.length) }, () => pick(xs));
  return {
    blocks: await Promise.all(sample(lists.heights).map((h) => read(`/cosmos/base/tendermint/v1beta1/blocks/${h}`))),
    txs: await Promise.all(sample(lists.hashes).map((h) => read(`/cosmos/tx/v1beta1/txs/${h}`))),
  };
}

interface Conditional {
  path: string;
  etag: string;
}

const conditional = (c: Conditional): LoadRequest => ({ path: c.path, headers: { 'If-None-Match': c.etag } });

// --- load --------------------------------------------------------------------------------

interface Route {
  name: string;
  side: 'baseline' | 'api' | 'rpc';
  origin: () => string;
  path: () => string | LoadRequest;
  /** Target ratio to `against` (API routes). */
  goal?: number;
  /** What the target is a ratio of: hello-world (default) or the one-query floor. */
  against?: 'hello' | 'floor';
  /** Paths asked for once before each of the route's runs (a hot set: what production keeps asking for). */
  primes?: readonly string[];
  /** The status every answer should have: 304 for a client that holds the answer; any 2xx when unset. */
  status?: 304;
}

interface Tally {
  requests: number;
  seconds: number;
  /** Responses completed in each whole second of the measured runs. */
  perSecond: number[];
  latencies: number[];
  /** Answers of another status than the route's (any but 2xx, or any but its 304). */
  unexpected: number;
  errors: number;
  /** No answer within TIMEOUT s. */
  timeouts: number;
  bytes: number;
  /** CPU seconds during the measured runs: the API process, the devnet, the database server's backends of the bench database (local server only), this process, and everything else. */
  cpu: { api: number; devnet: number; db: number; bench: number; others: number };
}

/**
 * Waits until the route's server has worked off what a run left it: the requests in flight
 * when autocannon closed its connections are still answered (into closed sockets), and
 * would otherwise slow the next run. One more request of the route waits behind them.
 */
async function drain(route: Route): Promise<void> {
  const { path, headers } = withEncoding(route.path());
  await (await fetch(route.origin() + path, { headers, signal: AbortSignal.timeout(300_000) })).arrayBuffer();
}

/**
 * Asks for each of the route's `primes` once, CONNECTIONS at a time: a hot set is in memory
 * in production, where requests for it never stop, but the runs before this one (a random
 * walk over a million txs) may have pushed it out of the cache.
 */
async function prime(route: Route): Promise<void> {
  const paths = route.primes ?? [];
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < paths.length; i = next++) {
      const { path, headers } = withEncoding(paths[i]!);
      const res = await fetch(route.origin() + path, { headers, signal: AbortSignal.timeout(300_000) });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`${path}: HTTP ${res.status}`);
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
}

/** On a local server: the CPU seconds used so far by each backend of the bench database (by pid). */
async function backendCpu(): Promise<Map<number, number>> {
  if (!monitor) return new Map();
  const rows = await monitor.query<{ pid: number }>(
    'SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
    [serverDbName],
  );
  return new Map(rows.map((r) => [r.pid, processCpuSeconds(r.pid)]));
}

/** CPU seconds the backends used between two readings (a backend that appeared counts from 0). */
const backendDelta = (before: Map<number, number>, after: Map<number, number>) =>
  [...after].reduce((sum, [pid, s]) => sum + (Number.isNaN(s) ? 0 : s - (before.get(pid) ?? 0)), 0);

async function runOnce(route: Route, seconds: number, into?: Tally): Promise<void> {
  const buckets: number[] = [];
  let started = 0;
  const before = into && {
    api: processCpuSeconds(server.child.pid),
    devnet: processCpuSeconds(devnet.child.pid),
    db: await backendCpu(),
    machine: machineCpuSeconds(),
    bench: process.cpuUsage(),
  };
  const result = await loadRun(
    route.origin(),
    () => withEncoding(route.path()),
    { connections: CONNECTIONS, duration: seconds, timeout: TIMEOUT },
    (instance) => {
      if (!into) return;
      instance.on('start', () => {
        started = performance.now();
      });
      instance.on('response', (_client, _status, _bytes, responseTime) => {
        const s = Math.floor((performance.now() - started) / 1000);
        buckets[s] = (buckets[s] ?? 0) + 1;
        into.latencies.push(responseTime);
      });
    },
  );
  if (!into || !before) return;
  const own = process.cpuUsage(before.bench);
  const cpu = {
    api: processCpuSeconds(server.child.pid) - before.api,
    devnet: processCpuSeconds(devnet.child.pid) - before.devnet,
    db: backendDelta(before.db, await backendCpu()),
    bench: (own.user + own.system) / 1e6,
  };
  const machine = machineCpuSeconds() - before.machine;
  into.requests += result.requests.total;
  into.seconds += result.duration;
  // a second without a completed response counts as 0
  for (let i = 0; i < Math.floor(result.duration); i++) into.perSecond.push(buckets[i] ?? 0);
  const expected = route.status === 304 ? (result.statusCodeStats?.['304']?.count ?? 0) : result['2xx'];
  into.unexpected += result['2xx'] + result.non2xx - expected;
  into.errors += result.errors - result.timeouts; // autocannon counts timeouts among errors
  into.timeouts += result.timeouts;
  into.bytes += result.throughput.total;
  into.cpu.api += cpu.api;
  into.cpu.devnet += cpu.devnet;
  into.cpu.db += cpu.db;
  into.cpu.bench += cpu.bench;
  // everything else the machine did meanwhile: others' processes (and the idle ones of this bench)
  into.cpu.others += machine - cpu.api - cpu.devnet - cpu.db - cpu.bench;
}

const cores = (t: Tally, k: keyof Tally['cpu']) => fmt(t.cpu[k] / t.seconds, 2);

/** Answers of another status than the route's, connection errors and timeouts, when there were any. */
const failures = (t: Tally) =>
  t.unexpected + t.errors + t.timeouts === 0
    ? ''
    : `  UNEXPECTED STATUS: ${fmt(t.unexpected)}, errors: ${fmt(t.errors)}, timeouts (${TIMEOUT} s): ${fmt(t.timeouts)}`;

function describe(route: Route, t: Tally): string {
  const rps = t.requests / t.seconds;
  const server =
    route.side === 'rpc'
      ? `devnet ${cores(t, 'devnet')}`
      : `API process ${cores(t, 'api')}${monitor && route.side === 'api' ? `, its database backends ${cores(t, 'db')}` : ''}`;
  const cpu = `cores busy: ${server}, load generator ${cores(t, 'bench')}, all else ${cores(t, 'others')}`;
  return `${route.name.padEnd(46)} ${fmt(rps).padStart(7)} req/s  p99 ${t.latencies.length ? fmt(percentile(t.latencies, 99), 1).padStart(6) : '     -'} ms  per second: ${spread(t.perSecond)}  (${fmt(t.bytes / t.requests / 1024, 1)} KiB/answer, ${fmt(t.bytes / t.seconds / 2 ** 20, 1)} MiB/s; ${cpu})${failures(t)}`;
}

// --- the run -------------------------------------------------------------------------------

console.log(
  `bench:chain on ${where}; requests say Accept-Encoding: ${ACCEPT_ENCODING}; ${availableParallelism()} cores, shared with whatever else runs (load average ${loadavg()
    .map((l) => fmt(l, 2))
    .join(' ')})`,
);
if (values.fresh) {
  console.log('  --fresh: the devnet and the index are rebuilt');
  if (existsSync(devnetDir)) rmSync(devnetDir, { recursive: true, force: true });
}
const devnet = await prepareDevnet();
let server: ServerProcess;
/** A connection to the bench database on a local server, to read its backends' CPU from /proc. */
let monitor: Database | undefined;
try {
  const { lists, databaseUrl } = await prepareIndex(devnet);
  server = await startServer({
    databaseUrl,
    dataDir: dbDir,
    rpcUrl: devnet.rpcUrl,
    launchpad: devnet.contracts.launchpad,
  });
  if (databaseUrl && ['127.0.0.1', 'localhost', '[::1]'].includes(new URL(databaseUrl).hostname))
    monitor = createServerDatabase({ url: databaseUrl, max: 1 });
  try {
    const sizes = await check(server, devnet.rpcUrl, lists);
    const api = () => server.api;
    const rpc = () => devnet.rpcUrl;
    const hello: Route = {
      name: 'hello-world (Polka, same process shape)',
      side: 'baseline',
      origin: () => server.hello,
      path: () => '/hello',
    };
    const zipfRandom = rng(1).next;
    const hotBlock = zipf(lists.hotHeights.length, zipfRandom);
    const hotTx = zipf(lists.hotHashes.length, zipfRandom);
    const etags = await readEtags(server, lists);
    const apiRoutes: Route[] = [
      {
        name: 'GET …/blocks/{height}, random',
        side: 'api',
        origin: api,
        path: () => `/cosmos/base/tendermint/v1beta1/blocks/${pick(lists.heights)}`,
        goal: 0.8,
        against: 'floor',
      },
      {
        name: 'GET …/txs/{hash}, random',
        side: 'api',
        origin: api,
        path: () => `/cosmos/tx/v1beta1/txs/${pick(lists.hashes)}`,
        goal: 0.8,
        against: 'floor',
      },
      {
        name: "GET …/txs?events=message.sender='…'&limit=100",
        side: 'api',
        origin: api,
        path: () => searchPath(pick(lists.senders).address),
        goal: 0.1,
      },
      {
        name: 'the same search, newest first',
        side: 'api',
        origin: api,
        path: () => `${searchPath(pick(lists.senders).address)}&order_by=ORDER_BY_DESC`,
        goal: 0.1,
      },
      {
        name: 'GET …/blocks/{height}, hot set',
        side: 'api',
        origin: api,
        path: () => `/cosmos/base/tendermint/v1beta1/blocks/${lists.hotHeights[hotBlock()]}`,
        goal: 0.5,
        primes: lists.hotHeights.map((h) => `/cosmos/base/tendermint/v1beta1/blocks/${h}`),
      },
      {
        name: 'GET …/txs/{hash}, hot set',
        side: 'api',
        origin: api,
        path: () => `/cosmos/tx/v1beta1/txs/${lists.hotHashes[hotTx()]}`,
        goal: 0.5,
        primes: lists.hotHashes.map((h) => `/cosmos/tx/v1beta1/txs/${h}`),
      },
      {
        name: 'GET …/blocks/{height}, If-None-Match: 304',
        side: 'api',
        origin: api,
        path: () => conditional(pick(etags.blocks)),
        goal: 0.7,
        status: 304,
      },
      {
        name: 'GET …/txs/{hash}, If-None-Match: 304',
        side: 'api',
        origin: api,
        path: () => conditional(pick(etags.txs)),
        goal: 0.7,
        status: 304,
      },
    ];
    // per API route: a fixed body of its answer's size from the hello-world process (the cost
    // of the bytes alone), and the node's same read
    const fixedRoutes: Route[] = sizes.map((size, i) => ({
      name: `fixed ${fmt(size / 1024, 1)} KiB body (${['blocks/{height}', 'txs/{hash}', 'search'][i]}'s size)`,
      side: 'baseline',
      origin: () => server.hello,
      path: () => `/bytes/${size}`,
    }));
    // hello-world after one round trip to the index's database: what any route that asks it once can reach
    const oneQuery: Route = {
      name: 'hello-world after one SELECT 1 (the database floor)',
      side: 'baseline',
      origin: () => server.hello,
      path: () => '/one-query',
    };
    const rpcRoutes: Route[] = [
      { name: 'RPC /block?height=', side: 'rpc', origin: rpc, path: () => `/block?height=${pick(lists.heights)}` },
      { name: 'RPC /tx?hash=0x…', side: 'rpc', origin: rpc, path: () => `/tx?hash=0x${pick(lists.hashes)}` },
      {
        name: "RPC /tx_search?query=message.sender='…'",
        side: 'rpc',
        origin: rpc,
        path: () => rpcSearchPath(pick(lists.senders).address),
      },
    ];
    const routes = [hello, ...apiRoutes, ...fixedRoutes, oneQuery, ...rpcRoutes];
    const tallies = new Map<Route, Tally>(
      routes.map((r) => [
        r,
        {
          requests: 0,
          seconds: 0,
          perSecond: [],
          latencies: [],
          unexpected: 0,
          errors: 0,
          timeouts: 0,
          bytes: 0,
          cpu: { api: 0, devnet: 0, db: 0, bench: 0, others: 0 },
        },
      ]),
    );
    const rps = (r: Route) => tallies.get(r)!.requests / tallies.get(r)!.seconds;
    console.log(
      `\nload: autocannon in this process, ${CONNECTIONS} connections; per route ${ROUNDS} rounds of ${DURATION} s, each after an untimed ${WARM_UP} s warm-up (the hot sets: after one untimed request for each of their keys); the routes' order rotated each round; after each run the server works off its backlog (the requests in flight) before the next`,
    );
    for (let round = 0; round < ROUNDS; round++) {
      const started = performance.now();
      for (const route of rotation(routes, round)) {
        await prime(route);
        await runOnce(route, WARM_UP);
        await drain(route);
        await runOnce(route, DURATION, tallies.get(route));
        await drain(route);
      }
      console.log(`  round ${round + 1} of ${ROUNDS} done (${fmt((performance.now() - started) / 1000)} s)`);
    }

    console.log(`\nresults (${fmt(ROUNDS * DURATION)} s measured per route)`);
    for (const route of routes) console.log(`  ${describe(route, tallies.get(route)!)}`);
    console.log('\nratios to hello-world (req/s from totals; the targets)');
    for (const route of apiRoutes) {
      const ratio = rps(route) / rps(hello);
      const floor = rps(route) / rps(oneQuery);
      const against = route.against === 'floor' ? floor : ratio;
      const goal = `target >= ${route.goal} of ${route.against === 'floor' ? 'the one-query floor' : 'hello-world'}: ${against >= route.goal! ? 'met' : 'MISSED'}`;
      console.log(
        `  ${route.name.padEnd(46)} ${fmt(ratio, 3).padStart(6)} of hello-world, ${fmt(floor, 2).padStart(5)} of the one-query floor  ${goal}`,
      );
    }
    for (const route of [...fixedRoutes, oneQuery, ...rpcRoutes])
      console.log(`  ${route.name.padEnd(46)} ${fmt(rps(route) / rps(hello), 3).padStart(6)}  (reference)`);
    console.log("\nthe Chain API against a fixed body of its answer's size, and against the node (req/s ratios)");
    for (const [i, route] of apiRoutes.slice(0, 3).entries())
      console.log(
        `  ${route.name.padEnd(46)} ${fmt(rps(route) / rps(fixedRoutes[i]!), 2).padStart(5)} of the fixed body, ${rps(rpcRoutes[i]!) > 0 ? `${fmt(rps(route) / rps(rpcRoutes[i]!), 2).padStart(5)}x` : 'vs none answered by'} ${rpcRoutes[i]!.name}`,
      );
    const totalBad = [...tallies.values()].reduce((n, t) => n + t.unexpected + t.errors + t.timeouts, 0);
    measured(
      `every route loaded by autocannon (${CONNECTIONS} connections, ${fmt(ROUNDS)} x ${DURATION} s, order rotated per round) in this one run: the Chain API and hello-world in one separate process on ${where}, the devnet's RPC in its own process; ${fmt(lists.heights.length)} heights, ${fmt(lists.hashes.length)} hashes and ${fmt(lists.senders.length)} senders picked at random per request; ${totalBad === 0 ? 'every answer of the status its route expects (2xx; 304 for If-None-Match)' : `${fmt(totalBad)} answers of another status, errors or timeouts`}`,
    );
    const all = [...tallies.values()];
    const others = all.reduce((n, t) => n + t.cpu.others, 0) / all.reduce((n, t) => n + t.seconds, 0);
    measured(
      `${availableParallelism()} shared cores: the load generator, the API process${serverUrl ? ', the database server' : ' (its embedded database included)'} and the devnet compete for them, and other processes kept ${fmt(others, 2)} cores busy on average during the measured runs (per route: ${spread(
        all.map((t) => t.cpu.others / t.seconds),
        (n) => fmt(n, 2),
      )}; load average now ${loadavg()
        .map((l) => fmt(l, 2))
        .join(' ')}): figures move by tens of percent between runs; ratios are within one run`,
    );
  } finally {
    await monitor?.close();
    await server.stop();
  }
} finally {
  await devnet.stop();
}
