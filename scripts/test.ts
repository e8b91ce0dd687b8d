// `npm test`: runs every test/**/*.test.ts file (uvu) in its own process, two at a time,
// once on the embedded TimescaleDB and once on a TimescaleDB server, and prints one line
// per database ("embedded: N passed, N failed") and one in all ("N passed, N failed").
//
// The server is TEST_DATABASE_URL when set, else a testcontainers TimescaleDB when a Docker
// engine answers, else a throwaway PostgreSQL cluster with the TimescaleDB extension made
// from this machine's binaries for the run (test/helpers/postgres-server.ts). Without one the
// server run is skipped with the reason, except under CI=true, where that is a failure.
//
// The server run leaves out the files about the embedded database alone (EMBEDDED_ONLY_FILES).
// Then the end-to-end files (PROTOCOL_FILES: indexer, Launchpad API, SSE, Chain API) run
// again on the embedded database with the devnet speaking Tendermint 0.34 and CometBFT 0.37
// (DEVNET_COMET_VERSION; docs/real-chains.md), one line each ("devnet 0.34: N passed, …").
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
 * The end-to-end files run again on the devnet in each older protocol: the whole pipeline
 * (blocks → trades, candles, SSE, the Chain API) on each wire form.
 */
const PROTOCOL_FILES = [
  'test/indexer/indexer.test.ts',
  'test/indexer/block-events.test.ts',
  'test/api/tokens.test.ts',
  'test/api/candles.test.ts',
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
const concurrency = positiveInteger('TEST_CONCURRENCY', Math.min(2, availableParallelism()));
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

// Files start longest first, by how long they took last time (in an earlier run of this
// command, such as the embedded run before the server's, or in the command before, kept in
// .tmp/): a long file started last would leave the other worker idle until it ends.
const DURATIONS_FILE = path.join(root, '.tmp/test-durations.json');
const durations = new Map<string, number>();
try {
  for (const [key, ms] of Object.entries(JSON.parse(readFileSync(DURATIONS_FILE, 'utf8'))))
    if (typeof ms === 'number') durations.set(key, ms);
} catch {
  // none yet: alphabetical order
}
const longestFirst = (which: string[]) => [...which].sort((a, b) => (durations.get(b) ?? 0) - (durations.get(a) ?? 0));

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

async function runAll(label: string, env: NodeJS.ProcessEnv, which = files): Promise<Outcome[]> {
  console.log(`\n── ${label} ──`);
  const outcomes: Outcome[] = [];
  const queue = longestFirst(which);
  const worker = async () => {
    for (let file = queue.shift(); file; file = queue.shift()) {
      const o = await runFile(file, env);
      outcomes.push(o);
      durations.set(file, o.ms);
      const mark = o.failed ? 'FAIL' : 'ok  ';
      console.log(
        `${mark} ${o.file}  ${o.passed} passed${o.failed ? `, ${o.failed} failed` : ''}${o.skipped ? `, ${o.skipped} skipped` : ''}  (${(o.ms / 1000).toFixed(1)}s)${o.crashed ? `  [${o.crashed}]` : ''}`,
      );
      if (o.skipped) for (const reason of skipReasons(o.output)) console.log(`     ${reason}`);
      if (o.failed || process.env.TEST_VERBOSE) console.log(o.output.replace(/^/gm, '    │ '));
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, concurrency) }, worker));
  return outcomes;
}

if (files.length === 0) {
  console.log(`No test file matches ${positionals.join(' ')}`);
  process.exit(1);
}

const started = Date.now();
const summaries: { db: string; passed: number; failed: number; skipped: number }[] = [];
const summarize = (db: string, outcomes: Outcome[]) => {
  const sum = (k: 'passed' | 'failed' | 'skipped') => outcomes.reduce((n, o) => n + o[k], 0);
  summaries.push({ db, passed: sum('passed'), failed: sum('failed'), skipped: sum('skipped') });
};
const line = (s: { passed: number; failed: number; skipped: number }) =>
  `${s.passed} passed, ${s.failed} failed${s.skipped ? `, ${s.skipped} skipped` : ''}`;

for (const db of databases) {
  if (db === 'embedded') {
    const env = { ...process.env };
    delete env.TEST_DATABASE_URL;
    summarize('embedded', await runAll('embedded TimescaleDB', env));
    continue;
  }
  const server: ServerOrReason = await startPostgresServer();
  if ('skip' in server || !server.timescale) {
    const reason =
      'skip' in server
        ? server.skip
        : 'the PostgreSQL server binaries here have no TimescaleDB extension (see Tests in the README)';
    console.log(`\n── TimescaleDB server ──\nSkipping the server run: ${reason}`);
    if ('skip' in server === false) await server.stop();
    // CI must prove the production path: a missing server fails the run there
    summaries.push({ db: 'server', passed: 0, failed: process.env.CI === 'true' ? 1 : 0, skipped: 0 });
    continue;
  }
  try {
    const embeddedOnly = files.filter((f) => EMBEDDED_ONLY_FILES.includes(f));
    const outcomes = await runAll(
      `TimescaleDB server (${server.description})`,
      { ...process.env, TEST_DATABASE_URL: server.url },
      files.filter((f) => !embeddedOnly.includes(f)),
    );
    if (embeddedOnly.length > 0)
      console.log(`not run on the server (about the embedded database alone): ${embeddedOnly.join(', ')}`);
    summarize('server', outcomes);
  } finally {
    await server.stop();
  }
}

const protocolFiles = files.filter((f) => PROTOCOL_FILES.includes(f));
for (const protocol of protocolFiles.length > 0 ? protocols : []) {
  const env: NodeJS.ProcessEnv = { ...process.env, DEVNET_COMET_VERSION: protocol };
  delete env.TEST_DATABASE_URL;
  summarize(
    `devnet ${protocol}`,
    await runAll(
      `the devnet speaking ${protocol === '0.34' ? 'Tendermint' : 'CometBFT'} ${protocol}, embedded TimescaleDB`,
      env,
      protocolFiles,
    ),
  );
}

mkdirSync(path.dirname(DURATIONS_FILE), { recursive: true });
writeFileSync(DURATIONS_FILE, `${JSON.stringify(Object.fromEntries(durations), null, 1)}\n`);

const runs = [...databases, ...(protocolFiles.length > 0 ? protocols.map((p) => `devnet ${p}`) : [])];
console.log(`\n${files.length} files, ${runs.join(', ')}, in ${((Date.now() - started) / 1000).toFixed(1)}s`);
for (const s of summaries) console.log(`${s.db}: ${line(s)}`);
const total = summaries.reduce(
  (t, s) => ({ passed: t.passed + s.passed, failed: t.failed + s.failed, skipped: t.skipped + s.skipped }),
  { passed: 0, failed: 0, skipped: 0 },
);
console.log(line(total));
process.exit(total.failed > 0 ? 1 : 0);
