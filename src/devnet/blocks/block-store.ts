// Committed blocks: every block's header and hashes in memory, the most recent blocks whole,
// older ones read back from the block log on demand (so a long history stays small in RAM),
// with the tx index and a small cache of recently read results for paging within a block.
// Results are kept in the wire form (wire.ts) and read back to text for searches.
import { sha256 } from '@cosmjs/crypto';
import { toHex } from '@cosmjs/encoding';
import {
  type BlockEvents,
  type BlockMeta,
  type CommittedBlock,
  metaOf,
  type RenderedTxResult,
  resultsBytes,
  resultsJson,
  txAt,
} from './block.ts';
import { createTxIndex, type TxIndex } from './tx-index.ts';
import type { Wire } from './wire.ts';

export interface StoredAt {
  offset: number;
  length: number;
}

export interface BlockStore {
  readonly height: number;
  readonly index: TxIndex;
  /**
   * `results` in text; `hashes` (upper-case hex) when the caller has them already; `storedAt`
   * is where the block lies in the block log, which lets the store drop it from memory once it is old.
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
  /** The block's `txs_results` as stored: wire JSON, as bytes. */
  resultsBytes(height: number): Buffer;
  /** A block's results read back to text (replay). */
  textResultsOf(block: CommittedBlock): RenderedTxResult[];
  /** The block's results in text, for matching events. */
  results(height: number): RenderedTxResult[];
  /** The block's results in the wire form, for answers. */
  wireResults(height: number): RenderedTxResult[];
  blockEvents(height: number): BlockEvents;
  txHash(block: CommittedBlock, index: number): string;
}

/** Recent blocks stay whole in memory up to this many bytes; older ones are read from the log. */
const HOT_BYTES = 16 * 1024 * 1024;
const CACHED_BLOCKS = 8;

export function createBlockStore(readStored: ((at: StoredAt) => CommittedBlock) | null, wire: Wire): BlockStore {
  const metas: BlockMeta[] = [];
  const locations: (StoredAt | null)[] = [];
  const hot = new Map<number, CommittedBlock>();
  let hotBytes = 0;
  const sizeOf = (block: CommittedBlock) => block.txData.length + block.results.length;
  const index = createTxIndex();
  const resultsCache = new Map<number, RenderedTxResult[]>();
  const wireCache = new Map<number, RenderedTxResult[]>();
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

  function wireResults(height: number): RenderedTxResult[] {
    return (
      wireCache.get(height) ?? remember(wireCache, height, JSON.parse(resultsJson(get(height)!)) as RenderedTxResult[])
    );
  }

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
    resultsBytes: (height) => resultsBytes(get(height)!),
    textResultsOf: (block) => (JSON.parse(resultsJson(block)) as RenderedTxResult[]).map(wire.textResult),
    results: (height) => {
      const cached = resultsCache.get(height);
      if (cached) return cached;
      if (!wire.base64) return remember(resultsCache, height, wireResults(height));
      return remember(resultsCache, height, wireResults(height).map(wire.textResult));
    },
    wireResults,
    blockEvents: (height) => get(height)!.blockEvents,
    txHash: (block, i) => toHex(sha256(txAt(block, i))).toUpperCase(),
  };
}
