// The devnet: a simulated Cosmos SDK v0.50 / CometBFT 0.38 chain that cosmjs's own clients
// accept, with the launchpad and AMM contracts and a traffic generator. `createDevnet` starts
// one (in memory, or continuing the chain in `dataDir`) and serves its RPC over HTTP.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sha256 } from '@cosmjs/crypto';
import { toAscii, toHex } from '@cosmjs/encoding';
import type { Logger } from 'pino';
import { DEFAULT_DEVNET_MNEMONIC } from '../config.ts';
import { silentLogger } from '../internal/logger.ts';
import { createAbciQuery } from './abci/router.ts';
import { createChainState } from './app/chain-state.ts';
import { applyGenesis, genesisAppState } from './app/genesis.ts';
import { nowNs } from './blocks/time.ts';
import { DEVNET_CHAIN_ID } from './constants.ts';
import { DEVNET_CONTRACTS } from './contracts/addresses.ts';
import { createTrafficGenerator, type TrafficGenerator } from './generator/traffic.ts';
import { createLedger, type DevnetLedger } from './ledger/ledger.ts';
import { createNode, type DevnetNode } from './node/node.ts';
import { openBlockLog } from './persistence/block-log.ts';
import { createMethods } from './rpc/methods.ts';
import { startRpcServer } from './rpc/server.ts';
import { createTxRunner, type TxRunner } from './tx/run-tx.ts';

export { DEVNET_CHAIN_ID } from './constants.ts';
export { DEVNET_CONTRACTS } from './contracts/addresses.ts';
export type { DevnetLedger, LedgerGraduation, LedgerLaunch, LedgerTrade } from './ledger/ledger.ts';

export interface DevnetOptions {
  /** Default 'native-devnet-1'. */
  chainId?: string;
  /** Default DEFAULT_DEVNET_MNEMONIC; accounts 0..9 (and the generator's traders 10..29) derive from it. */
  mnemonic?: string;
  /** Block interval; default 1000; 0 = no automatic blocks (call produceBlock()). */
  blockMs?: number;
  /** Default '127.0.0.1'. */
  host?: string;
  /** Default 26667; 0 = an ephemeral port. */
  port?: number;
  /** Traffic generator rate; 0 = off (default); a fraction is a probability per block. */
  tradesPerBlock?: number;
  /** Persist the chain here and continue it on the next start; without it the chain lives in memory. */
  dataDir?: string;
  logger?: Logger;
}

export interface DevnetAccount {
  index: number;
  address: string;
}

export interface Devnet {
  readonly rpcUrl: string;
  readonly chainId: string;
  readonly contracts: { launchpad: string; amm: string };
  /** Accounts 0..9 of the mnemonic, funded at genesis; account 0 administers the launchpad (oracle price). */
  readonly accounts: readonly DevnetAccount[];
  /** What the devnet executed: every trade, launch and graduation. */
  readonly ledger: DevnetLedger;
  /** Latest committed height. */
  height(): number;
  /** Commits a block now (with or without automatic blocks); resolves to its height. */
  produceBlock(): Promise<number>;
  generator: { setRate(tradesPerBlock: number): void; readonly rate: number };
  /** Produces blocks back to back (no waiting) until `trades` more trades are on the chain. */
  pregenerate(opts: { trades: number; tradesPerBlock: number }): Promise<void>;
  /** How many websocket subscriptions (NewBlock, NewBlockHeader, Tx) clients hold now: a client is subscribed once it counts. */
  subscriptions(): number;
  /** Fault hook: the RPC port stops answering (connection refused) until resume(); blocks go on. */
  pause(): Promise<void>;
  resume(): Promise<void>;
  close(): Promise<void>;
}

export async function createDevnet(options: DevnetOptions = {}): Promise<Devnet> {
  const logger = options.logger ?? silentLogger;
  const mnemonic = options.mnemonic ?? DEFAULT_DEVNET_MNEMONIC;
  const host = options.host ?? '127.0.0.1';
  const blockMs = options.blockMs ?? 1000;
  const { log, scratchDir, chainId, genesisTimeNs } = openChain(options, mnemonic);

  const state = createChainState();
  const { users, traders } = await applyGenesis(state, mnemonic, genesisTimeNs);
  const appState = genesisAppState(state);
  const ledger = createLedger();
  const runner = createTxRunner(chainId, state, ledger);
  const node = createNode({ chainId, genesisTimeNs, state, runner, ledger, log, logger });
  const generator = createTrafficGenerator({
    chainId,
    state,
    ledger,
    traders,
    rate: options.tradesPerBlock ?? 0,
    seed: 42 + node.store.height,
  });
  node.setFiller(generator.fill);
  // A node answers `status` with its latest block, so the chain starts with block 1 committed.
  if (node.store.height === 0) node.produceBlock();

  const server = await serveRpc({ node, runner, host, port: options.port ?? 26667, blockMs, appState, logger });
  node.onBlock((block) => server.publishBlock(block));
  const blocks = createBlockLoop({ node, generator, ledger, blockMs, logger });
  blocks.schedule();

  return {
    rpcUrl: `http://${host}:${server.port}`,
    chainId,
    contracts: { ...DEVNET_CONTRACTS },
    accounts: users.map(({ index, address }) => ({ index, address })),
    ledger,
    height: () => node.store.height,
    produceBlock: async () => blocks.produce(),
    generator,
    pregenerate: (opts) => blocks.pregenerate(opts),
    subscriptions: () => server.subscriptions(),
    pause: () => server.pause(),
    resume: () => server.resume(),
    async close() {
      blocks.stop();
      await server.close();
      log.close();
      if (scratchDir) rmSync(scratchDir, { recursive: true, force: true });
    },
  };
}

/**
 * Opens the block log (in `dataDir`, or in a scratch directory: old blocks live there instead of
 * in memory) and settles the chain id and genesis time, refusing a data directory of another chain.
 */
function openChain(options: DevnetOptions, mnemonic: string) {
  const fingerprint = toHex(sha256(toAscii(mnemonic))).slice(0, 16);
  const scratchDir = options.dataDir ? null : mkdtempSync(path.join(tmpdir(), 'native-devnet-'));
  const log = openBlockLog(options.dataDir ?? scratchDir!, { durable: scratchDir === null });
  if (log.meta) {
    if (options.chainId && options.chainId !== log.meta.chainId) {
      throw new Error(`data directory ${options.dataDir} holds chain ${log.meta.chainId}, not ${options.chainId}`);
    }
    if (log.meta.mnemonicFingerprint !== fingerprint)
      throw new Error(`data directory ${options.dataDir} was created with another mnemonic`);
  }
  const chainId = log.meta?.chainId ?? options.chainId ?? DEVNET_CHAIN_ID;
  const genesisTimeNs = log.meta ? BigInt(log.meta.genesisTimeNs) : nowNs();
  if (!log.meta) log.writeMeta({ chainId, genesisTimeNs: genesisTimeNs.toString(), mnemonicFingerprint: fingerprint });
  return { log, scratchDir, chainId, genesisTimeNs };
}

/** The JSON-RPC methods over the node and its query router, served on host:port. */
async function serveRpc(options: {
  node: DevnetNode;
  runner: TxRunner;
  host: string;
  port: number;
  blockMs: number;
  appState: unknown;
  logger: Logger;
}) {
  const { node, host } = options;
  const nodeId = toHex(sha256(toAscii(`${node.chainId}/node`)).slice(0, 20));
  let rpcAddress = '';
  const methods = createMethods({
    node,
    abciQuery: createAbciQuery(node.state, options.runner, {
      chainId: node.chainId,
      nodeId,
      listenAddr: 'tcp://0.0.0.0:26656',
      rpcAddress: 'tcp://0.0.0.0:26657',
    }),
    nodeId,
    listenAddr: 'tcp://0.0.0.0:26656',
    get rpcAddress() {
      return rpcAddress;
    },
    genesisAppState: () => options.appState,
    commitTimeoutMs: Math.max(10_000, options.blockMs * 10),
  });
  const server = await startRpcServer({ node, methods, host, port: options.port, logger: options.logger });
  rpcAddress = `tcp://${host}:${server.port}`;
  return server;
}

/** Blocks every `blockMs` (none when 0), on demand, and back to back for `pregenerate`. */
function createBlockLoop(options: {
  node: DevnetNode;
  generator: TrafficGenerator;
  ledger: DevnetLedger;
  blockMs: number;
  logger: Logger;
}) {
  const { node, generator, ledger, blockMs, logger } = options;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;

  const produce = () => {
    const started = performance.now();
    const block = node.produceBlock();
    logger.debug(
      { height: block.header.height, txs: block.txCount, ms: Math.round(performance.now() - started) },
      'Produced a block',
    );
    return block.header.height;
  };

  const schedule = () => {
    if (closed || blockMs <= 0) return;
    timer = setTimeout(() => {
      try {
        produce();
      } catch (error) {
        logger.error({ err: error }, 'Failed to produce a block');
      }
      schedule();
    }, blockMs);
  };

  async function pregenerate({ trades, tradesPerBlock }: { trades: number; tradesPerBlock: number }) {
    clearTimeout(timer);
    const previousRate = generator.rate;
    generator.setRate(tradesPerBlock);
    const target = ledger.trades.length + trades;
    const started = performance.now();
    let lastReport = started;
    try {
      while (ledger.trades.length < target) {
        produce();
        await new Promise((resolve) => setImmediate(resolve));
        if (performance.now() - lastReport > 5000) {
          lastReport = performance.now();
          logger.info(
            { trades: ledger.trades.length, target, height: node.store.height },
            'Pregenerated trades so far',
          );
        }
      }
    } finally {
      generator.setRate(previousRate);
      schedule();
    }
    logger.info(
      { trades, height: node.store.height, ms: Math.round(performance.now() - started) },
      'Pregenerated the trades',
    );
  }

  return {
    produce,
    schedule,
    pregenerate,
    stop() {
      closed = true;
      clearTimeout(timer);
    },
  };
}
