// Writes one batch of blocks in one transaction: chain index (blocks, txs, event
// attributes), tokens, CW20 balances, trades, SSE outbox rows and the cursor, with at most
// two NOTIFYs (src/feed/notice.ts): the new outbox id when it added feed rows, and one for
// the readers' caches, naming the holders whose CW20 balances moved (all of them when a
// token became known or the vouched set moved) or, for a backfill with trades or new
// tokens, saying that anything changed. A crash at any point leaves either the whole batch
// or none of it.
import type { Queryable } from '../db/types.ts';
import type { DomainEvent } from '../domain/events.ts';
import { notify } from '../feed/notice.ts';
import { appendToOutbox } from '../feed/outbox.ts';
import { readCursor } from './cursor.ts';
import { writeCw20Balances } from './cw20-balances.ts';
import { ChainMismatchError, CursorMovedError } from './errors.ts';
import type { FetchedBlock } from './fetch-blocks.ts';
import { foldTokenChanges } from './token-changes.ts';
import { writeTrades } from './trades.ts';

export interface Batch {
  blocks: readonly FetchedBlock[];
  events: readonly DomainEvent[];
}

export interface WriteOptions {
  /** Extend the index at its head: check continuity with the cursor and move it. */
  moveCursor: boolean;
  /**
   * Bulk-load with COPY. Only where no row can exist yet (the head of the index, right
   * after the cursor check); a duplicate key then fails the batch rather than being skipped.
   */
  bulk?: boolean;
  /** Write SSE outbox rows (live indexing; a backfill of history does not). */
  emitFeed: boolean;
  /** CW20 contracts followed besides the launchpad's and the AMM's tokens (CW20_CONTRACTS). */
  cw20Contracts?: readonly string[];
  /** Test hook: called between statements to simulate a crash mid-batch. */
  faultPoint?: (step: string) => void;
}

export interface WriteResult {
  blocks: number;
  txs: number;
  trades: number;
  newTokens: string[];
  feedEvents: number;
  /** The oracle price changed in the batch: the curve tokens' graduation thresholds are to be read again. */
  thresholdsStale: boolean;
}

async function checkContinuity(tx: Queryable, first: FetchedBlock): Promise<void> {
  const cursor = await readCursor(tx, { forUpdate: true });
  if (!cursor) {
    await tx.query(
      `INSERT INTO indexer_state (chain_id, first_height, first_block_hash, last_height, last_block_hash, last_block_time)
       VALUES ($1, $2, $3, $4, $5, $6)`,
      [first.chainId, first.height, first.hash, first.height - 1, first.lastBlockHash, first.time],
    );
    return;
  }
  if (first.chainId !== cursor.chainId)
    throw new ChainMismatchError(
      `block ${first.height} is from chain ${first.chainId}, this database indexes ${cursor.chainId}`,
    );
  if (first.height !== cursor.lastHeight + 1) {
    throw new CursorMovedError(
      `the cursor is at ${cursor.lastHeight}, this batch starts at ${first.height} (another indexer wrote meanwhile?)`,
    );
  }
  if (cursor.lastBlockHash && first.lastBlockHash !== cursor.lastBlockHash) {
    throw new ChainMismatchError(
      `block ${first.height} follows block hash ${first.lastBlockHash.slice(0, 12)}…, but the indexed block ${cursor.lastHeight} has hash ${cursor.lastBlockHash.slice(0, 12)}…: the node serves another chain`,
    );
  }
}

const BLOCK_COLUMNS = ['height', 'hash', 'time', 'time_rfc3339', 'chain_id', 'proposer', 'tx_count', 'block'] as const;
const TX_COLUMNS = [
  'hash',
  'height',
  'tx_index',
  'time',
  'code',
  'codespace',
  'raw_log',
  'log_packed',
  'log_form',
  'gas_wanted',
  'gas_used',
  'tx_bytes',
  'events',
] as const;
const ATTRIBUTE_COLUMNS = ['key', 'value', 'height', 'tx_index'] as const;

/** Rows of blocks, txs and tx_attributes, in the column orders above. */
function chainIndexRows(blocks: readonly FetchedBlock[]) {
  const blockRows = blocks.map((b) => [
    b.height,
    b.hash,
    b.time,
    b.timeRfc3339,
    b.chainId,
    b.proposer,
    b.txs.length,
    b.rest,
  ]);
  const txRows: unknown[][] = [];
  const attributeRows: unknown[][] = [];
  for (const b of blocks) {
    for (const t of b.txs) {
      txRows.push([
        t.hash,
        b.height,
        t.index,
        b.time,
        t.code,
        t.codespace,
        t.log.text,
        t.log.packed,
        t.log.form,
        t.gasWanted,
        t.gasUsed,
        t.bytes,
        t.packedEvents,
      ]);
      for (const [key, value] of t.attributes) attributeRows.push([key, value, b.height, t.index]);
    }
  }
  return { blockRows, txRows, attributeRows };
}

async function writeChainIndex(tx: Queryable, blocks: readonly FetchedBlock[], bulk: boolean): Promise<number> {
  const rows = chainIndexRows(blocks);
  const options = { ignoreDuplicates: !bulk };
  await tx.copyIn('blocks', BLOCK_COLUMNS, rows.blockRows, options);
  await tx.copyIn('txs', TX_COLUMNS, rows.txRows, options);
  await tx.copyIn('tx_attributes', ATTRIBUTE_COLUMNS, rows.attributeRows, options);
  return rows.txRows.length;
}

async function writeTokens(tx: Queryable, events: readonly DomainEvent[]): Promise<string[]> {
  const changes = [...foldTokenChanges(events).values()];
  if (changes.length === 0) return [];
  const launch = (f: (l: NonNullable<(typeof changes)[number]['launch']>) => unknown) =>
    changes.map((c) => (c.launch ? f(c.launch) : null));
  const created = await tx.query<{ address: string }>(
    `INSERT INTO tokens AS t (address, source, creator, name, symbol, image, description, initial_reserves, native_reserves, created_at, created_height)
     SELECT address, source, creator, name, symbol, image, description, initial_reserves, coalesce(initial_reserves, 0), created_at, created_height
     FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::numeric[], $9::timestamptz[], $10::bigint[])
          AS v(address, source, creator, name, symbol, image, description, initial_reserves, created_at, created_height)
     ON CONFLICT (address) DO UPDATE SET
       -- a token first seen through a trade whose launch is indexed later (backfill): record the launch
       source = CASE WHEN excluded.created_at IS NOT NULL THEN excluded.source ELSE t.source END,
       creator = coalesce(t.creator, excluded.creator),
       name = coalesce(t.name, excluded.name),
       symbol = coalesce(t.symbol, excluded.symbol),
       image = coalesce(t.image, excluded.image),
       description = coalesce(t.description, excluded.description),
       initial_reserves = coalesce(t.initial_reserves, excluded.initial_reserves),
       created_at = coalesce(t.created_at, excluded.created_at),
       created_height = coalesce(t.created_height, excluded.created_height)
     WHERE excluded.created_at IS NOT NULL AND t.created_at IS NULL
     RETURNING address, (xmax = 0) AS inserted`,
    [
      changes.map((c) => c.address),
      changes.map((c) => c.source),
      launch((l) => l.creator),
      launch((l) => l.name),
      launch((l) => l.symbol),
      launch((l) => l.image),
      launch((l) => l.description),
      launch((l) => l.initialReserves.toString()),
      launch((l) => l.at.time.toISOString()),
      launch((l) => l.at.blockHeight),
    ],
  );
  await tx.query(
    `UPDATE tokens t SET
       native_reserves = CASE WHEN v.seq > t.state_seq THEN v.reserves ELSE t.native_reserves END,
       state_seq       = greatest(t.state_seq, v.seq),
       current_price   = CASE WHEN v.trade_seq > t.price_seq THEN v.price ELSE t.current_price END,
       last_trade_at   = CASE WHEN v.trade_seq > t.price_seq THEN v.last_trade_at ELSE t.last_trade_at END,
       price_seq       = greatest(t.price_seq, v.trade_seq),
       graduated       = t.graduated OR v.graduated_at IS NOT NULL,
       graduated_at    = coalesce(t.graduated_at, v.graduated_at)
     FROM unnest($1::text[], $2::numeric[], $3::bigint[], $4::numeric[], $5::timestamptz[], $6::bigint[], $7::timestamptz[])
          AS v(address, reserves, seq, price, last_trade_at, trade_seq, graduated_at)
     WHERE t.address = v.address`,
    [
      changes.map((c) => c.address),
      changes.map((c) => c.reserves.toString()),
      changes.map((c) => c.seq.toString()),
      changes.map((c) => (c.price ?? 0n).toString()),
      changes.map((c) => c.lastTradeAt?.toISOString() ?? null),
      changes.map((c) => c.tradeSeq.toString()),
      changes.map((c) => c.graduatedAt?.toISOString() ?? null),
    ],
  );
  return created.filter((r) => (r as { inserted?: boolean }).inserted).map((r) => r.address);
}

/** Writes a batch of consecutive blocks atomically (the caller runs it in a transaction). */
export async function writeBatch(
  tx: Queryable,
  batch: Batch,
  { moveCursor, emitFeed, bulk = false, faultPoint, cw20Contracts }: WriteOptions,
): Promise<WriteResult> {
  const first = batch.blocks[0];
  const last = batch.blocks.at(-1);
  if (!first || !last) return { blocks: 0, txs: 0, trades: 0, newTokens: [], feedEvents: 0, thresholdsStale: false };
  if (moveCursor) await checkContinuity(tx, first);
  faultPoint?.('continuity');
  const txs = await writeChainIndex(tx, batch.blocks, bulk);
  faultPoint?.('chain-index');
  const newTokens = await writeTokens(tx, batch.events);
  const thresholdsStale = batch.blocks.some((b) => (b.decoded.oracleUpdates?.length ?? 0) > 0);
  // the metadata fetcher asks the launchpad for the new thresholds (src/indexer/token-metadata.ts)
  if (thresholdsStale)
    await tx.query(`UPDATE tokens SET threshold_stale = true WHERE source = 'launchpad' AND NOT graduated`);
  faultPoint?.('tokens');
  const balances = await writeCw20Balances(tx, batch.blocks, {
    head: moveCursor,
    newTokens,
    cw20Contracts,
  });
  faultPoint?.('cw20-balances');
  const tradeList = batch.events.flatMap((e) => (e.kind === 'trade' ? [e.trade] : []));
  const trades = await writeTrades(tx, tradeList, { ignoreDuplicates: !bulk });
  faultPoint?.('trades');
  const feedEvents = emitFeed ? await appendToOutbox(tx, batch.events) : 0;
  // without feed events (a backfill) readers still learn that indexed data changed
  if (!emitFeed && (trades > 0 || newTokens.length > 0)) await notify(tx, { kind: 'changed' });
  // readers drop the holdings of the holders whose balances moved (feed events do not say),
  // or every holdings answer when a token became known or the vouched set moved
  else if (balances.vouchingChanged || newTokens.length > 0) await notify(tx, { kind: 'balances', holders: 'all' });
  else if (balances.holders.length > 0) await notify(tx, { kind: 'balances', holders: balances.holders });
  faultPoint?.('feed');
  if (moveCursor) {
    await tx.query(
      `UPDATE indexer_state SET last_height = $1, last_block_hash = $2, last_block_time = $3, updated_at = now()`,
      [last.height, last.hash, last.time],
    );
  }
  faultPoint?.('cursor');
  return { blocks: batch.blocks.length, txs, trades, newTokens, feedEvents, thresholdsStale };
}
