// Configuration: the documented defaults, and a bad value stops start-up naming the variable.
import { spawnSync } from 'node:child_process';
import { toBech32 } from '@cosmjs/encoding';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ConfigError, loadConfig } from '../src/config.ts';

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
  assert.is(c.DEVNET_MNEMONIC, undefined, "unset: the built-in devnet's own mnemonic");
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

test('DEVNET_MNEMONIC: unset, the built-in devnet keeps its own; set, it is passed on trimmed; other than 12 to 24 words, refused', () => {
  const mnemonic = 'legal winner thank year wave sausage worth useful legal winner thank yellow';
  assert.is(loadConfig({ DEVNET_MNEMONIC: ` ${mnemonic}\n` }).DEVNET_MNEMONIC, mnemonic);
  for (const bad of ['', 'one two three', `${mnemonic} extra`]) {
    try {
      loadConfig({ DEVNET_MNEMONIC: bad });
      assert.unreachable(`${JSON.stringify(bad)} accepted`);
    } catch (e) {
      assert.match(
        (e as ConfigError).message,
        /^ {2}- DEVNET_MNEMONIC=".*": must be a BIP-39 mnemonic of 12 to 24 words$/m,
      );
    }
  }
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

test('a real chain needs its contracts: CHAIN_RPC_URL without them names both, and no devnet address is used', () => {
  const problems = (() => {
    try {
      loadConfig({ CHAIN_RPC_URL: 'https://rpc.example.org' });
    } catch (e) {
      return (e as ConfigError).problems;
    }
  })();
  assert.ok(problems, 'refused');
  assert.equal(
    problems!.map((p) => p.split(' ')[0]),
    ['LAUNCHPAD_CONTRACT', 'AMM_CONTRACT'],
  );
  assert.match(problems![0]!, /required with CHAIN_RPC_URL/);
  const c = loadConfig({
    CHAIN_RPC_URL: 'https://rpc.example.org',
    LAUNCHPAD_CONTRACT: toBech32('osmo', new Uint8Array(32).fill(3)),
    AMM_CONTRACT: toBech32('osmo', new Uint8Array(32).fill(4)),
  });
  assert.is(c.LAUNCHPAD_CONTRACT, toBech32('osmo', new Uint8Array(32).fill(3)));
});

test('provider settings: headers as pairs or JSON, never shown in an error; concurrency, timeout, websocket, CW20 list', () => {
  assert.equal(loadConfig({ CHAIN_RPC_HEADERS: 'x-api-key: s3cret; Authorization: Bearer a:b' }).CHAIN_RPC_HEADERS, {
    'x-api-key': 's3cret',
    Authorization: 'Bearer a:b',
  });
  assert.equal(loadConfig({ CHAIN_RPC_HEADERS: '{"x-api-key":"s3cret"}' }).CHAIN_RPC_HEADERS, {
    'x-api-key': 's3cret',
  });
  assert.equal(loadConfig({}).CHAIN_RPC_HEADERS, {});
  for (const bad of ['no colon here s3cret', '{"x-api-key": 5}', '{"bad name":"s3cret"}', '{not json s3cret']) {
    try {
      loadConfig({ CHAIN_RPC_HEADERS: bad });
      assert.unreachable(`${bad} accepted`);
    } catch (e) {
      assert.instance(e, ConfigError);
      const text = (e as ConfigError).message;
      assert.match(text, /CHAIN_RPC_HEADERS=\(value hidden\)/);
      assert.not.match(text, /s3cret/, 'the secret is not in the message');
    }
  }
  const c = loadConfig({
    CHAIN_RPC_CONCURRENCY: '4',
    CHAIN_RPC_TIMEOUT_MS: '60000',
    CHAIN_RPC_WEBSOCKET: 'off',
    INDEXER_READ_THREADS: '3',
    CW20_CONTRACTS: `${toBech32('native', new Uint8Array(32).fill(1))}, ${toBech32('native', new Uint8Array(32).fill(2))}`,
    NATIVE_DENOM: 'aevmos',
    NATIVE_DECIMALS: '18',
  });
  assert.is(c.CHAIN_RPC_CONCURRENCY, 4);
  assert.is(c.CHAIN_RPC_TIMEOUT_MS, 60_000);
  assert.is(c.CHAIN_RPC_WEBSOCKET, 'off');
  assert.is(c.INDEXER_READ_THREADS, 3);
  assert.is(c.CW20_CONTRACTS.length, 2);
  assert.is(c.NATIVE_DECIMALS, 18);
  const d = loadConfig({});
  assert.equal([d.CHAIN_RPC_CONCURRENCY, d.CHAIN_RPC_TIMEOUT_MS, d.CHAIN_RPC_WEBSOCKET], [16, 15_000, 'on']);
  assert.equal(d.CW20_CONTRACTS, []);
  assert.is(d.INDEXER_READ_THREADS, undefined, "unset: the indexer's own default (the cores less one, 1 to 4)");
  assert.is(d.DEVNET_COMET_VERSION, '0.38');
  for (const [name, value] of [
    ['CHAIN_RPC_CONCURRENCY', '0'],
    ['CHAIN_RPC_WEBSOCKET', 'maybe'],
    ['INDEXER_READ_THREADS', '0'],
    ['INDEXER_READ_THREADS', '17'],
    ['CW20_CONTRACTS', 'not-an-address'],
    ['NATIVE_DECIMALS', '99'],
    ['DEVNET_COMET_VERSION', '0.36'],
  ] as const) {
    try {
      loadConfig({ [name]: value });
      assert.unreachable(`${name}=${value} accepted`);
    } catch (e) {
      assert.match((e as ConfigError).message, new RegExp(`^  - ${name}=`, 'm'));
    }
  }
});

test.run();
