// The indexer's cursor and the identity of the chain it indexes: recorded with the
// first block, checked at start and with every batch, so an index is never extended
// with blocks of another chain.
import { toHex } from '@cosmjs/encoding';
import type { ChainClient } from '../chain/client.ts';
import { HeightNotAvailableError, NodeBehindError } from '../chain/errors.ts';
import type { Queryable } from '../db/types.ts';
import { ChainMismatchError, nodeCall } from './errors.ts';

export interface Cursor {
  chainId: string;
  firstHeight: number;
  firstBlockHash: string;
  lastHeight: number;
  lastBlockHash: string;
  lastBlockTime: Date;
}

export async function readCursor(db: Queryable, { forUpdate = false } = {}): Promise<Cursor | undefined> {
  const [row] = await db.query<{
    chain_id: string;
    first_height: number;
    first_block_hash: string;
    last_height: number;
    last_block_hash: string;
    last_block_time: Date;
  }>(
    `SELECT chain_id, first_height, first_block_hash, last_height, last_block_hash, last_block_time FROM indexer_state${forUpdate ? ' FOR UPDATE' : ''}`,
  );
  if (!row) return undefined;
  return {
    chainId: row.chain_id,
    firstHeight: Number(row.first_height),
    firstBlockHash: row.first_block_hash,
    lastHeight: Number(row.last_height),
    lastBlockHash: row.last_block_hash,
    lastBlockTime: row.last_block_time,
  };
}

const WHAT_TO_DO =
  'Point CHAIN_RPC_URL at the chain this database indexes, or index the new chain into an empty database (another DATA_DIR, or another DATABASE_URL).';

/** What the node says about itself, for the identity check. */
export interface NodeView {
  chainId: string;
  tipHeight: number;
  /** The lowest height whose block the node keeps (1 on an archive node). */
  earliestHeight: number;
  /** The node's block hash at a height, or undefined when the node does not have that block. */
  blockHash(height: number): Promise<string | undefined>;
}

/**
 * The node's view for the identity check. A block the node has pruned, or has not reached,
 * has no hash to compare; any other failure is a NodeError, never a silently skipped check.
 */
export async function nodeViewOf(chain: ChainClient): Promise<NodeView> {
  const status = await nodeCall('status', () => chain.comet.status());
  return {
    chainId: status.nodeInfo.network,
    tipHeight: status.syncInfo.latestBlockHeight,
    earliestHeight: Math.max(1, status.syncInfo.earliestBlockHeight ?? 1),
    async blockHash(height) {
      try {
        const { blockMetas } = await nodeCall(`blockchain ${height}`, () => chain.comet.blockchain(height, height));
        const meta = blockMetas.find((m) => m.header.height === height);
        return meta ? toHex(meta.blockId.hash).toUpperCase() : undefined;
      } catch (error) {
        if (error instanceof HeightNotAvailableError) return undefined;
        throw error;
      }
    },
  };
}

/** The index's hash of the block at `height`, when the index holds it. */
async function indexedHash(db: Queryable, height: number): Promise<string | undefined> {
  const [row] = await db.query<{ hash: string }>('SELECT hash FROM blocks WHERE height = $1', [height]);
  return row?.hash;
}

/**
 * Refuses (ChainMismatchError) when the node is not the chain the cursor was recorded on:
 * another chain id, or another block hash at a height both the index and the node hold.
 * A node whose chain is shorter than the index but agrees where both have blocks is
 * behind (NodeBehindError): waited for, never taken for another chain.
 */
export async function verifyChainIdentity(cursor: Cursor, node: NodeView, db?: Queryable): Promise<void> {
  const where = `This database indexes chain ${cursor.chainId} from height ${cursor.firstHeight} (block hash ${cursor.firstBlockHash.slice(0, 12)}…) up to height ${cursor.lastHeight}`;
  if (node.chainId !== cursor.chainId) {
    throw new ChainMismatchError(`${where}, but the node serves chain ${node.chainId}. ${WHAT_TO_DO}`);
  }
  // heights both hold: the index's first block and the highest block both have
  const common = Math.min(cursor.lastHeight, node.tipHeight);
  const checks: [number, string | undefined][] = [[cursor.firstHeight, cursor.firstBlockHash]];
  if (common === cursor.lastHeight) checks.push([common, cursor.lastBlockHash]);
  else if (common > cursor.firstHeight && db) checks.push([common, await indexedHash(db, common)]);
  for (const [height, expected] of checks) {
    if (expected === undefined || height > node.tipHeight || height < node.earliestHeight) continue;
    const actual = await node.blockHash(height);
    if (actual !== undefined && actual !== expected) {
      throw new ChainMismatchError(
        `${where}, but the node's block ${height} has hash ${actual.slice(0, 12)}… instead of ${expected.slice(0, 12)}…: it is another chain (a devnet restarted from genesis?). ${WHAT_TO_DO}`,
      );
    }
  }
  if (node.tipHeight < cursor.lastHeight) {
    throw new NodeBehindError(
      `the node is at height ${node.tipHeight}, behind the index at ${cursor.lastHeight}: waiting for it to catch up (a lagging or syncing node, or a backend of a load balancer that is behind)`,
    );
  }
}
