// The indexer's cursor and the identity of the chain it indexes: recorded with the
// first block, checked at start and with every batch, so an index is never extended
// with blocks of another chain.
import { toHex } from '@cosmjs/encoding';
import type { ChainClient } from '../chain/client.ts';
import type { Queryable } from '../db/types.ts';
import { ChainMismatchError, NodeError, nodeCall } from './errors.ts';

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
  /** The node's block hash at a height, or undefined when the node no longer has that block. */
  blockHash(height: number): Promise<string | undefined>;
}

/**
 * The node's view for the identity check. A block the node has pruned has no hash to
 * compare; any other failure is a NodeError, never a silently skipped check.
 */
export async function nodeViewOf(chain: ChainClient): Promise<NodeView> {
  const status = await nodeCall('status', () => chain.comet.status());
  return {
    chainId: status.nodeInfo.network,
    tipHeight: status.syncInfo.latestBlockHeight,
    async blockHash(height) {
      try {
        const { blockMetas } = await chain.comet.blockchain(height, height);
        const meta = blockMetas.find((m) => m.header.height === height);
        return meta ? toHex(meta.blockId.hash).toUpperCase() : undefined;
      } catch (error) {
        if (/not available|lowest height/i.test((error as Error).message)) return undefined;
        throw new NodeError(`blockchain ${height}: ${(error as Error).message}`, { cause: error });
      }
    },
  };
}

/** Refuses (ChainMismatchError) when the node is not the chain the cursor was recorded on. */
export async function verifyChainIdentity(cursor: Cursor, node: NodeView): Promise<void> {
  const where = `This database indexes chain ${cursor.chainId} from height ${cursor.firstHeight} (block hash ${cursor.firstBlockHash.slice(0, 12)}…) up to height ${cursor.lastHeight}`;
  if (node.chainId !== cursor.chainId) {
    throw new ChainMismatchError(`${where}, but the node serves chain ${node.chainId}. ${WHAT_TO_DO}`);
  }
  if (node.tipHeight < cursor.lastHeight) {
    throw new ChainMismatchError(
      `${where}, but the node's chain is only ${node.tipHeight} blocks high: it is another chain with the same id (a devnet restarted from genesis?). ${WHAT_TO_DO}`,
    );
  }
  for (const [height, expected] of [
    [cursor.firstHeight, cursor.firstBlockHash],
    [cursor.lastHeight, cursor.lastBlockHash],
  ] as const) {
    const actual = await node.blockHash(height);
    if (actual !== undefined && actual !== expected) {
      throw new ChainMismatchError(
        `${where}, but the node's block ${height} has hash ${actual.slice(0, 12)}… instead of ${expected.slice(0, 12)}…: it is another chain (a devnet restarted from genesis?). ${WHAT_TO_DO}`,
      );
    }
  }
}
