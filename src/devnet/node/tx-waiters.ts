// What broadcast_tx_commit waits on: a promise per tx hash that resolves when a block
// commits the tx (or with null after a timeout).
import type { CommittedBlock, RenderedTxResult } from '../blocks/block.ts';

export interface CommittedTx {
  height: number;
  index: number;
  result: RenderedTxResult;
}

export interface TxWaiters {
  wait(hash: string, timeoutMs: number): Promise<CommittedTx | null>;
  /** Resolves the waiters of the block's txs; `hashOf` is asked only while someone waits. */
  notify(block: CommittedBlock, results: readonly RenderedTxResult[], hashOf: (index: number) => string): void;
}

export function createTxWaiters(): TxWaiters {
  const waiters = new Map<string, ((tx: CommittedTx) => void)[]>();
  return {
    wait(hash, timeoutMs) {
      return new Promise((resolve) => {
        const timer = setTimeout(() => {
          const list = waiters.get(hash);
          if (list) list.splice(list.indexOf(done), 1);
          resolve(null);
        }, timeoutMs);
        const done = (tx: CommittedTx) => {
          clearTimeout(timer);
          resolve(tx);
        };
        const list = waiters.get(hash) ?? [];
        list.push(done);
        waiters.set(hash, list);
      });
    },
    notify(block, results, hashOf) {
      for (let i = 0; i < block.txCount && waiters.size > 0; i++) {
        const hash = hashOf(i);
        const list = waiters.get(hash);
        if (!list) continue;
        waiters.delete(hash);
        for (const resolve of list) resolve({ height: block.header.height, index: i, result: results[i]! });
      }
    },
  };
}
