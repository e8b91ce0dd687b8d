// The README's first command: the service starts with no configuration, prints where
// everything is, and Ctrl-C (SIGINT) stops it cleanly.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { openSse } from './helpers/sse.ts';

function start(env: Record<string, string>): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], { env: { ...process.env, LOG_FORMAT: 'json', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  return { child, output: () => out, exited };
}

const json = async (url: string): Promise<any> => (await fetch(url)).json();

async function waitForOutput(output: () => string, pattern: RegExp, ms = 60_000) {
  const deadline = Date.now() + ms;
  while (!pattern.test(output()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  assert.match(output(), pattern);
}

test('starts, prints where everything is, and stops cleanly on Ctrl-C', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'service-test-'));
  const children: ChildProcess[] = [];
  try {
    const svc = start({ DATA_DIR: dir });
    children.push(svc.child);
    await waitForOutput(svc.output, /is running \(Ctrl-C to stop\)/);
    assert.match(svc.output(), new RegExp(`database\\s+embedded TimescaleDB in ${dir}`));
    assert.ok(existsSync(path.join(dir, 'embedded.lock')), 'the data directory is locked while running');

    // the Launchpad API it printed serves what the devnet's traffic produces
    const api = /launchpad API\s+(http:\/\/\S+?)\/api\/tokens/.exec(svc.output())![1]!;
    assert.match(svc.output(), /node health\s+http:\/\/\S+\/health/);
    assert.is((await json(`${api}/api/health`)).status, 'ok');
    const feed = await openSse(`${api}/api/sse/feed`);
    let trades: { token_address: string }[] = [];
    for (let i = 0; i < 300 && trades.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 200));
      trades = (await json(`${api}/api/trades/recent`)).trades;
    }
    assert.ok(trades.length > 0, 'trades are indexed');
    const candles = (await json(`${api}/api/candles/${trades[0]!.token_address}?timeframe=1m`)).candles;
    assert.ok(candles.length > 0, 'the traded token has candles');
    assert.ok((await json(`${api}/api/tokens`)).tokens.length > 0, 'tokens are listed');
    await feed.until((blocks) => blocks.some((b) => b.event === 'trade'), 30_000);
    feed.close();

    // a second process on the same data directory is refused, naming the owner
    const second = start({ DATA_DIR: dir });
    assert.is(await second.exited, 1);
    assert.match(second.output(), new RegExp(`DATA_DIR ${dir} is in use by process ${svc.child.pid}`));

    svc.child.kill('SIGINT');
    assert.is(await svc.exited, 0);
    assert.match(svc.output(), /"msg":"Stopped"/);
    assert.not.ok(existsSync(path.join(dir, 'embedded.lock')), 'lock released');

    // and it starts again on the same data
    const again = start({ DATA_DIR: dir });
    children.push(again.child);
    await waitForOutput(again.output, /is running/);
    again.child.kill('SIGINT');
    assert.is(await again.exited, 0);
  } finally {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL'); // a failed assertion must not leave a service running
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
