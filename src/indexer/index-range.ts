// Indexes a range of heights: fetches chunks of blocks (the next two while the current is
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
  signal: AbortSignal,
) {
  let blocksPerFetch = Math.min(10, maxBlocks); // until the first blocks show how full they are
  /** The batch from `from`: its last height at once, its blocks when they are read. */
  return (from: number, to: number): { last: number; blocks: Promise<FetchedBlock[]> } => {
    const last = Math.min(to, from + blocksPerFetch - 1);
    const blocks = nodeCall(`blocks ${from}-${last}`, () =>
      fetchBlocks(chain, from, last, contracts, concurrency, signal),
    ).then((fetched) => {
      const txsPerBlock = Math.max(1, fetched.reduce((n, b) => n + b.txCount, 0) / fetched.length);
      blocksPerFetch = Math.max(1, Math.min(maxBlocks, Math.round(maxTxs / txsPerBlock)));
      return fetched;
    });
    blocks.catch(() => {}); // surfaced when awaited
    return { last, blocks };
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

/** Batches read while one is written. */
export const READ_AHEAD_BATCHES = 2;

/** Indexes heights [from, to]; resolves when done or when the signal aborts between batches. */
export async function indexRange(from: number, to: number, options: RangeOptions): Promise<void> {
  const { db, contracts, logger, signal } = options;
  // ends the batches read ahead when this range ends early (a failed batch), and their node
  // calls in flight when the signal aborts (the service stopping)
  const reading = new AbortController();
  const stopReading = () => reading.abort(signal?.reason);
  signal?.addEventListener('abort', stopReading, { once: true });
  const chunk = createChunker(
    options.chain,
    contracts,
    options.maxBlocksPerBatch ?? 100,
    options.maxTxsPerBatch ?? 5000,
    options.fetchConcurrency ?? 8,
    reading.signal,
  );
  // the batches after the one being written are read meanwhile, READ_AHEAD_BATCHES of them: the
  // block worker (read-block.ts) parses the one after next while the database writes this one
  const ahead: ReturnType<typeof chunk>[] = [];
  let nextFrom = from;
  const readAhead = () => {
    while (ahead.length < READ_AHEAD_BATCHES && nextFrom <= to) {
      const batch = chunk(nextFrom, to);
      ahead.push(batch);
      nextFrom = batch.last + 1;
    }
  };
  readAhead();
  try {
    while (ahead.length > 0 && !signal?.aborted) {
      const blocks = await ahead.shift()!.blocks;
      readAhead();
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
        if (error.conflict) {
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
  } finally {
    signal?.removeEventListener('abort', stopReading);
    reading.abort();
  }
}
