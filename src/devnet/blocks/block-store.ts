// Committed blocks in memory, compactly (tx bytes packed, results deflated), with the tx
// index and a small cache of recently read results so paging through one block stays cheap.
import { sha256 } from '@cosmjs/crypto';
import { toHex } from '@cosmjs/encoding';
import { type CommittedBlock, type RenderedTxResult, resultsJson, txAt } from './block.ts';
import { createTxIndex, type TxIndex } from './tx-index.ts';

export interface BlockStore {
  readonly height: number;
  readonly index: TxIndex;
  /** `hashes` (upper-case hex) when the caller has them already; computed otherwise. */
  add(block: CommittedBlock, results: readonly RenderedTxResult[], hashes?: readonly string[]): void;
  get(height: number): CommittedBlock | undefined;
  latest(): CommittedBlock | undefined;
  resultsJson(height: number): string;
  resultsJsonOf(block: CommittedBlock): string;
  results(height: number): RenderedTxResult[];
  txHash(block: CommittedBlock, index: number): string;
}

const CACHED_BLOCKS = 8;

export function createBlockStore(): BlockStore {
  const blocks: CommittedBlock[] = [];
  const index = createTxIndex();
  const cache = new Map<number, RenderedTxResult[]>();

  const get = (height: number) => (Number.isInteger(height) && height >= 1 ? blocks[height - 1] : undefined);
  return {
    get height() {
      return blocks.length;
    },
    index,
    add(block, results, hashes) {
      if (block.header.height !== blocks.length + 1) throw new Error(`block ${block.header.height} does not follow ${blocks.length}`);
      blocks.push(block);
      const txHashes = hashes ?? Array.from({ length: block.txCount }, (_, i) => toHex(sha256(txAt(block, i))).toUpperCase());
      index.add(block.header.height, txHashes, results);
    },
    get,
    latest: () => blocks[blocks.length - 1],
    resultsJson: (height) => resultsJson(get(height)!),
    resultsJsonOf: (block) => resultsJson(block),
    results(height) {
      const cached = cache.get(height);
      if (cached) return cached;
      const parsed = JSON.parse(resultsJson(get(height)!)) as RenderedTxResult[];
      cache.set(height, parsed);
      if (cache.size > CACHED_BLOCKS) cache.delete(cache.keys().next().value!);
      return parsed;
    },
    txHash: (block, i) => toHex(sha256(txAt(block, i))).toUpperCase(),
  };
}
