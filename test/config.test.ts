// Configuration: the documented defaults, and a bad value stops start-up naming the variable.
import { spawnSync } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ConfigError, DEFAULT_DEVNET_MNEMONIC, loadConfig } from '../src/config.ts';

test('with no environment every setting has its documented default', () => {
  const c = loadConfig({});
  assert.is(c.DATABASE_URL, undefined);
  assert.is(c.CHAIN_RPC_URL, undefined);
  assert.is(c.DATA_DIR, './data');
  assert.is(c.HOST, '127.0.0.1');
  assert.is(c.CHAIN_API_PORT, 1317);
  assert.is(c.LAUNCHPAD_API_PORT, 3000);
  assert.is(c.RPC_PORT, 26657);
  assert.is(c.DEVNET_RPC_PORT, 26667);
  assert.is(c.DEVNET_BLOCK_MS, 1000);
  assert.is(c.DEVNET_MNEMONIC, DEFAULT_DEVNET_MNEMONIC);
  assert.is(c.POLL_INTERVAL_MS, 5000);
});

test('values are read from the environment and typed', () => {
  const c = loadConfig({
    DATABASE_URL: 'postgres://u:p@db:5432/x',
    CHAIN_API_PORT: '8080',
    POLL_INTERVAL_MS: '250',
    DATA_DIR: 'memory://',
  });
  assert.is(c.DATABASE_URL, 'postgres://u:p@db:5432/x');
  assert.is(c.CHAIN_API_PORT, 8080);
  assert.is(c.POLL_INTERVAL_MS, 250);
  assert.is(c.DATA_DIR, 'memory://');
});

test('an empty variable counts as unset', () => {
  assert.is(loadConfig({ DATABASE_URL: '', CHAIN_RPC_URL: '  ' }).DATABASE_URL, undefined);
});

test('every bad variable is reported by name with what is wrong', () => {
  const err = (() => {
    try {
      loadConfig({
        CHAIN_API_PORT: 'http',
        RPC_PORT: '70000',
        DATABASE_URL: 'mysql://x',
        CHAIN_RPC_URL: 'not a url',
        POLL_INTERVAL_MS: '-5',
        LOG_LEVEL: 'loud',
        CANDLE_REFRESH_CRON: 'soon',
      });
    } catch (e) {
      return e;
    }
  })();
  assert.instance(err, ConfigError);
  const problems = (err as ConfigError).problems.join('\n');
  for (const name of [
    'CHAIN_API_PORT',
    'RPC_PORT',
    'DATABASE_URL',
    'CHAIN_RPC_URL',
    'POLL_INTERVAL_MS',
    'LOG_LEVEL',
    'CANDLE_REFRESH_CRON',
  ]) {
    assert.match(problems, new RegExp(`^${name}=`, 'm'), `${name} is named`);
  }
  assert.match(problems, /RPC_PORT="70000": must be a port number from 0 \(any free port\) to 65535/);
  assert.match(problems, /DATABASE_URL="mysql:\/\/x": must be a URL starting with postgres:\/\/ or postgresql:\/\//);
});

test('npm start with a bad value exits non-zero before starting anything, naming the variable', () => {
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    env: { ...process.env, LAUNCHPAD_API_PORT: 'three thousand', DATA_DIR: 'memory://' },
    encoding: 'utf8',
    timeout: 30_000,
  });
  assert.is(run.status, 2);
  assert.match(run.stderr, /LAUNCHPAD_API_PORT="three thousand": must be a port number/);
  assert.not.match(run.stdout, /running/);
});

test.run();
