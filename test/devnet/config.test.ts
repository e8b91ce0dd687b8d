// `npm run devnet`'s own configuration (src/devnet/config.ts): the defaults, a bad value named
// with the same message the service gives for the same variable, and the process exiting 1
// before starting anything.
import { spawnSync } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { type ConfigError, loadConfig } from '../../src/config.ts';
import { DevnetConfigError, loadDevnetConfig } from '../../src/devnet/config.ts';
import { DEFAULT_DEVNET_MNEMONIC } from '../../src/devnet/index.ts';

const problemsOf = (load: () => unknown): string[] => {
  try {
    load();
  } catch (error) {
    return (error as DevnetConfigError | ConfigError).problems;
  }
  throw new Error('the configuration was accepted');
};

test('with no environment every setting has its documented default', () => {
  const config = loadDevnetConfig({});
  assert.is(config.DEVNET_COMET_VERSION, undefined, 'unset: a data directory goes on in its own version');
  assert.equal(config, {
    HOST: '127.0.0.1',
    DEVNET_RPC_PORT: 26667,
    DEVNET_BLOCK_MS: 1000,
    DEVNET_MNEMONIC: DEFAULT_DEVNET_MNEMONIC,
    DEVNET_TRADES_PER_BLOCK: 2,
    DATA_DIR: './data',
    LOG_LEVEL: 'info',
    LOG_FORMAT: 'auto',
  });
});

test('values are read from the environment and typed; the service reads them alike', () => {
  const env = {
    HOST: ' 0.0.0.0 ',
    DEVNET_RPC_PORT: '0',
    DEVNET_BLOCK_MS: '250',
    DEVNET_MNEMONIC: 'legal winner thank year wave sausage worth useful legal winner thank yellow',
    DEVNET_TRADES_PER_BLOCK: '0.5',
    DEVNET_COMET_VERSION: '0.34',
    DATA_DIR: 'memory://',
    LOG_LEVEL: 'debug',
    LOG_FORMAT: 'json',
  };
  const devnet = loadDevnetConfig(env);
  assert.equal(devnet, {
    HOST: '0.0.0.0',
    DEVNET_RPC_PORT: 0,
    DEVNET_BLOCK_MS: 250,
    DEVNET_MNEMONIC: env.DEVNET_MNEMONIC,
    DEVNET_TRADES_PER_BLOCK: 0.5,
    DEVNET_COMET_VERSION: '0.34',
    DATA_DIR: 'memory://',
    LOG_LEVEL: 'debug',
    LOG_FORMAT: 'json',
  });
  const service = loadConfig(env);
  for (const [name, value] of Object.entries(devnet)) {
    assert.equal(service[name as keyof typeof service], value, `${name} reads the same`);
  }
});

test('only its own variables count: another of the service is not read', () => {
  assert.not.throws(() => loadDevnetConfig({ DATABASE_URL: 'mysql://x', CHAIN_RPC_URL: 'https://rpc.example.org' }));
});

test('every bad variable is reported by name, with the message the service gives for it', () => {
  const bad = {
    HOST: ' ',
    DEVNET_RPC_PORT: '70000',
    DEVNET_BLOCK_MS: 'abc',
    DEVNET_MNEMONIC: 'one two three',
    DEVNET_TRADES_PER_BLOCK: '-1',
    DEVNET_COMET_VERSION: '0.36',
    DATA_DIR: '',
    LOG_LEVEL: 'loud',
    LOG_FORMAT: 'xml',
  };
  const problems = problemsOf(() => loadDevnetConfig(bad));
  assert.is(problems.length, Object.keys(bad).length);
  for (const name of Object.keys(bad))
    assert.ok(
      problems.some((p) => p.startsWith(`${name}=`)),
      `${name} is named`,
    );
  assert.ok(problems.includes('DEVNET_BLOCK_MS="abc": must be a whole number'));
  assert.ok(problems.includes('DEVNET_RPC_PORT="70000": must be a port number from 0 (any free port) to 65535'));
  assert.equal(problems.toSorted(), problemsOf(() => loadConfig(bad)).toSorted());
  assert.equal(
    problemsOf(() => loadDevnetConfig({ DEVNET_BLOCK_MS: '20' })),
    ['DEVNET_BLOCK_MS="20": must be at least 50'],
  );
  try {
    loadDevnetConfig(bad);
  } catch (error) {
    assert.instance(error, DevnetConfigError);
    assert.match((error as Error).message, /^Invalid configuration:\n {2}- /);
  }
});

test('npm run devnet with a bad value exits 1 before starting anything, naming the variable', () => {
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'src/devnet/main.ts'], {
    env: { ...process.env, DEVNET_BLOCK_MS: 'abc', DEVNET_RPC_PORT: '0', DATA_DIR: 'memory://' },
    encoding: 'utf8',
    timeout: 30_000,
  });
  assert.is(run.status, 1);
  assert.match(run.stderr, /DEVNET_BLOCK_MS="abc": must be a whole number/);
  assert.not.match(run.stdout, /Devnet RPC/);
});

test.run();
