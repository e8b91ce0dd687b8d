// Committed blocks: every block's header and hashes in memory, the most recent blocks whole,
// older ones read back from the block log on demand (so a long history stays small in RAM),
// with the tx index and a small cache of recently read results for paging within a block.
import { sha256 } from '@cosmjs/crypto';
import { toHex } from '@cosmjs/encoding';
import { type BlockMeta, type CommittedBlock, metaOf, type RenderedTxResult, resultsJson, txAt } from './block.ts';
import { createTxIndex, type TxIndex } from './tx-index.ts';

export interface StoredAt {
  offset: number;
  length: number;
}

export interface BlockStore {
  readonly height: number;
  readonly index: TxIndex;
  /**
   * `hashes` (upper-case hex) when the caller has them already; `storedAt` is where the block
   * lies in the block log, which lets the store drop it from memory once it is old.
   */
  add(
    block: CommittedBlock,
    results: readonly RenderedTxResult[],
    hashes: readonly string[] | undefined,
    storedAt: StoredAt | null,
  ): void;
  get(height: number): CommittedBlock | undefined;
  meta(height: number): BlockMeta | undefined;
  latestMeta(): BlockMeta | undefined;
  resultsJson(height: number): string;
  resultsJsonOf(block: CommittedBlock): string;
  results(height: number): RenderedTxResult[];
  txHash(block: CommittedBlock, index: number): string;
}

/** Recent blocks stay whole in memory up to this many bytes; older ones are read from the log. */
const HOT_BYTES = 16 * 1024 * 1024;
const CACHED_BLOCKS = 8;

export function createBlockStore(readStored: ((at: StoredAt) => CommittedBlock) | null): BlockStore {
  const metas: BlockMeta[] = [];
  const locations: (StoredAt | null)[] = [];
  const hot = new Map<number, CommittedBlock>();
  let hotBytes = 0;
  const sizeOf = (block: CommittedBlock) => block.txData.length + block.results.length;
  const index = createTxIndex();
  const resultsCache = new Map<number, RenderedTxResult[]>();
  const coldCache = new Map<number, CommittedBlock>();

  const remember = <T>(cache: Map<number, T>, height: number, value: T) => {
    cache.set(height, value);
    if (cache.size > CACHED_BLOCKS) cache.delete(cache.keys().next().value!);
    return value;
  };

  const get = (height: number): CommittedBlock | undefined => {
    if (!Number.isInteger(height) || height < 1 || height > metas.length) return undefined;
    const block = hot.get(height) ?? coldCache.get(height);
    if (block) return block;
    return remember(coldCache, height, readStored!(locations[height - 1]!));
  };

  return {
    get height() {
      return metas.length;
    },
    index,
    add(block, results, hashes, storedAt) {
      const height = block.header.height;
      if (height !== metas.length + 1) throw new Error(`block ${height} does not follow ${metas.length}`);
      metas.push(metaOf(block));
      locations.push(storedAt);
      hot.set(height, block);
      hotBytes += sizeOf(block);
      for (const [oldest, old] of hot) {
        if (!readStored || hotBytes <= HOT_BYTES || oldest === height || !locations[oldest - 1]) break;
        hot.delete(oldest);
        hotBytes -= sizeOf(old);
      }
      const txHashes =
        hashes ?? Array.from({ length: block.txCount }, (_, i) => toHex(sha256(txAt(block, i))).toUpperCase());
      index.add(height, txHashes, results);
    },
    get,
    meta: (height) => (Number.isInteger(height) && height >= 1 ? metas[height - 1] : undefined),
    latestMeta: () => metas[metas.length - 1],
    resultsJson: (height) => resultsJson(get(height)!),
    resultsJsonOf: (block) => resultsJson(block),
    results: (height) =>
      resultsCache.get(height) ??
      remember(resultsCache, height, JSON.parse(resultsJson(get(height)!)) as RenderedTxResult[]),
    txHash: (block, i) => toHex(sha256(txAt(block, i))).toUpperCase(),
  };
}
