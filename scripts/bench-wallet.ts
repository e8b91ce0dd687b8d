// `npm run bench:wallet [-- --tokens 10000 --held 100 --from-contract 5 --holders 5000 --duration 10]`
//
// GET /api/wallet/tokens for a wallet holding --held of --tokens known tokens: req/s and p99
// beside a Polka hello-world route served by the same kind of process in the same run
// (target: at least 0.1 of hello-world), and the contract queries made per request (target:
// no more than the tokens held), counted in the API process by a wrapper of its chain client.
//
// Data: a devnet node in a child process, on which the wallet (devnet account 1) launches
// --from-contract real tokens and buys each; the rest are synthetic, written directly as the
// indexer writes them: tokens rows, their creations (cw20_tokens) and balance rows
// (cw20_balances) of the wallet (and 50 tokens it sold out) and of --holders other holders
// (5 to 35 tokens each), the index complete from height 1. Two states: (A) the index vouches
// for every token (its history indexed), (B) the real tokens were created below the heights the
// index holds completely (an index started mid-chain), so their balances are read from their
// contracts on the devnet. In each, the API as configured (answers cached until a commit
// about the wallet or a token it holds) and an API that computes every answer (what a request
// costs when the cache cannot help: a wallet asking for the first time, or right after its
// balances moved); in (A) also the API as configured while blocks are written through the
// indexer's write path (5 a second, each with CW20 transfers between other holders and
// trades; every 5th trades a token the wallet holds). Before each run the answer is checked
// against the balances written and the contracts' own answers (after the live run, again).
// Uses DATABASE_URL when set (in a new database made there and dropped after), otherwise an
// embedded TimescaleDB in a temporary directory.
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { makeCosmoshubPath } from '@cosmjs/amino';
import { SigningCosmWasmClient } from '@cosmjs/cosmwasm-stargate';
import { toBech32 } from '@cosmjs/encoding';
import { DirectSecp256k1HdWallet } from '@cosmjs/proto-signing';
import { GasPrice } from '@cosmjs/stargate';
import { openDatabase } from '../src/db/index.ts';
import { migrate } from '../src/db/migrate.ts';
import type { Database } from '../src/db/types.ts';
import { DEFAULT_DEVNET_MNEMONIC } from '../src/devnet/index.ts';
import { freshServerDatabase } from '../test/helpers/database.ts';
import { rng } from '../test/helpers/trades.ts';
import { type BenchChild, startBenchChild } from './lib/bench-child.ts';
import { loadBenchConfig } from './lib/bench-config.ts';
import type { NodeServerConfig } from './lib/bench-servers.ts';
import { startDevnetProcess } from './lib/devnet-process.ts';
import { type Load, warmLoad } from './lib/load.ts';
import { fmt, measured } from './lib/report.ts';

const { values } = parseArgs({
  options: {
    tokens: { type: 'string', default: '10000' },
    held: { type: 'string', default: '100' },
    'from-contract': { type: 'string', default: '5' },
    holders: { type: 'string', default: '5000' },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '32' },
  },
});
const TOKENS = Number(values.tokens);
const HELD = Number(values.held);
const REAL = Number(values['from-contract']);
const HOLDERS = Number(values.holders);
const DURATION = Number(values.duration);
const CONNECTIONS = Number(values.connections);
if (!(REAL >= 0 && REAL <= HELD && HELD <= TOKENS)) throw new Error('need 0 <= --from-contract <= --held <= --tokens');

const { databaseUrl } = loadBenchConfig();
/** The run under live blocks: one block per BLOCK_MS, every HELD_EVERY-th trading a token the wallet holds. */
const BLOCK_MS = 200;
const HELD_EVERY = 5;
const address = (label: string) => toBech32('native', createHash('sha256').update(label).digest());
const NATIVE = 1_000_000n;

interface RealToken {
  address: string;
  symbol: string;
  balance: string;
}

/** The wallet (devnet account 1) launches `REAL` tokens on the launchpad and buys each. */
async function launchRealTokens(rpcUrl: string, launchpad: string): Promise<{ wallet: string; tokens: RealToken[] }> {
  const signer = await DirectSecp256k1HdWallet.fromMnemonic(DEFAULT_DEVNET_MNEMONIC, {
    prefix: 'native',
    hdPaths: [makeCosmoshubPath(1)],
  });
  const wallet = (await signer.getAccounts())[0]!.address;
  const client = await SigningCosmWasmClient.connectWithSigner(rpcUrl, signer, {
    gasPrice: GasPrice.fromString('0.01unative'),
    broadcastPollIntervalMs: 50,
  });
  const tokens: RealToken[] = [];
  try {
    for (let i = 0; i < REAL; i++) {
      const symbol = `REAL${String.fromCharCode(65 + (i % 26))}`;
      const created = await client.execute(
        wallet,
        launchpad,
        { create_token: { name: `Real ${i}`, symbol, image: '', description: '' } },
        'auto',
        '',
        [{ denom: 'unative', amount: NATIVE.toString() }],
      );
      const event = created.events.find((e) => e.type === 'wasm-token_created')!;
      const token = event.attributes.find((a) => a.key === 'token_address')!.value;
      await client.execute(wallet, launchpad, { buy: { token_address: token } }, 'auto', '', [
        { denom: 'unative', amount: ((10n + BigInt(i)) * NATIVE).toString() },
      ]);
      const { balance } = (await client.queryContractSmart(token, { balance: { address: wallet } })) as {
        balance: string;
      };
      tokens.push({ address: token, symbol, balance });
    }
  } finally {
    client.disconnect();
  }
  return { wallet, tokens };
}

/** Rows through unnest in chunks (one statement per chunk). */
async function insertChunks(db: Database, sql: string, columns: unknown[][], chunk = 20_000) {
  for (let i = 0; i < columns[0]!.length; i += chunk)
    await db.query(
      sql,
      columns.map((c) => c.slice(i, i + chunk)),
    );
}

/** Writes the known tokens and balances; returns the wallet's expected holdings (token → balance). */
async function prepare(db: Database, wallet: string, launchpad: string, real: RealToken[]) {
  await migrate(db);
  const r = rng(11);
  const synthetic = Array.from({ length: TOKENS - real.length }, (_, i) => address(`wallet-bench-token-${i}`));
  const all = [...synthetic, ...real.map((t) => t.address)];
  await insertChunks(
    db,
    `INSERT INTO tokens (address, name, symbol, source, creator, graduated, current_price, created_height, created_at, metadata_fetched)
     SELECT a, n, s, 'launchpad', c, i % 7 = 0, p, 2, now() - interval '1 day', true
     FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::numeric[]) WITH ORDINALITY AS u(a, n, s, c, p, i)`,
    [
      all,
      all.map((_, i) => (i < synthetic.length ? `Bench ${i}` : `Real ${i - synthetic.length}`)),
      all.map((_, i) => (i < synthetic.length ? `B${i}` : real[i - synthetic.length]!.symbol)),
      all.map(() => wallet),
      all.map(() => String(r.int(1, 2_000_000))),
    ],
  );
  await insertChunks(
    db,
    `INSERT INTO cw20_tokens (token, created_height, initial_holder)
     SELECT t, 2 + i % 1000, h FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS u(t, h, i)`,
    [all, all.map(() => launchpad)],
  );
  await db.query(`UPDATE cw20_state SET complete_from = 1, version = version + 1`);
  // the index's cursor at height 2: the live blocks of the run under writes follow it
  await db.query(
    `INSERT INTO indexer_state (chain_id, first_height, first_block_hash, last_height, last_block_hash, last_block_time)
     VALUES ('bench-wallet', 1, $1, 2, $1, now())`,
    ['0'.repeat(64)],
  );
  // the wallet: HELD − REAL synthetic tokens, 50 more it sold out (zero rows), and the real ones
  const picks = [...synthetic].sort(() => r.next() - 0.5);
  const expected = new Map<string, string>();
  const holders: string[] = [];
  const tokens: string[] = [];
  const balances: string[] = [];
  const put = (holder: string, token: string, balance: string) => {
    holders.push(holder);
    tokens.push(token);
    balances.push(balance);
  };
  for (const token of picks.slice(0, HELD - real.length)) {
    const balance = String(r.int(1, 900_000_000) * 1_000);
    expected.set(token, balance);
    put(wallet, token, balance);
  }
  for (const token of picks.slice(HELD - real.length, HELD - real.length + 50)) put(wallet, token, '0');
  for (const t of real) {
    expected.set(t.address, t.balance);
    put(wallet, t.address, t.balance);
  }
  // other holders, about 20 tokens each
  for (let h = 0; h < HOLDERS; h++) {
    const holder = address(`wallet-bench-holder-${h}`);
    const mine = new Set(Array.from({ length: r.int(5, 35) }, () => r.pick(synthetic)));
    for (const token of mine) put(holder, token, String(r.int(1, 900_000_000) * 1_000));
  }
  await insertChunks(
    db,
    `INSERT INTO cw20_balances (holder, token, balance) SELECT * FROM unnest($1::text[], $2::text[], $3::numeric[])`,
    [holders, tokens, balances],
  );
  await db.exec('ANALYZE');
  return { expected, rows: holders.length };
}

type ServerProcess = BenchChild & { api: string; uncached: string; hello: string };

const startServer = (config: NodeServerConfig) =>
  startBenchChild<{ api: string; uncached: string; hello: string }>(
    new URL('./lib/wallet-bench-server.ts', import.meta.url),
    config,
    { name: 'the wallet bench server' },
  );

// the warm-up also fills the API's set of tokens to read from contracts
const load = (url: string, paths: () => string) =>
  warmLoad(url, paths, { connections: CONNECTIONS, duration: DURATION });

const loadLine = (m: Load) =>
  `${fmt(m.rps).padStart(7)} req/s  p99 ${fmt(m.p99, 1).padStart(6)} ms${m.non2xx ? `  (${m.non2xx} non-2xx or errors)` : ''}`;

interface HoldingJson {
  address: string;
  balance: string;
}

/** The wallet's answer equals the balances written and the contracts' answers; returns its latency. */
async function checkAnswer(api: string, wallet: string, expected: Map<string, string>): Promise<number> {
  const started = performance.now();
  const response = await fetch(`${api}/api/wallet/tokens?address=${wallet}`);
  const ms = performance.now() - started;
  const body = (await response.json()) as { tokens: HoldingJson[] };
  const got = new Map(body.tokens.map((t) => [t.address, t.balance]));
  const wrong = [...expected].filter(([token, balance]) => got.get(token) !== balance);
  if (response.status !== 200 || got.size !== expected.size || wrong.length > 0)
    throw new Error(
      `the answer is not the wallet's holdings: status ${response.status}, ${got.size} tokens, ${wrong.length} wrong`,
    );
  return ms;
}

/** Contract queries per request, exactly: `n` requests one after another. */
async function queriesPerRequest(server: ServerProcess, url: string, n = 20): Promise<number> {
  const before = Number(await server.send('queries', 'queries '));
  for (let i = 0; i < n; i++) await (await fetch(url)).arrayBuffer();
  return (Number(await server.send('queries', 'queries ')) - before) / n;
}

/** Contract queries over a load run (its warm-up included), per request. */
async function loadCounted(server: ServerProcess, origin: string, path: string) {
  const before = Number(await server.send('queries', 'queries '));
  const m = await load(origin, () => path);
  const queries = Number(await server.send('queries', 'queries ')) - before;
  return { m, perRequest: queries / (m.warmup + m.requests) };
}

async function main() {
  console.log(
    `bench:wallet: GET /api/wallet/tokens, a wallet holding ${fmt(HELD)} of ${fmt(TOKENS)} known tokens (${REAL} of them real devnet tokens), ${fmt(HOLDERS)} other holders; ${databaseUrl ? 'TimescaleDB server (DATABASE_URL)' : 'embedded TimescaleDB'}`,
  );
  const devnet = await startDevnetProcess({ blockMs: 100, liveRate: 0 });
  const dataDir = mkdtempSync(path.join(tmpdir(), 'bench-wallet-'));
  const fresh = databaseUrl ? await freshServerDatabase(databaseUrl) : undefined;
  let server: ServerProcess | undefined;
  try {
    const { wallet, tokens: real } = await launchRealTokens(devnet.rpcUrl, devnet.contracts.launchpad);
    console.log(`  the wallet ${wallet} launched and bought ${real.length} tokens on the devnet`);
    const db = await openDatabase({ databaseUrl: fresh?.url, dataDir });
    const started = performance.now();
    const { expected, rows } = await prepare(db, wallet, devnet.contracts.launchpad, real).finally(() => db.close());
    console.log(
      `  prepared ${fmt(TOKENS)} tokens and ${fmt(rows)} balance rows in ${fmt((performance.now() - started) / 1000, 1)} s`,
    );
    server = await startServer({
      databaseUrl: fresh?.url,
      dataDir,
      rpcUrl: devnet.rpcUrl,
      launchpad: devnet.contracts.launchpad,
    });
    const walletPath = `/api/wallet/tokens?address=${wallet}`;
    const apis = { cached: new URL(server.api).origin, computed: new URL(server.uncached).origin };
    // hello-world runs alternate with the wallet runs: each wallet run's ratio is against the
    // hello-world runs just before and after it (the machine's load moves within a run)
    const hello = async () => {
      const m = await load(server!.hello, () => '/hello');
      console.log(`  ${'Polka hello-world'.padEnd(58)} ${loadLine(m)}`);
      return m;
    };
    let before = await hello();
    /** A wallet run's figures and its ratio against the hello-world runs just before and after it. */
    const againstHello = async (label: string, m: Load) => {
      console.log(`  ${label.padEnd(58)} ${loadLine(m)}`);
      const after = await hello();
      const helloRps = (before.requests + after.requests) / (before.seconds + after.seconds);
      before = after;
      return `${fmt(m.rps)} req/s, p99 ${fmt(m.p99, 1)} ms; ratio ${fmt(m.rps / helloRps, 2)} of hello-world (${fmt(helloRps)} req/s around it; target >= 0.1)`;
    };
    const realList = real.map((t) => t.address).join(',') || '-';
    const results: string[] = [];
    for (const [state, vouched] of [
      ['(A) every token vouched for by the index', true],
      [`(B) ${real.length} held tokens read from their contracts`, false],
    ] as const) {
      if (real.length === 0 && !vouched) continue;
      await server.send(`vouch ${vouched ? 1 : 0} ${realList}`, 'vouched');
      // the first answer after the change recomputes which tokens the index vouches for
      const firstMs = await checkAnswer(apis.computed, wallet, expected);
      await checkAnswer(apis.cached, wallet, expected);
      const exact = await queriesPerRequest(server, apis.computed + walletPath);
      results.push(
        `  ${state}: ${fmt(exact, 2)} contract queries per computed answer (20 in a row; target <= ${HELD}, the tokens held); first answer after the change ${fmt(firstMs, 1)} ms`,
      );
      for (const [how, origin] of [
        ['answers cached (as configured)', apis.cached],
        ['every answer computed', apis.computed],
      ] as const) {
        const { m, perRequest } = await loadCounted(server, origin, walletPath);
        results.push(
          `    ${how}: ${await againstHello(`${state.slice(0, 3)} ${how}`, m)}` +
            (how.startsWith('answers cached')
              ? `; ${fmt(perRequest, 3)} contract queries per request over the run`
              : ''),
        );
      }
      if (!vouched) continue;
      // the same as served, while the index commits blocks about other holders and tokens, and
      // every HELD_EVERY-th block a trade of a token the wallet holds (which drops its answer)
      await server.send(`live-start ${BLOCK_MS} ${HELD_EVERY} ${wallet}`, 'live-started');
      const { m } = await loadCounted(server, apis.cached, walletPath);
      const live = JSON.parse(await server.send('live-stop', 'live-stopped ')) as {
        blocks: number;
        late: number;
      };
      await checkAnswer(apis.cached, wallet, expected);
      const how = `answers cached, under live blocks`;
      results.push(
        `    ${how} (${fmt(live.blocks)} blocks written, one per ${BLOCK_MS} ms, ${live.late} late; each with 10 CW20 transfers between other holders and 2 trades; every ${HELD_EVERY}th trades a token the wallet holds, dropping its answer): ${await againstHello(`${state.slice(0, 3)} ${how}`, m)}`,
      );
    }
    console.log('');
    for (const line of results) console.log(line);
    measured(
      `req/s = requests of one ${DURATION} s autocannon run (${CONNECTIONS} connections, one wallet, after a 2 s warm-up) / its duration; ratio against the hello-world runs (same process) just before and after it; contract queries counted in the API process over 20 computed answers in a row, and over the cached runs; each state's answer checked first against the balances written and the devnet contracts' own balance answers`,
    );
  } finally {
    await server?.stop();
    await devnet.stop();
    await fresh?.dispose();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
process.exit(0);
