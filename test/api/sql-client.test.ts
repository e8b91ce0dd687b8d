// npm run sql in a pseudo-terminal, as an analyst uses it: the prompt, a query printed as
// psql's aligned table, \d, and an error with a caret under its position; and a query given
// as an argument, from stdin, and as CSV.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify, stripVTControlCharacters } from 'node:util';
import { spawn } from '@lydell/node-pty';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { LaunchpadApi } from '../../src/api/launchpad/server.ts';
import { insertTrades } from '../../src/indexer/trades.ts';
import { openTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { startApi } from '../helpers/launchpad-api.ts';
import { makeTrade } from '../helpers/trades.ts';
import { waitFor } from '../helpers/wait.ts';

const test = suite('npm run sql');
const ctx = {} as { t: TestDatabase; api: LaunchpadApi; home: string };
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLIENT = ['--import', 'tsx', 'scripts/sql.ts'];

test.before(async () => {
  ctx.t = await openTestDatabase();
  const at = Date.UTC(2026, 0, 2, 3, 4, 5);
  await insertTrades(
    ctx.t.db,
    [0, 1, 2].map((i) =>
      makeTrade({
        time: new Date(at + i * 1000),
        blockHeight: 10 + i,
        tokenAddress: i < 2 ? 'native1first' : 'native1second',
      }),
    ),
  );
  ctx.api = await startApi(ctx.t.db, {
    sql: { mode: 'loopback', maxRows: 100, rateLimit: 10_000, timeoutMs: 5_000, maxCost: 250_000 },
  });
  ctx.home = (await import('node:fs')).mkdtempSync('/tmp/sql-client-home-');
});
test.after(async () => {
  await ctx.api?.close();
  await ctx.t?.dispose();
});

const QUERY =
  'SELECT token_address, count(*) AS trades, sum(volume_unative) AS volume FROM trades GROUP BY 1 ORDER BY 1';
const TABLE = [
  ' token_address | trades | volume ',
  '---------------+--------+---------',
  ' native1first  |      2 | 1980000',
  ' native1second |      1 |  990000',
  '(2 rows)',
].join('\n');

test('a query as an argument prints an aligned table', async () => {
  const { stdout } = await promisify(execFile)(process.execPath, [...CLIENT, '--url', ctx.api.url, QUERY], {
    cwd: ROOT,
  });
  assert.is(stdout, `${TABLE}\n`);
});

test('control characters in a value (an escape sequence a token name may hold) are shown as \\xHH, not sent to the terminal', async () => {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [...CLIENT, '--url', ctx.api.url, `SELECT E'a\\x1b]0;pwned\\x07b' AS x, E'c\\td' AS tab, E'one\\ntwo' AS lines`],
    { cwd: ROOT },
  );
  for (const c of ['\u001b', '\u0007', '\t'])
    assert.not.ok(stdout.includes(c), `no ${JSON.stringify(c)} reaches the terminal`);
  assert.match(stdout, /a\\x1B\]0;pwned\\x07b/);
  assert.match(stdout, /c\\x09d/, 'a tab too');
  assert.match(stdout, /one[^\n]*\n[^\n]*two/, 'a newline still breaks the cell, as psql does');
});

test('a query from stdin as CSV; a failed query exits 1 with psql’s error', async () => {
  const run = (sql: string, args: string[]) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = execFile(
        process.execPath,
        [...CLIENT, '--url', ctx.api.url, ...args],
        { cwd: ROOT },
        (error, stdout, stderr) =>
          resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
      child.stdin!.end(sql);
    });
  const csv = await run(`${QUERY};\n`, ['--csv']);
  assert.is(csv.code, 0, csv.stderr);
  assert.is(csv.stdout, 'token_address,trades,volume\nnative1first,2,1980000\nnative1second,1,990000\n');
  const bad = await run('SELECT count(*)\nFROM tradez', []);
  assert.is(bad.code, 1);
  assert.match(bad.stderr, /ERROR: {2}relation tradez is not allowed[^\n]*\nLINE 2: FROM tradez\n {13}\^/);
});

test('the prompt: a query over two lines, \\d, \\d trades, an error with its caret, \\q', async () => {
  const term = spawn(process.execPath, [...CLIENT, '--url', ctx.api.url], {
    cwd: ROOT,
    cols: 200,
    rows: 50,
    env: { ...process.env, HOME: ctx.home, FORCE_COLOR: '0' },
  });
  let screen = '';
  term.onData((d) => {
    screen += d;
  });
  let exited = false;
  term.onExit(() => {
    exited = true;
  });
  const plain = () => stripVTControlCharacters(screen).replace(/\r/g, '');
  const waitForText = async (text: string | RegExp, what: string) => {
    const seen = () => (typeof text === 'string' ? plain().includes(text) : text.test(plain()));
    assert.ok(await waitFor(seen, 20_000), `${what}; the terminal shows:\n${plain().slice(-2000)}`);
  };
  try {
    await waitForText('launchpad=> ', 'the prompt');
    const [first, second] = [QUERY.slice(0, 40), QUERY.slice(40)];
    term.write(`${first}\r`);
    await waitForText('launchpad-> ', 'the continuation prompt');
    term.write(`${second};\r`);
    await waitForText(TABLE, 'the aligned table');
    term.write('\\d\r');
    await waitForText(/List of relations[\s\S]*daily_volume +\| view +\| view: volume/, 'the list of relations');
    term.write('\\d trades\r');
    await waitForText(/Table "trades"[\s\S]*volume_unative +\| amount/, 'the columns of trades');
    term.write('SELECT pg_sleep(1) FROM tokens;\r');
    await waitForText(
      'ERROR:  function pg_sleep is not allowed (docs/sql.md lists what is)\nLINE 1: SELECT pg_sleep(1) FROM tokens\n               ^',
      'the error with its caret',
    );
    term.write('\\q\r');
    assert.ok(await waitFor(() => exited, 10_000), 'the client quit');
    const history = (await import('node:fs')).readFileSync(`${ctx.home}/.launchpad_sql_history`, 'utf8');
    assert.match(history, /SELECT pg_sleep\(1\) FROM tokens;/);
  } finally {
    if (!exited) term.kill();
  }
});

test.run();
