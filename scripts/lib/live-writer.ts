// Live writes for the benches: a block every `blockMs` with `tradesPerBlock` trades (one tx
// each, tokens picked by bench:api's Zipf popularity unless the caller picks them) and the
// CW20 movements the caller gives, written through the indexer's own
// write path as the live indexer writes a block at the head of the index: writeBatch in
// one transaction (cursor check and move, chain index, tokens, trades, feed outbox rows
// and their NOTIFY), so the API's response cache is invalidated exactly as in production.
import { createHash, randomBytes } from 'node:crypto';
import { toBech32 } from '@cosmjs/encoding';
import { indexedAttributes } from '../../src/chain/indexed-attributes.ts';
import { type ChainEvent, packEvents } from '../../src/chain/stored-events.ts';
import type { Database } from '../../src/db/types.ts';
import type { DomainEvent, TradeEvent } from '../../src/domain/events.ts';
import { chainRows, type FetchedTx } from '../../src/indexer/chain-rows.ts';
import { readCursor } from '../../src/indexer/cursor.ts';
import type { Cw20Movement } from '../../src/indexer/decode-cw20.ts';
import type { FetchedBlock } from '../../src/indexer/fetch-blocks.ts';
import { writeBatch } from '../../src/indexer/write-batch.ts';
import { makeTrade, rng } from '../../test/helpers/trades.ts';

/** The trader of every live-written trade (tells them from the prepared data). */
export const LIVE_TRADER = 'native1benchlivewriter';

/** bench:api's token addresses, by popularity rank. */
export const benchTokenAddress = (i: number) =>
  toBech32('native', createHash('sha256').update(`bench-token-${i}`).digest());

/** Zipf(s = 1) over n ranks: rank 0 is the most likely. */
export function zipf(n: number, next: () => number) {
  const cdf: number[] = [];
  let sum = 0;
  for (let k = 1; k <= n; k++) {
    sum += 1 / k;
    cdf.push(sum);
  }
  return () => {
    const u = next() * sum;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid]! < u) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

const hex = (text: string) => createHash('sha256').update(text).digest('hex').toUpperCase();

export interface LiveWriterStats {
  blocks: number;
  trades: number;
  seconds: number;
  /** Per block: the writeBatch transaction, from BEGIN to COMMIT, in ms. */
  commitMs: number[];
  /** Blocks started late because the previous one was still being written. */
  late: number;
}

/** bench:api's trades: one of its `tokenCount` tokens by popularity. */
export function popularTokens(tokenCount: number): () => string {
  const pick = zipf(tokenCount, rng(4243).next);
  const tokens = Array.from({ length: tokenCount }, (_, i) => benchTokenAddress(i));
  return () => tokens[pick()]!;
}

export interface LiveWriterOptions {
  tradesPerBlock: number;
  blockMs: number;
  /** The token of trade `k` in the block at `height`. */
  tokenFor: (height: number, k: number) => string;
  /** The block's CW20 balance movements besides its trades (none by default). */
  movementsFor?: (height: number) => Cw20Movement[];
}

export function createLiveWriter(db: Database, opts: LiveWriterOptions) {
  const r = rng(4242);
  const stats: LiveWriterStats = { blocks: 0, trades: 0, seconds: 0, commitMs: [], late: 0 };
  let running = false;
  let loop: Promise<void> | undefined;

  async function writeBlock(prev: { height: number; hash: string; chainId: string }) {
    const height = prev.height + 1;
    const time = new Date();
    const txs: FetchedTx[] = [];
    const events: DomainEvent[] = [];
    for (let k = 0; k < opts.tradesPerBlock; k++) {
      const txHash = hex(`bench-live-${height}-${k}-${process.pid}`);
      const token = opts.tokenFor(height, k);
      const trade = makeTrade(
        { time, blockHeight: height, txIndex: k, eventIndex: 2, txHash, tokenAddress: token, trader: LIVE_TRADER },
        BigInt(r.int(1_000, 5_000_000_000)),
        BigInt(r.int(1_000, 9_000_000_000)),
      );
      const chainEvents: ChainEvent[] = [
        {
          type: 'message',
          attributes: [
            { key: 'action', value: '/cosmwasm.wasm.v1.MsgExecuteContract' },
            { key: 'sender', value: LIVE_TRADER },
            { key: 'module', value: 'wasm' },
          ],
        },
        {
          type: 'transfer',
          attributes: [
            { key: 'recipient', value: token },
            { key: 'sender', value: LIVE_TRADER },
            { key: 'amount', value: `${trade.inputAmount}unative` },
          ],
        },
        {
          type: 'wasm-buy',
          attributes: [
            { key: '_contract_address', value: 'native1benchlaunchpad' },
            { key: 'token', value: token },
            { key: 'trader', value: LIVE_TRADER },
            { key: 'native_in', value: String(trade.inputAmount) },
            { key: 'tokens_out', value: String(trade.outputAmount) },
            { key: 'price', value: String(trade.priceUnative) },
            { key: 'native_reserves', value: String(trade.nativeReserves) },
          ],
        },
      ];
      txs.push({
        hash: txHash,
        index: k,
        code: 0,
        bytes: randomBytes(320),
        codespace: '',
        log: { text: '', packed: null, form: null },
        gasWanted: '250000',
        gasUsed: '180000',
        packedEvents: packEvents(chainEvents),
        attributes: indexedAttributes(chainEvents),
      });
      const event: TradeEvent = {
        kind: 'trade',
        at: { blockHeight: height, time, txHash, txIndex: k, msgIndex: 0, eventIndex: 2 },
        trade,
      };
      events.push(event);
    }
    const block: FetchedBlock = {
      height,
      hash: hex(`bench-live-block-${height}-${process.pid}`),
      lastBlockHash: prev.hash,
      time,
      timeRfc3339: time.toISOString(),
      chainId: prev.chainId,
      proposer: hex('bench-proposer').slice(0, 40),
      txCount: txs.length,
      rows: chainRows(height, time, txs),
      decoded: { events, malformed: [] },
      cw20: opts.movementsFor
        ? { movements: opts.movementsFor(height), origins: [], unreadable: [], supplyChanged: [] }
        : undefined,
      rest: { header: { chain_id: prev.chainId, height: String(height), time: time.toISOString() } },
    };
    const started = performance.now();
    const result = await db.transaction((tx) =>
      writeBatch(tx, { blocks: [block], events }, { moveCursor: true, emitFeed: true, bulk: true }),
    );
    stats.commitMs.push(performance.now() - started);
    stats.blocks++;
    stats.trades += result.trades;
    return { height, hash: block.hash, chainId: prev.chainId };
  }

  return {
    async start() {
      const cursor = await readCursor(db);
      if (!cursor) throw new Error('the bench database has no indexer cursor');
      running = true;
      const started = performance.now();
      loop = (async () => {
        let prev = { height: cursor.lastHeight, hash: cursor.lastBlockHash, chainId: cursor.chainId };
        let due = performance.now();
        while (running) {
          prev = await writeBlock(prev);
          due += opts.blockMs;
          const wait = due - performance.now();
          if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
          else {
            stats.late++;
            due = performance.now();
          }
        }
        stats.seconds = (performance.now() - started) / 1000;
      })();
      loop.catch((error) => {
        // a failed write ends the bench: nothing after it would be measured under writes
        console.error('the live writer failed:', error);
        process.exit(1);
      });
    },
    async stop(): Promise<LiveWriterStats> {
      running = false;
      await loop;
      return stats;
    },
  };
}
