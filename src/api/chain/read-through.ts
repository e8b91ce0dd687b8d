// Blocks and transactions from the index, and from the node for what the index does not
// hold (docs/chain-api.md, "Blocks" and "Transactions"): heights below the index's first
// height, a gap, or a block the indexer has not written yet. The node's answers are
// shaped exactly as the indexer shapes what it stores (src/chain/rest-block.ts).
import { fromHex } from '@cosmjs/encoding';
import { HeightNotAvailableError, NodeError } from '../../chain/errors.ts';
import { attributesInBase64, readEvents } from '../../chain/node-events.ts';
import { restBlock } from '../../chain/rest-block.ts';
import { unpackEvents, unpackEventsJson } from '../../chain/stored-events.ts';
import { logOf } from '../../chain/stored-logs.ts';
import { txsAt } from '../../db/chain-txs.ts';
import { sql } from '../../db/sql.ts';
import { within } from '../../internal/backoff.ts';
import type { BlockParts } from './block-json.ts';
import type { ChainApiContext } from './context.ts';
import { GatewayError, GRPC, invalidArgument, nodeFailure } from './gateway.ts';
import { type AttributeForm, resultData, type TxRecord } from './tx-json.ts';

/**
 * The text of a JSON-RPC error the node answered with (src/chain/errors.ts keeps it), or
 * undefined when the node gave no answer (unreachable, timed out).
 */
export function nodeRpcError(error: unknown): string | undefined {
  return error instanceof NodeError ? error.said : undefined;
}

/** What CometBFT's `tx` answers for a hash it does not hold. */
const TX_NOT_FOUND = /\btx \([0-9a-f]*\) not found/i;

/** How long the node's tip height is kept: `blocks/latest` asks the node at most this often per process. */
const TIP_TTL_MS = 500;

/** The index's newest block height, if it holds any. */
export async function indexTip(ctx: ChainApiContext): Promise<number | undefined> {
  const [row] = await ctx.db.query<{ height: number }>('SELECT height FROM blocks ORDER BY height DESC LIMIT 1');
  return row ? Number(row.height) : undefined;
}

/**
 * The most recent finalized height: the node's tip, or the index's newest block when that
 * is newer (another process read the node later) or the node cannot be reached.
 */
export async function latestHeight(ctx: ChainApiContext): Promise<number> {
  const [node, index] = await Promise.allSettled([
    ctx.slow('chain:tip', TIP_TTL_MS, async () => (await ctx.chain.comet.status()).syncInfo.latestBlockHeight),
    indexTip(ctx),
  ]);
  const indexed = index.status === 'fulfilled' ? index.value : undefined;
  if (node.status === 'fulfilled') return Math.max(node.value, indexed ?? 0);
  if (indexed !== undefined) return indexed;
  if (index.status === 'rejected') throw index.reason;
  throw nodeFailure(node.reason);
}

export interface LoadedBlock {
  height: number;
  parts: BlockParts;
  /** Every tx of the block, in block order. */
  txs: Uint8Array[];
}

/** What a height outside the chain is answered with, by route. */
export interface HeightErrors {
  /** Height 0 or below. */
  notPositive(height: bigint): Promise<GatewayError> | GatewayError;
  /** Above the node's tip (`tip` when the node said it). */
  aboveTip(height: bigint, tip: number | undefined): Promise<GatewayError> | GatewayError;
}

/** GetBlockByHeight's: CometBFT's text for 0 and below, the SDK's for a height not reached. */
export const BLOCK_HEIGHT_ERRORS: HeightErrors = {
  notPositive: (height) => invalidArgument(`height must be greater than 0, but got ${height}`),
  aboveTip: () => invalidArgument('requested block height is bigger then the chain length'),
};

/**
 * The block's stored parts and its txs in one round trip: the block's row first, then its
 * txs in block order (one statement: a query costs the embedded database most of its time).
 */
const BLOCK_SQL = `
  SELECT * FROM (
    SELECT b.block, NULL::bytea AS tx_bytes, -1 AS tx_index FROM blocks b WHERE b.height = $1
    UNION ALL
    SELECT NULL::jsonb, t.tx_bytes, t.tx_index FROM txs t WHERE t.height = $1
  ) r ORDER BY r.tx_index`;

async function indexedBlock(ctx: ChainApiContext, height: number): Promise<LoadedBlock | undefined> {
  const rows = await ctx.db.query<{ block: BlockParts | string | null; tx_bytes: Uint8Array | null }>(BLOCK_SQL, [
    height,
  ]);
  const first = rows[0];
  // txs without their block row: not indexed (a block is written with its txs in one transaction)
  if (!first?.block) return undefined;
  const parts = typeof first.block === 'string' ? (JSON.parse(first.block) as BlockParts) : first.block;
  const txs: Uint8Array[] = [];
  for (let i = 1; i < rows.length; i++) txs.push(rows[i]!.tx_bytes!);
  return { height, parts, txs };
}

/** The block at `height`: from the index, else read through from the node. */
export async function loadBlock(
  ctx: ChainApiContext,
  height: bigint,
  errors: HeightErrors = BLOCK_HEIGHT_ERRORS,
): Promise<LoadedBlock> {
  if (height <= 0n) throw await errors.notPositive(height);
  if (height > BigInt(Number.MAX_SAFE_INTEGER)) throw await errors.aboveTip(height, undefined);
  const h = Number(height);
  const stored = await indexedBlock(ctx, h);
  if (stored) return stored;
  let response: Awaited<ReturnType<ChainApiContext['chain']['comet']['block']>>;
  try {
    response = await ctx.chain.comet.block(h);
  } catch (error) {
    const said = nodeRpcError(error);
    if (said === undefined) throw nodeFailure(error);
    // above the node's tip ("height 99 must be less than or equal to the current blockchain height 42")
    if (error instanceof HeightNotAvailableError && error.reason === 'ahead')
      throw await errors.aboveTip(height, error.nodeHeight);
    // below the node's pruning base: "height 3 is not available, lowest height is 40"
    throw new GatewayError(GRPC.UNKNOWN, said);
  }
  return { height: h, parts: restBlock(response), txs: [...response.block.txs] };
}

/** Columns of `txs` a TxRecord is made from (alias `t`). */
export const TX_COLUMNS =
  sql.raw(`upper(encode(t.hash, 'hex')) AS hash, t.height, t.tx_index, t.time, t.code, t.codespace, t.raw_log, t.log_packed, t.log_form,
  t.gas_wanted::text AS gas_wanted, t.gas_used::text AS gas_used, t.tx_bytes, t.events`);

export interface TxRow {
  hash: string;
  height: number;
  tx_index: number;
  time: Date;
  code: number;
  codespace: string;
  raw_log: string;
  log_packed: Uint8Array | null;
  log_form: string | null;
  gas_wanted: string;
  gas_used: string;
  tx_bytes: Uint8Array;
  events: Uint8Array;
}

/**
 * An indexed tx: its events as JSON text, printed straight from what the index keeps, or as
 * objects when its log is made from them. The index does not keep the result's data: `data`
 * is ''.
 */
export function txRecordOf(r: TxRow): TxRecord {
  const stored = { text: r.raw_log, packed: r.log_packed, form: r.log_form };
  // a log written from the events (SDKs before 0.50) is made from them again
  const events = stored.form ? unpackEvents(r.events) : unpackEventsJson(r.events);
  return {
    hash: r.hash,
    height: Number(r.height),
    index: r.tx_index,
    time: r.time,
    code: r.code,
    codespace: r.codespace,
    log: logOf(stored, typeof events === 'string' ? [] : events),
    data: '',
    gasWanted: r.gas_wanted,
    gasUsed: r.gas_used,
    bytes: r.tx_bytes,
    events,
  };
}

async function blockTime(ctx: ChainApiContext, height: number): Promise<Date> {
  const [row] = await ctx.db.query<{ time: Date }>('SELECT time FROM blocks WHERE height = $1', [height]);
  if (row) return row.time;
  const meta = (await ctx.chain.comet.blockchain(height, height)).blockMetas[0];
  if (!meta) throw new GatewayError(GRPC.UNKNOWN, `block ${height} not found`);
  return new Date((meta.header.time as Date).getTime());
}

/** How long a request waits for the node's protocol when it has not been read yet. */
const PROTOCOL_WAIT_MS = 1_000;

/**
 * How the chain's node prints event attributes (docs/chain-api.md "Transactions"): base64 on
 * Tendermint 0.34 (SDK 0.45 and 0.46), text later. Undefined when its protocol has not been
 * read yet and the node does not say within a second (a node not reached since the start):
 * the answer then prints text and is not kept.
 */
export async function attributeFormOf(ctx: ChainApiContext): Promise<AttributeForm | undefined> {
  const protocol =
    ctx.chain.heldProtocol() ??
    (await within(
      ctx.chain.ready().catch(() => undefined),
      PROTOCOL_WAIT_MS,
    ));
  if (protocol === undefined) return undefined;
  return attributesInBase64(protocol) ? 'base64' : 'text';
}

/**
 * The tx with this hash (upper-case hex): from the index, else asked of the node once
 * (older than the index, or not indexed yet). Undefined when neither holds it; a node that
 * cannot be reached is a 503.
 */
export async function loadTx(ctx: ChainApiContext, hash: string): Promise<TxRecord | undefined> {
  // found by hash through tx_hashes, then read at its position (src/db/chain-txs.ts); the same
  // bytes may be in two blocks (sql/0010_txs_by_position.sql): the latest, as a node answers
  const [row] = await ctx.db.query<TxRow>(
    sql`SELECT ${TX_COLUMNS}
        FROM ${txsAt(sql`SELECT height, tx_index FROM tx_hashes WHERE hash = decode(${hash}, 'hex') ORDER BY height DESC, tx_index DESC LIMIT 1`)}`,
  );
  if (row) return txRecordOf(row);
  try {
    const protocol = await ctx.chain.ready();
    const found = await ctx.chain.comet.tx({ hash: fromHex(hash) });
    const r = found.result;
    return {
      hash,
      height: found.height,
      index: found.index,
      time: await blockTime(ctx, found.height),
      code: r.code,
      codespace: r.codespace ?? '',
      log: r.log ?? '',
      data: resultData(r.data),
      gasWanted: r.gasWanted.toString(),
      gasUsed: r.gasUsed.toString(),
      bytes: found.tx,
      // as text whatever the node's protocol (base64 on Tendermint 0.34)
      events: readEvents(r.events, protocol).map((e) => ({
        type: e.type,
        attributes: e.attributes.map((a) => ({ key: a.key, value: a.value, index: true })),
      })),
      fromNode: true,
    };
  } catch (error) {
    if (error instanceof GatewayError) throw error;
    const said = nodeRpcError(error);
    if (said === undefined) throw nodeFailure(error);
    // the node holds no such tx: "tx (…) not found" (CometBFT 0.34 to 1.x)
    if (TX_NOT_FOUND.test(said)) return undefined;
    // any other answer in the node's own words, as the SDK's gateway passes it on: a node that
    // cannot look txs up ("transaction indexing is disabled") has not said the tx does not exist
    throw new GatewayError(GRPC.UNKNOWN, said);
  }
}
