// The devnet: a simulated Cosmos chain that cosmjs's own clients accept, answering as
// CometBFT 0.38 with SDK v0.50 (or, by `cometVersion`, as 0.37 with SDK 0.47 or 0.34 with
// SDK 0.45), with the launchpad and AMM contracts and a traffic generator. `createDevnet`
// starts one (in memory, or continuing the chain in `dataDir`) and serves its RPC over HTTP.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sha256 } from '@cosmjs/crypto';
import { toAscii, toHex } from '@cosmjs/encoding';
import { type Logger, pino } from 'pino';
import { createAbciQuery } from './abci/router.ts';
import { createChainState } from './app/chain-state.ts';
import { applyGenesis, genesisAppState } from './app/genesis.ts';
import { nowNs } from './blocks/time.ts';
import { DEFAULT_DEVNET_MNEMONIC, DEVNET_CHAIN_ID } from './constants.ts';
import { DEVNET_CONTRACTS } from './contracts/addresses.ts';
import type { BlockPhase } from './core/events.ts';
import { type CometVersion, DEFAULT_COMET_VERSION, parseCometVersion, protocolOf } from './core/protocol.ts';
import { createTrafficGenerator, type TrafficGenerator } from './generator/traffic.ts';
import { createLedger, type DevnetLedger } from './ledger/ledger.ts';
import { type BlockCallOutcome, createNode, type DevnetNode } from './node/node.ts';
import { type BlockLog, openBlockLog } from './persistence/block-log.ts';
import { createMethods } from './rpc/methods.ts';
import { startRpcServer } from './rpc/server.ts';
import { blockCallOf } from './tx/block-call.ts';
import { createTxRunner, type TxRunner } from './tx/run-tx.ts';

export { BLOCK_CALLS_TX_INDEX } from './blocks/tx-index.ts';
export { DEFAULT_DEVNET_MNEMONIC, DEVNET_CHAIN_ID } from './constants.ts';
export { DEVNET_CONTRACTS } from './contracts/addresses.ts';
export type { ChainEvent } from './core/events.ts';
export { COMET_VERSIONS, type CometVersion } from './core/protocol.ts';
export type { DevnetLedger, LedgerGraduation, LedgerLaunch, LedgerTrade } from './ledger/ledger.ts';
export type { BlockCallOutcome } from './node/node.ts';

/** A contract execute a block makes outside any tx (see Devnet.scheduleBlockCall). */
export interface BlockCallOptions {
  /** The account the contract sees as the sender, and whose funds go with the call (a module account or any other). */
  sender: string;
  contract: string;
  /** The execute message, as JSON. */
  msg: unknown;
  funds?: { denom: string; amount: string }[];
  /** BeginBlock or EndBlock (default). */
  phase?: BlockPhase;
}

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
  /**
   * The protocol the node answers in: CometBFT 0.38 with SDK 0.50 (default), 0.37 with SDK
   * 0.47, or 0.34 with SDK 0.45 (docs/devnet.md "Protocol versions"). A data directory keeps
   * the version it was made with.
   */
  cometVersion?: CometVersion;
  /** Default: a pino logger that writes nothing. */
  logger?: Logger;
}

export interface DevnetAccount {
  index: number;
  address: string;
}

export interface Devnet {
  readonly rpcUrl: string;
  readonly chainId: string;
  /** The CometBFT version the node answers as. */
  readonly cometVersion: CometVersion;
  readonly contracts: { launchpad: string; amm: string };
  /** Accounts 0..9 of the mnemonic, funded at genesis; account 0 administers the launchpad (oracle price). */
  readonly accounts: readonly DevnetAccount[];
  /** What the devnet executed: every trade, launch and graduation. */
  readonly ledger: DevnetLedger;
  /** Latest committed height. */
  height(): number;
  /** Commits a block now (with or without automatic blocks); resolves to its height. */
  produceBlock(): Promise<number>;
  /**
   * Runs a contract execute in the next block's BeginBlock or EndBlock, outside any tx (as a
   * cron module or governance does): state, funds and the ledger change as a tx's would, and
   * the events are the block's own (docs/devnet.md "Block calls"). Resolves once that block is
   * committed; a failed call is reverted and resolves with its error.
   */
  scheduleBlockCall(call: BlockCallOptions): Promise<BlockCallOutcome>;
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
  const logger = options.logger ?? pino({ level: 'silent' });
  const mnemonic = options.mnemonic ?? DEFAULT_DEVNET_MNEMONIC;
  const host = options.host ?? '127.0.0.1';
  const blockMs = options.blockMs ?? 1000;
  const requested =
    options.cometVersion === undefined ? undefined : parseCometVersion(options.cometVersion, 'cometVersion');
  const { log, scratchDir, chainId, genesisTimeNs, cometVersion } = openChain(options, mnemonic, requested);
  const protocol = protocolOf(cometVersion);

  const state = createChainState();
  const { users, traders } = await applyGenesis(state, mnemonic, genesisTimeNs);
  const appState = genesisAppState(state);
  const ledger = createLedger();
  const runner = createTxRunner(chainId, state, ledger, protocol);
  const node = createNode({ chainId, genesisTimeNs, state, runner, ledger, protocol, log, logger });
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
    cometVersion,
    contracts: { ...DEVNET_CONTRACTS },
    accounts: users.map(({ index, address }) => ({ index, address })),
    ledger,
    height: () => node.store.height,
    produceBlock: async () => blocks.produce(),
    scheduleBlockCall: async (call) => node.scheduleBlockCall(blockCallOf(call)),
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
 * in memory) and settles the chain id, genesis time and protocol, refusing a data directory of
 * another chain or recorded in another protocol.
 */
function openChain(options: DevnetOptions, mnemonic: string, requested: CometVersion | undefined) {
  const fingerprint = toHex(sha256(toAscii(mnemonic))).slice(0, 16);
  const scratchDir = options.dataDir ? null : mkdtempSync(path.join(tmpdir(), 'native-devnet-'));
  const log = openBlockLog(options.dataDir ?? scratchDir!, { durable: scratchDir === null });
  try {
    return { log, scratchDir, ...settleChain(log, options, fingerprint, requested) };
  } catch (error) {
    log.close();
    if (scratchDir) rmSync(scratchDir, { recursive: true, force: true });
    throw error;
  }
}

function settleChain(log: BlockLog, options: DevnetOptions, fingerprint: string, requested: CometVersion | undefined) {
  if (log.meta) {
    if (options.chainId && options.chainId !== log.meta.chainId) {
      throw new Error(`data directory ${options.dataDir} holds chain ${log.meta.chainId}, not ${options.chainId}`);
    }
    if (log.meta.mnemonicFingerprint !== fingerprint)
      throw new Error(`data directory ${options.dataDir} was created with another mnemonic`);
    const recorded = log.meta.cometVersion ?? DEFAULT_COMET_VERSION;
    if (requested && requested !== recorded) {
      throw new Error(
        `data directory ${options.dataDir} holds a chain recorded as CometBFT ${recorded}, not ${requested}`,
      );
    }
    return {
      chainId: log.meta.chainId,
      genesisTimeNs: BigInt(log.meta.genesisTimeNs),
      cometVersion: log.meta.cometVersion ?? DEFAULT_COMET_VERSION,
    };
  }
  const chainId = options.chainId ?? DEVNET_CHAIN_ID;
  const genesisTimeNs = nowNs();
  const cometVersion = requested ?? DEFAULT_COMET_VERSION;
  log.writeMeta({ chainId, genesisTimeNs: genesisTimeNs.toString(), mnemonicFingerprint: fingerprint, cometVersion });
  return { chainId, genesisTimeNs, cometVersion };
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
    abciQuery: createAbciQuery(
      node.state,
      options.runner,
      {
        chainId: node.chainId,
        nodeId,
        listenAddr: 'tcp://0.0.0.0:26656',
        rpcAddress: 'tcp://0.0.0.0:26657',
      },
      node.protocol,
    ),
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
