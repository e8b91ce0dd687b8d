// `npm test`: runs every test/**/*.test.ts file (uvu) in its own process, three at a time on
// two cores, once on the embedded TimescaleDB and once on a TimescaleDB server (a file that
// never meets the server runs once), and prints a line per file as it ends, one per run
// ("embedded: N passed, N failed") and one in all ("N passed, N failed").
//
// The server is TEST_DATABASE_URL when set, else a testcontainers TimescaleDB when a Docker
// engine answers, else a throwaway PostgreSQL cluster with the TimescaleDB extension made
// from this machine's binaries for the run (test/helpers/postgres-server.ts). Without one the
// server run is skipped with the reason, except under CI=true, where that is a failure. When
// a server process of a cluster the runner started crashed, the run ends with the server's
// lines about it (the signal, and the statement it ran).
//
// The server run leaves out the files about the embedded database alone (EMBEDDED_ONLY_FILES).
// The files that read the node's wire forms (PROTOCOL_FILES: indexer, SSE, Chain API) run again
// on the embedded database with the devnet speaking Tendermint 0.34 and CometBFT 0.37
// (DEVNET_COMET_VERSION; docs/real-chains.md), one line each ("devnet 0.34: N passed, …").
// All the runs' files share one pool of workers.
//
//   npm test -- candles devnet     files whose path contains one of the words
//   npm test -- --db embedded      one database only (embedded | server | both, the default)
//   npm test -- --protocols none   no protocol runs (default 0.34,0.37)
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { parseArgs, stripVTControlCharacters } from 'node:util';
import { type ServerOrReason, startPostgresServer } from '../test/helpers/postgres-server.ts';

const root = path.resolve(import.meta.dirname, '..');
const { values, positionals } = parseArgs({
  options: { db: { type: 'string', default: 'both' }, protocols: { type: 'string', default: '0.34,0.37' } },
  allowPositionals: true,
});
const databases = values.db === 'both' ? (['embedded', 'server'] as const) : ([values.db] as ('embedded' | 'server')[]);
if (!databases.every((d) => d === 'embedded' || d === 'server')) {
  console.error(`--db must be embedded, server or both (got ${values.db})`);
  process.exit(2);
}
const protocols = values.protocols === 'none' ? [] : (values.protocols ?? '').split(',').filter(Boolean);
if (!protocols.every((p) => p === '0.34' || p === '0.37' || p === '0.38')) {
  console.error(`--protocols must be none or a comma-separated list of 0.34, 0.37, 0.38 (got ${values.protocols})`);
  process.exit(2);
}
/**
 * The files whose code reads the node's wire forms run again on the devnet in each older
 * protocol: blocks, results and the NewBlock subscription into trades, tokens, the chain
 * index and the outbox (indexer: every trade checked against the ledger), each version's
 * block events, the live feed from new blocks, and the Chain API's events and logs as each
 * protocol's txs are stored. The Launchpad API's tokens and candles are read from those
 * rows alone, so they run once.
 */
const PROTOCOL_FILES = [
  'test/indexer/indexer.test.ts',
  'test/indexer/block-events.test.ts',
  'test/api/feed.test.ts',
  'test/chain-api/txs.test.ts',
];

/**
 * Files about the embedded database alone (its adapter, its restart, its psql shell), which
 * never touch a server: the server run leaves them out, saying so.
 */
const EMBEDDED_ONLY_FILES = [
  'test/db/seam-embedded.test.ts',
  'test/db/embedded-reopen.test.ts',
  'test/db/db-shell.test.ts',
];

/** A whole number of at least 1 from the environment, or the default; anything else stops the run. */
function positiveInteger(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (Number.isInteger(value) && value >= 1) return value;
  console.error(`${name} must be a whole number of at least 1 (got ${JSON.stringify(raw)})`);
  process.exit(2);
}
// One file more than the cores: a file waits for blocks, child processes and timers about a
// quarter of its time (two files at a time kept 2 cores 88% busy, three 95%).
const concurrency = positiveInteger('TEST_CONCURRENCY', Math.min(3, availableParallelism() + 1));
const timeoutMs = positiveInteger('TEST_FILE_TIMEOUT_MS', 10 * 60_000);
const LINGER_MS = 30_000;

function findTests(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return findTests(full);
    return name.endsWith('.test.ts') ? [full] : [];
  });
}

const files = findTests(path.join(root, 'test'))
  .map((f) => path.relative(root, f))
  .filter((f) => positionals.length === 0 || positionals.some((s) => f.includes(s)))
  .sort();

// Every run's files share one pool of workers, longest first by how long each took last time
// (.tmp/test-durations.json, written after every run; on a fresh clone, the files known to
// take longest): a long file started last would leave the other worker idle until it ends,
// once per run when the runs went one after the other.
const DURATIONS_FILE = path.join(root, '.tmp/test-durations.json');
const durations = new Map<string, number>();
try {
  for (const [key, ms] of Object.entries(JSON.parse(readFileSync(DURATIONS_FILE, 'utf8'))))
    if (typeof ms === 'number') durations.set(key, ms);
} catch {
  // none yet: KNOWN_SLOW
}
/** Seconds the slowest files took on the embedded run of a 2-core machine: the order of a fresh clone's first run. */
const KNOWN_SLOW: Record<string, number> = {
  'test/indexer/faults.test.ts': 95,
  'test/service.test.ts': 60,
  'test/web/dashboard.test.ts': 48,
  'test/indexer/provider-faults.test.ts': 45,
  'test/indexer/backfill.test.ts': 42,
  'test/db/migrate.test.ts': 37,
  'test/chain-api/blocks.test.ts': 32,
  'test/wallet/holdings.test.ts': 29,
  'test/api/feed.test.ts': 27,
};
const durationKey = (run: string, file: string) => `${run} ${file}`;
const expectedMs = (run: string, file: string) =>
  durations.get(durationKey(run, file)) ?? durations.get(file) ?? (KNOWN_SLOW[file] ?? 0) * 1000;

/**
 * Whether a file can meet the server: it, or a file of test/ it imports or starts, reads
 * TEST_DATABASE_URL (test/helpers/database.ts gives files their databases from it). A file
 * that cannot runs the same on the server run as on the embedded one, so it runs once.
 */
function meetsServer(file: string, seen = new Set<string>()): boolean {
  if (seen.has(file)) return false;
  seen.add(file);
  let text: string;
  try {
    text = readFileSync(path.join(root, file), 'utf8');
  } catch {
    return false;
  }
  if (text.includes('TEST_DATABASE_URL')) return true;
  const dir = path.dirname(path.join(root, file));
  const imported = [...text.matchAll(/(?:from|import\()\s*['"](\.{1,2}\/[^'"]+)['"]/g)].map((m) =>
    path.relative(root, path.resolve(dir, m[1]!)),
  );
  const started = [...text.matchAll(/['"](test\/[^'"]+\.ts)['"]/g)].map((m) => m[1]!);
  return [...imported, ...started].some((f) => f.startsWith('test/') && meetsServer(f, seen));
}

interface Outcome {
  file: string;
  passed: number;
  failed: number;
  skipped: number;
  ms: number;
  output: string;
  crashed?: string;
}

const strip = (s: string) => stripVTControlCharacters(s);
const count = (out: string, label: string) => Number(new RegExp(`^\\s*${label}:\\s+(\\d+)`, 'm').exec(out)?.[1] ?? 0);
/** Lines a test file prints to say why it skips something ("Skipping …"). */
const skipReasons = (out: string) =>
  out
    .split('\n')
    .filter((l) => /^\s*Skipping\b/.test(l))
    .map((l) => l.trim());

function runFile(file: string, env: NodeJS.ProcessEnv): Promise<Outcome> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', file], {
      cwd: root,
      env: { ...env, FORCE_COLOR: '0', NODE_ENV: 'test' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    // uvu prints its summary when a file's tests are done; a process still alive long after
    // that holds something open (a server, a socket) and would only wait for the timeout
    let lingering: NodeJS.Timeout | undefined;
    const watchForSummary = () => {
      if (lingering || !/Duration:/.test(output)) return;
      lingering = setTimeout(() => {
        output += `\n(the file did not exit within ${LINGER_MS / 1000} s of finishing its tests: something was left open)\n`;
        child.kill('SIGKILL');
      }, LINGER_MS);
    };
    child.stdout.on('data', watchForSummary);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      clearTimeout(lingering);
      const text = strip(output);
      // uvu's Total counts the tests that ran; skipped ones are apart from it
      const total = count(text, 'Total');
      const passed = count(text, 'Passed');
      const skipped = count(text, 'Skipped');
      let failed = Math.max(0, total - passed);
      let crashed: string | undefined;
      if (signal)
        crashed = lingering
          ? 'did not exit after its tests'
          : `killed by ${signal}${signal === 'SIGKILL' ? ` (timeout ${timeoutMs} ms)` : ''}`;
      else if (code !== 0 && failed === 0) crashed = `exited with code ${code}`;
      else if (total === 0 && skipped === 0) crashed = 'ran no test';
      if (crashed) failed = Math.max(failed, 1);
      resolve({ file, passed, failed, skipped, ms: Date.now() - started, output: text, crashed });
    });
  });
}

interface Run {
  /** Its name in the summary and in each file's line: embedded, server, devnet 0.34, … */
  name: string;
  env: NodeJS.ProcessEnv;
  files: string[];
  outcomes: Outcome[];
}

const report = (run: Run, o: Outcome) => {
  const mark = o.failed ? 'FAIL' : 'ok  ';
  const counts = `${o.passed} passed${o.failed ? `, ${o.failed} failed` : ''}${o.skipped ? `, ${o.skipped} skipped` : ''}`;
  console.log(
    `${mark} ${`[${run.name}]`.padEnd(14)} ${o.file}  ${counts}  (${(o.ms / 1000).toFixed(1)}s)${o.crashed ? `  [${o.crashed}]` : ''}`,
  );
  if (o.skipped) for (const reason of skipReasons(o.output)) console.log(`     ${reason}`);
  if (o.failed || process.env.TEST_VERBOSE) console.log(o.output.replace(/^/gm, '    │ '));
};

/**
 * Runs every run's files in one pool of `concurrency` workers, longest first; a file never
 * runs in two runs at once (a file may write to fixed paths, such as .tmp/e2e/).
 */
async function runAll(runs: Run[]): Promise<void> {
  const queue = runs
    .flatMap((run) => run.files.map((file) => ({ run, file })))
    .sort((a, b) => expectedMs(b.run.name, b.file) - expectedMs(a.run.name, a.file));
  const running = new Set<string>();
  const waiting: (() => void)[] = [];
  const worker = async (): Promise<void> => {
    while (queue.length > 0) {
      const next = queue.findIndex((job) => !running.has(job.file));
      if (next === -1) {
        // every file left is running in another run: wait for one to end
        await new Promise<void>((resolve) => waiting.push(resolve));
        continue;
      }
      const [{ run, file }] = queue.splice(next, 1) as [{ run: Run; file: string }];
      running.add(file);
      const o = await runFile(file, run.env);
      running.delete(file);
      for (const resume of waiting.splice(0)) resume();
      run.outcomes.push(o);
      durations.set(durationKey(run.name, file), o.ms);
      report(run, o);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, concurrency) }, worker));
}

if (files.length === 0) {
  console.log(`No test file matches ${positionals.join(' ')}`);
  process.exit(1);
}

const started = Date.now();
const runs: Run[] = [];
const summaries: { db: string; passed: number; failed: number; skipped: number }[] = [];
const withoutServer = () => {
  const env = { ...process.env };
  delete env.TEST_DATABASE_URL;
  return env;
};

if (databases.includes('embedded')) runs.push({ name: 'embedded', env: withoutServer(), files, outcomes: [] });

let server: ServerOrReason | undefined;
if (databases.includes('server')) {
  server = await startPostgresServer();
  if ('skip' in server || !server.timescale) {
    const reason =
      'skip' in server
        ? server.skip
        : 'the PostgreSQL server binaries here have no TimescaleDB extension (see Tests in the README)';
    console.log(`Skipping the server run: ${reason}`);
    if ('skip' in server === false) await server.stop();
    server = undefined;
    // CI must prove the production path: a missing server fails the run there
    summaries.push({ db: 'server', passed: 0, failed: process.env.CI === 'true' ? 1 : 0, skipped: 0 });
  } else {
    const embeddedOnly = files.filter((f) => EMBEDDED_ONLY_FILES.includes(f));
    // a file that never meets the server runs the same on both: once is enough, on the embedded run
    // (or here, when the server run is the only one)
    const serverless = databases.includes('embedded')
      ? files.filter((f) => !embeddedOnly.includes(f) && !meetsServer(f))
      : [];
    console.log(`The server run: ${server.description}`);
    if (embeddedOnly.length > 0)
      console.log(`  not run on the server (about the embedded database alone): ${embeddedOnly.join(', ')}`);
    if (serverless.length > 0)
      console.log(`  not run on the server (they never open a database there): ${serverless.length} files`);
    runs.push({
      name: 'server',
      env: { ...process.env, TEST_DATABASE_URL: server.url },
      files: files.filter((f) => !embeddedOnly.includes(f) && !serverless.includes(f)),
      outcomes: [],
    });
  }
}

const protocolFiles = files.filter((f) => PROTOCOL_FILES.includes(f));
for (const protocol of protocolFiles.length > 0 ? protocols : [])
  runs.push({
    name: `devnet ${protocol}`,
    env: { ...withoutServer(), DEVNET_COMET_VERSION: protocol },
    files: protocolFiles,
    outcomes: [],
  });
if (protocolFiles.length > 0 && protocols.length > 0)
  console.log(
    `The devnet runs: ${protocolFiles.length} end-to-end files again on the embedded database, the devnet speaking ${protocols.map((p) => `${p === '0.34' ? 'Tendermint' : 'CometBFT'} ${p}`).join(' and ')}`,
  );
console.log('');

try {
  await runAll(runs);
} finally {
  if (server && !('skip' in server)) {
    // a crashed server process fails every file on the server at that moment: say so, with
    // the statement it ran, rather than leave a scatter of lost connections unexplained
    const crashes = server.crashes?.() ?? [];
    if (crashes.length > 0) console.log(`\nThe server run's PostgreSQL logged a crash:\n  ${crashes.join('\n  ')}`);
    await server.stop();
  }
}
for (const run of runs) {
  const sum = (k: 'passed' | 'failed' | 'skipped') => run.outcomes.reduce((n, o) => n + o[k], 0);
  summaries.push({ db: run.name, passed: sum('passed'), failed: sum('failed'), skipped: sum('skipped') });
}
const order = ['embedded', 'server'];
summaries.sort((a, b) => (order.indexOf(a.db) + 1 || 9) - (order.indexOf(b.db) + 1 || 9));

mkdirSync(path.dirname(DURATIONS_FILE), { recursive: true });
// by run and file (keys of a file alone are of an older runner: read once, then left out)
const byRun = [...durations].filter(([key]) => key.includes(' '));
writeFileSync(DURATIONS_FILE, `${JSON.stringify(Object.fromEntries(byRun), null, 1)}\n`);

const line = (s: { passed: number; failed: number; skipped: number }) =>
  `${s.passed} passed, ${s.failed} failed${s.skipped ? `, ${s.skipped} skipped` : ''}`;
console.log(
  `\n${files.length} files, ${summaries.map((s) => s.db).join(', ')}, in ${((Date.now() - started) / 1000).toFixed(1)}s`,
);
for (const s of summaries) console.log(`${s.db}: ${line(s)}`);
const total = summaries.reduce(
  (t, s) => ({ passed: t.passed + s.passed, failed: t.failed + s.failed, skipped: t.skipped + s.skipped }),
  { passed: 0, failed: 0, skipped: 0 },
);
console.log(line(total));
process.exit(total.failed > 0 ? 1 : 0);
