// The mempool: transactions that passed CheckTx, oldest first, until a block takes them.
export interface PendingTx {
  bytes: Uint8Array;
  hash: string;
}

export interface Mempool {
  readonly size: number;
  has(hash: string): boolean;
  add(tx: PendingTx): void;
  /** Removes and returns up to `max` transactions, oldest first. */
  take(max: number): PendingTx[];
}

export function createMempool(): Mempool {
  const txs: PendingTx[] = [];
  const hashes = new Set<string>();
  return {
    get size() {
      return txs.length;
    },
    has: (hash) => hashes.has(hash),
    add(tx) {
      txs.push(tx);
      hashes.add(tx.hash);
    },
    take(max) {
      const taken = txs.splice(0, max);
      for (const { hash } of taken) hashes.delete(hash);
      return taken;
    },
  };
}
