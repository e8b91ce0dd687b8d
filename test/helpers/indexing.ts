// An indexer on a test database following a devnet, wired as the service wires them, and the
// devnet traffic it indexes.

import * as assert from 'uvu/assert';
import { type ChainClient, createChainClient } from '../../src/chain/client.ts';
import type { Database } from '../../src/db/types.ts';
import type { Devnet, LedgerTrade } from '../../src/devnet/index.ts';
import { createIndexer, type Indexer, type IndexerOptions } from '../../src/indexer/indexer.ts';
import { createLogger, silentLogger } from '../../src/internal/logger.ts';
import { attr, wasmClient } from './devnet.ts';
import { sleep } from './wait.ts';

export function startIndexer(
  db: Database,
  devnet: Devnet,
  options: Partial<IndexerOptions> = {},
): { indexer: Indexer; chain: ChainClient; stop(): Promise<void> } {
  const chain = createChainClient(devnet.rpcUrl);
  const indexer = createIndexer({
    db,
    chain,
    contracts: devnet.contracts,
    logger: process.env.TEST_LOG ? createLogger({ level: 'debug', format: 'json' }) : silentLogger,
    pollIntervalMs: 200,
    startHeight: 1,
    ...options,
  });
  indexer.start();
  return {
    indexer,
    chain,
    async stop() {
      await indexer.stop();
      chain.disconnect();
    },
  };
}

/** Runs a chain call that waits for its tx to be in a block, producing blocks until it is. */
export async function withBlocks<T>(devnet: Devnet, call: Promise<T>): Promise<T> {
  let done = false;
  const result = call.finally(() => (done = true));
  while (!done) {
    await devnet.produceBlock();
    await sleep(20);
  }
  return result;
}

/**
 * Account `index` launches a token on the launchpad (1 NATIVE sent with it): its CW20
 * address and the height of the block that holds the launch.
 */
export async function launchToken(
  devnet: Devnet,
  index: number,
  token: { name: string; symbol: string; image?: string; description?: string },
): Promise<{ token: string; height: number }> {
  const creator = await wasmClient(devnet, index);
  try {
    const created = await withBlocks(
      devnet,
      creator.execute(devnet.contracts.launchpad, { create_token: { image: '', description: '', ...token } }, [
        { denom: 'unative', amount: '1000000' },
      ]),
    );
    return { token: attr(created.events, 'wasm-token_created')[0]!.token_address!, height: created.height };
  } finally {
    creator.client.disconnect();
  }
}

/**
 * The launchpad admin (account 0) sets the oracle's NATIVE price in micro-USD with a signed
 * tx; a higher price lowers the graduation threshold, so short test runs see graduations.
 */
export async function setOraclePrice(devnet: Devnet, nativeUsdMicro: bigint): Promise<void> {
  const admin = await wasmClient(devnet, 0);
  try {
    await withBlocks(
      devnet,
      admin.execute(devnet.contracts.launchpad, { set_oracle_price: { native_usd_micro: nativeUsdMicro.toString() } }),
    );
  } finally {
    admin.client.disconnect();
  }
}

/** Produces `blocks` blocks with the generator at `rate` trades per block. */
export async function produceTraffic(devnet: Devnet, blocks: number, rate: number): Promise<void> {
  devnet.generator.setRate(rate);
  for (let i = 0; i < blocks; i++) await devnet.produceBlock();
  devnet.generator.setRate(0);
}

interface TradeRow {
  /** As stored, to the microsecond: `YYYY-MM-DDTHH:MM:SS.ffffffZ`. */
  time: string;
  block_height: number;
  tx_index: number;
  event_index: number;
  msg_index: number;
  tx_hash: string;
  source: string;
  action: string;
  direction: string;
  token_address: string;
  price_unative: string;
  volume_unative: string;
  volume_token: string;
  fee_unative: string;
  trader: string;
  input_amount: string;
  output_amount: string;
  native_reserves: string;
}

export async function indexedTrades(db: Database): Promise<TradeRow[]> {
  return db.query<TradeRow>(
    `SELECT to_char(time AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS time, block_height, tx_index, event_index, msg_index, upper(encode(tx_hash, 'hex')) AS tx_hash, source, action, direction, token_address,
            price_unative::text, volume_unative::text, volume_token::text, fee_unative::text, trader,
            input_amount::text, output_amount::text, native_reserves::text
     FROM trades ORDER BY seq`,
  );
}

/**
 * The time the index stores for a block time the ledger gives to the nanosecond, to the
 * microsecond: the indexer keeps block times as JavaScript dates (src/indexer/fetch-blocks.ts),
 * so the first three fraction digits, then 000. Compared as text, a stored time off by one
 * microsecond fails, which a comparison of Dates (milliseconds) would let through.
 */
export function storedTime(rfc3339: string): string {
  const m = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?Z$/.exec(rfc3339);
  if (!m) throw new Error(`not an RFC 3339 UTC time: ${rfc3339}`);
  return `${m[1]}.${(m[2] ?? '').padEnd(9, '0').slice(0, 3)}000Z`;
}

const expectedRow = (t: LedgerTrade): TradeRow => ({
  time: storedTime(t.time),
  block_height: t.height,
  tx_index: t.txIndex,
  event_index: t.eventIndex,
  msg_index: t.msgIndex,
  tx_hash: t.txHash,
  source: t.source,
  action: t.action,
  direction: t.direction,
  token_address: t.token,
  price_unative: `${t.priceUnative}`,
  volume_unative: `${t.volumeUnative}`,
  volume_token: `${t.volumeToken}`,
  fee_unative: `${t.feeUnative}`,
  trader: t.trader,
  input_amount: `${t.inputAmount}`,
  output_amount: `${t.outputAmount}`,
  native_reserves: `${t.nativeReservesAfter}`,
});

/** Every trade the devnet executed is in the index exactly once, with every field as executed. */
export async function assertTradesMatchLedger(db: Database, devnet: Devnet): Promise<number> {
  const rows = await indexedTrades(db);
  const expected = [...devnet.ledger.trades]
    .sort((a, b) => a.height - b.height || a.txIndex - b.txIndex || a.eventIndex - b.eventIndex)
    .map(expectedRow);
  assert.ok(expected.length > 0, 'the devnet executed trades');
  assert.is(rows.length, expected.length, 'one row per executed trade');
  for (let i = 0; i < expected.length; i++) assert.equal(rows[i], expected[i], `trade ${i} (${expected[i]!.tx_hash})`);
  return rows.length;
}
