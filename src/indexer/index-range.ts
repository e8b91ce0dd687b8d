// Indexes a range of heights: fetches chunks of blocks (the next one while the current is
// written), decodes their contract events and writes each chunk in one transaction.
// The live indexer and the backfill command both run through here.
import type { ChainClient } from '../chain/client.ts';
import { type Database, DatabaseError } from '../db/types.ts';
import type { ContractAddresses, DomainEvent } from '../domain/events.ts';
import type { Logger } from '../internal/logger.ts';
import { nodeCall } from './errors.ts';
import { type FetchedBlock, fetchBlocks } from './fetch-blocks.ts';
import { type WriteOptions, type WriteResult, writeBatch } from './write-batch.ts';

export interface BatchSummary extends WriteResult {
  fromHeight: number;
  toHeight: number;
  lastBlock: FetchedBlock;
  /** Every block of the batch, in height order: its height and block time. */
  blockTimes: { height: number; time: Date }[];
  ms: number;
}

export interface RangeOptions extends Omit<WriteOptions, 'faultPoint'> {
  db: Database;
  chain: ChainClient;
  contracts: ContractAddresses;
  logger: Logger;
  maxBlocksPerBatch?: number;
  maxTxsPerBatch?: number;
  fetchConcurrency?: number;
  signal?: AbortSignal;
  faultPoint?: (step: string) => void;
  onBatch?: (summary: BatchSummary) => void;
}

/** Batches sized so each holds about `maxTxs` transactions: few blocks when blocks are full. */
function createChunker(
  chain: ChainClient,
  contracts: ContractAddresses,
  maxBlocks: number,
  maxTxs: number,
  concurrency: number,
) {
  let blocksPerFetch = Math.min(10, maxBlocks); // until the first blocks show how full they are
  return async (from: number, to: number): Promise<FetchedBlock[]> => {
    const last = Math.min(to, from + blocksPerFetch - 1);
    const blocks = await nodeCall(`blocks ${from}-${last}`, () =>
      fetchBlocks(chain, from, last, contracts, concurrency),
    );
    const txsPerBlock = Math.max(1, blocks.reduce((n, b) => n + b.txs.length, 0) / blocks.length);
    blocksPerFetch = Math.max(1, Math.min(maxBlocks, Math.round(maxTxs / txsPerBlock)));
    return blocks;
  };
}

/** The blocks' decoded contract events, in chain order; malformed ones are logged. */
function collectDomainEvents(blocks: readonly FetchedBlock[], logger: Logger): DomainEvent[] {
  const events: DomainEvent[] = [];
  for (const { decoded } of blocks) {
    events.push(...decoded.events);
    for (const bad of decoded.malformed) {
      logger.error(
        {
          height: bad.at.blockHeight,
          tx: bad.at.txHash,
          event: bad.type,
          event_index: bad.at.eventIndex,
          err: bad.error,
        },
        'Skipped a malformed contract event',
      );
    }
  }
  return events;
}

/** Indexes heights [from, to]; resolves when done or when the signal aborts between batches. */
export async function indexRange(from: number, to: number, options: RangeOptions): Promise<void> {
  const { db, contracts, logger, signal } = options;
  const chunk = createChunker(
    options.chain,
    contracts,
    options.maxBlocksPerBatch ?? 100,
    options.maxTxsPerBatch ?? 5000,
    options.fetchConcurrency ?? 8,
  );
  let next = from <= to ? chunk(from, to) : undefined;
  while (next && !signal?.aborted) {
    const blocks = await next;
    const nextFrom = blocks.at(-1)!.height + 1;
    next = nextFrom <= to ? chunk(nextFrom, to) : undefined;
    next?.catch(() => {}); // surfaced when awaited
    const started = performance.now();
    const events = collectDomainEvents(blocks, logger);
    const write = (bulk: boolean) =>
      db.transaction((tx) =>
        writeBatch(
          tx,
          { blocks, events },
          {
            moveCursor: options.moveCursor,
            emitFeed: options.emitFeed,
            bulk,
            faultPoint: options.faultPoint,
            cw20Contracts: options.cw20Contracts,
          },
        ),
      );
    // At the head of the index nothing can be stored yet, so bulk COPY is safe there; if a
    // row turns out to exist after all, the batch is written again skipping duplicates.
    const result = await write(options.moveCursor).catch(async (error) => {
      if (!(error instanceof DatabaseError)) throw error;
      if (options.moveCursor && error.code === '23505') {
        logger.warn(
          { from: blocks[0]!.height, to: blocks.at(-1)!.height, err: error.message },
          'Rows of this batch were already stored; writing it again without them',
        );
        return write(false);
      }
      // A backfill beside the live indexer updates the same token rows; when the two
      // transactions deadlock (or conflict) the database aborts one: write it again.
      if (error.code === '40P01' || error.code === '40001') {
        logger.warn(
          { from: blocks[0]!.height, to: blocks.at(-1)!.height, err: error.message },
          'Batch aborted by a concurrent writer; writing it again',
        );
        await new Promise((resolve) => setTimeout(resolve, 50 + Math.random() * 200));
        return write(false);
      }
      throw error;
    });
    options.onBatch?.({
      ...result,
      fromHeight: blocks[0]!.height,
      toHeight: blocks.at(-1)!.height,
      lastBlock: blocks.at(-1)!,
      blockTimes: blocks.map((b) => ({ height: b.height, time: b.time })),
      ms: performance.now() - started,
    });
  }
}
