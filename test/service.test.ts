// The README's first command: the service starts with no configuration but its data
// directory and ports (0 everywhere: any free port, so nothing already listening on the
// defaults is in the way), prints where everything is, and Ctrl-C (SIGINT) stops it cleanly. Then, on the embedded database or on
// the TimescaleDB server (TEST_DATABASE_URL): SIGTERM lets requests in flight finish and ends
// the live feed; a database that holds another chain's index stops start-up with exit code 3;
// the container healthcheck (scripts/healthcheck.mjs) follows /api/health.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { childDatabase } from './helpers/database.ts';
import { getJson } from './helpers/http.ts';
import { openSse } from './helpers/sse.ts';
import { waitFor, within } from './helpers/wait.ts';

const serverUrl = process.env.TEST_DATABASE_URL;
const CONTINUE = 'HTTP/1.1 100 Continue\r\n\r\n';
/**
 * A GET on a connection of its own, with `Expect: 100-continue`: Node's server writes the
 * interim 100 when it has read the request and hands it to the app, so `started` resolves
 * once the request is in the server's hands (never before). `response` is everything the
 * server sent after that 100.
 */
function rawGet(port: string, route: string): { started: Promise<void>; response: Promise<string> } {
  const socket = net.connect(Number(port), '127.0.0.1', () =>
    socket.write(`GET ${route} HTTP/1.1\r\nHost: 127.0.0.1\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n`),
  );
  let text = '';
  const started = new Promise<void>((resolve, reject) => {
    socket.on('data', (d) => {
      text += d;
      if (text.startsWith(CONTINUE)) resolve();
    });
    socket.on('error', reject);
    socket.on('close', () => reject(new Error(`${route}: closed before the server took the request: ${text}`)));
  });
  started.catch(() => {}); // observed through `response` too
  const response = new Promise<string>((resolve) =>
    socket.on('close', () => resolve(text.startsWith(CONTINUE) ? text.slice(CONTINUE.length) : text)),
  );
  return { started, response };
}
const STACK_TRACE = /^\s+at .+\(.+:\d+:\d+\)$/m;
/**
 * The whole environment of a child: what any process needs (PATH, HOME, TMPDIR), then what
 * the test sets. Nothing else of the shell's reaches it (a DATABASE_URL or a port there would
 * change what is tested).
 */
const baseEnv = (): Record<string, string> =>
  Object.fromEntries(
    ['PATH', 'HOME', 'TMPDIR'].flatMap((k) => (process.env[k] === undefined ? [] : [[k, process.env[k]!]])),
  );
/** Every port the service opens, as any free port: it prints the addresses it bound. */
const ANY_PORTS = { LAUNCHPAD_API_PORT: '0', CHAIN_API_PORT: '0', RPC_PORT: '0', DEVNET_RPC_PORT: '0' };
const healthcheck = (port: string) =>
  spawnSync(process.execPath, ['scripts/healthcheck.mjs'], {
    env: { ...baseEnv(), HOST: '127.0.0.1', LAUNCHPAD_API_PORT: port },
    encoding: 'utf8',
  });

function start(env: Record<string, string>): {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
} {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    env: { ...baseEnv(), LOG_FORMAT: 'json', ...ANY_PORTS, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  return { child, output: () => out, exited };
}

async function waitForOutput(output: () => string, pattern: RegExp, ms = 60_000) {
  await waitFor(() => pattern.test(output()), ms, 100);
  assert.match(output(), pattern);
}

/** The addresses a running service printed, each on a port of its own choosing (never a default one). */
function endpoints(output: string) {
  const printed = (pattern: RegExp, what: string) => {
    const url = pattern.exec(output)?.[1];
    assert.ok(url, `the service printed the ${what}: ${output}`);
    const port = Number(new URL(url).port);
    assert.ok(port > 0 && ![3000, 1317, 26657, 26667].includes(port), `the ${what} is on a free port, not ${port}`);
    return url;
  };
  return {
    launchpadApi: printed(/launchpad API\s+(http:\/\/\S+?)\/api\/tokens/, 'Launchpad API'),
    chainApi: printed(/chain API\s+(http:\/\/\S+?)\/cosmos\//, 'Chain API'),
    nodeHealth: printed(/node health\s+(http:\/\/\S+\/health)/, 'node health'),
    devnetRpc: printed(/CometBFT [\d.]+ RPC (http:\/\/\S+)/, "devnet's RPC"),
  };
}

test('starts, prints where everything is, and stops cleanly on Ctrl-C', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'service-test-'));
  const children: ChildProcess[] = [];
  try {
    const svc = start({ DATA_DIR: dir, DATABASE_URL: '' });
    children.push(svc.child);
    await waitForOutput(svc.output, /is running \(Ctrl-C to stop\)/);
    assert.match(svc.output(), new RegExp(`database\\s+embedded TimescaleDB in ${dir}`));
    assert.ok(existsSync(path.join(dir, 'embedded.lock')), 'the data directory is locked while running');

    // every address it printed answers as what it is
    const bound = endpoints(svc.output());
    const api = bound.launchpadApi;
    // (busy catching up at start, the embedded database may miss health's 3 s bound for a while)
    let health: unknown;
    assert.ok(
      await waitFor(
        async () => {
          health = (await getJson(`${api}/api/health`)).body;
          return (health as { status?: string }).status === 'ok';
        },
        60_000,
        500,
      ),
      `the Launchpad API is healthy within 60 s: ${JSON.stringify(health)}`,
    );
    assert.equal((await getJson(bound.nodeHealth)).body, { jsonrpc: '2.0', id: -1, result: {} }, 'node health');
    const status = (await getJson(`${bound.devnetRpc}/status`)).body;
    assert.is(status.result.node_info.network, 'native-devnet-1', "the devnet's RPC");
    const latest = await getJson(`${bound.chainApi}/cosmos/base/tendermint/v1beta1/blocks/latest`);
    assert.is(latest.status, 200, 'the Chain API');
    assert.is(latest.body.block.header.chain_id, 'native-devnet-1');
    // the Launchpad API serves what the devnet's traffic produces
    const feed = await openSse(`${api}/api/sse/feed`);
    let trades: { token_address: string }[] = [];
    assert.ok(
      await waitFor(
        async () => {
          trades = (await getJson(`${api}/api/trades/recent`)).body.trades;
          return trades.length > 0;
        },
        60_000,
        200,
      ),
      'trades are indexed within 60 s',
    );
    const candles = (await getJson(`${api}/api/candles/${trades[0]!.token_address}?timeframe=1m`)).body.candles;
    assert.ok(candles.length > 0, 'the traded token has candles');
    assert.ok((await getJson(`${api}/api/tokens`)).body.tokens.length > 0, 'tokens are listed');
    await feed.until((blocks) => blocks.some((b) => b.event === 'trade'), 30_000);
    feed.close();

    // a second process on the same data directory is refused, naming the owner
    const second = start({ DATA_DIR: dir, DATABASE_URL: '' });
    assert.is(await second.exited, 1);
    assert.match(second.output(), new RegExp(`DATA_DIR ${dir} is in use by process ${svc.child.pid}`));

    svc.child.kill('SIGINT');
    assert.is(await svc.exited, 0);
    assert.match(svc.output(), /"msg":"Stopped"/);
    assert.not.ok(existsSync(path.join(dir, 'embedded.lock')), 'lock released');

    // and it starts again on the same data
    const again = start({ DATA_DIR: dir, DATABASE_URL: '' });
    children.push(again.child);
    await waitForOutput(again.output, /is running/);
    again.child.kill('SIGINT');
    assert.is(await again.exited, 0);
  } finally {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL'); // a failed assertion must not leave a service running
    rmSync(dir, { recursive: true, force: true });
  }
});

test(`SIGTERM finishes requests in flight, ends the live feed and exits 0 (${serverUrl ? 'TimescaleDB server' : 'embedded database'})`, async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'service-test-'));
  const database = await childDatabase();
  let svc: ReturnType<typeof start> | undefined;
  try {
    svc = start({ DATA_DIR: dir, ...database.env });
    await waitForOutput(svc.output, /is running/);
    const api = endpoints(svc.output()).launchpadApi;
    const port = new URL(api).port;
    assert.ok(
      await waitFor(async () => (await getJson(`${api}/api/trades/recent`)).body.trades.length > 0, 60_000, 200),
      'trades are indexed within 60 s',
    );

    // the container healthcheck says healthy while /api/health says ok
    let healthy = healthcheck(port);
    assert.ok(
      await waitFor(
        () => {
          healthy = healthcheck(port);
          return healthy.status === 0;
        },
        60_000,
        500,
      ),
      `the healthcheck says healthy within 60 s: ${healthy.stderr}`,
    );

    const feed = await openSse(`${api}/api/sse/feed`);
    await feed.until((blocks) => blocks.some((b) => b.comments.includes('connected')), 10_000);
    // requests the server has taken when the signal arrives (it wrote their 100 Continue)
    const inFlight = ['/api/tokens', '/api/trades/recent?limit=100', '/metrics', '/api/health'].map((route) =>
      rawGet(port, route),
    );
    await within(Promise.all(inFlight.map((r) => r.started)), 10_000, 'the server to take the four requests');
    svc.child.kill('SIGTERM');
    for (const [i, answer] of (await Promise.all(inFlight.map((r) => r.response))).entries()) {
      // (health may say 503 if the database misses its 3 s bound under load: answered all the same)
      const ok = i === 3 ? /^HTTP\/1\.1 (200|503) / : /^HTTP\/1\.1 200 /;
      assert.match(answer, ok, `request ${i} answered: ${answer.slice(0, 100)}`);
      const [head, body] = answer.split('\r\n\r\n');
      const length = /content-length: (\d+)/i.exec(head!)?.[1];
      if (length) assert.is(Buffer.byteLength(body!), Number(length), `request ${i} has its whole body`);
    }
    assert.is(await feed.ended, 'end', 'the server ended the SSE stream');
    assert.is(await svc.exited, 0);
    assert.match(svc.output(), /"msg":"Stopped"/);
    assert.not.match(svc.output(), STACK_TRACE, 'no stack trace');
    assert.not.match(svc.output(), /"level":(50|60)/, 'no error logged');

    // nothing listens now: the healthcheck says unhealthy
    assert.is(healthcheck(port).status, 1);
  } finally {
    if (svc?.child.exitCode === null) svc.child.kill('SIGKILL');
    await database.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
});

test(`an index of another chain stops start-up with exit code 3 and says what to do (${serverUrl ? 'TimescaleDB server' : 'embedded database'})`, async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'service-test-'));
  const database = await childDatabase();
  const env = { DATA_DIR: dir, ...database.env };
  try {
    const first = start(env);
    await waitForOutput(first.output, /"msg":"Indexed (a block|blocks)"/);
    first.child.kill('SIGTERM');
    assert.is(await first.exited, 0);
    // the devnet starts again from genesis: a new chain under the same chain id
    rmSync(path.join(dir, 'devnet'), { recursive: true, force: true });
    const second = start(env);
    assert.is(await second.exited, 3);
    assert.match(second.output(), /Refused to start: .*(another|different|hash)/i);
    assert.match(second.output(), /another DATA_DIR, or another DATABASE_URL/);
    assert.not.match(second.output(), /is running/, 'nothing was served');
    assert.not.match(second.output(), STACK_TRACE, 'no stack trace');
  } finally {
    await database.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
