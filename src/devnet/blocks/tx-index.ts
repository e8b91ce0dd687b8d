// The tx index behind `tx` and `tx_search`: hash → position, and for the event attributes
// callers search by (the Cosmos tx search forms and a few more), attribute value → positions.
// A position packs (height, tx index) into one number so lists stay compact and sorted.
import type { RenderedTxResult } from './block.ts';

export const MAX_TXS_PER_BLOCK = 65_536;
/**
 * Where a block's own events (its BeginBlock and EndBlock contract calls) stand among its txs
 * in the ledger: after them, at the one index no tx can take (a block holds at most 32,767
 * txs). 32767, as the index places them: the highest tx index its order key keeps in order.
 */
export const BLOCK_CALLS_TX_INDEX = 32_767;
export const packPosition = (height: number, index: number) => height * MAX_TXS_PER_BLOCK + index;
export const unpackPosition = (position: number) => ({
  height: Math.floor(position / MAX_TXS_PER_BLOCK),
  index: position % MAX_TXS_PER_BLOCK,
});

/** Event attributes with their own index; other conditions are checked against each candidate's events. */
export const INDEXED_ATTRIBUTES = new Set([
  'message.action',
  'message.sender',
  'transfer.recipient',
  'transfer.sender',
  'execute._contract_address',
  'wasm._contract_address',
]);

export interface TxIndex {
  add(height: number, hashes: readonly string[], results: readonly Pick<RenderedTxResult, 'events'>[]): void;
  position(hash: string): number | undefined;
  /** Sorted positions of txs with an event attribute `type.key = value` (an indexed one). */
  positions(compositeKey: string, value: string): readonly number[];
  readonly size: number;
}

export function createTxIndex(): TxIndex {
  const byHash = new Map<string, number>();
  const byAttribute = new Map<string, number[]>();
  return {
    add(height, hashes, results) {
      hashes.forEach((hash, index) => {
        const position = packPosition(height, index);
        byHash.set(hash, position);
        const seen = new Set<string>();
        for (const e of results[index]!.events) {
          for (const a of e.attributes) {
            const composite = `${e.type}.${a.key}`;
            if (!INDEXED_ATTRIBUTES.has(composite)) continue;
            const key = `${composite}=${a.value}`;
            if (seen.has(key)) continue;
            seen.add(key);
            let list = byAttribute.get(key);
            if (!list) {
              list = [];
              byAttribute.set(key, list);
            }
            list.push(position);
          }
        }
      });
    },
    position: (hash) => byHash.get(hash),
    positions: (compositeKey, value) => byAttribute.get(`${compositeKey}=${value}`) ?? [],
    get size() {
      return byHash.size;
    },
  };
}
