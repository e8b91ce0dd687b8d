// What the HTTP layer may know about the index, passed in by whoever starts a server:
// its position (read from the database) and, when this process runs the indexer, the
// indexer's live status. Health and metrics read only this, never the indexer itself.

export interface IndexPosition {
  chainId: string;
  lastHeight: number;
  lastBlockTime: Date;
}

export interface IndexStatus {
  /** starting, standby, syncing, live, lagging, rate_limited, node_unreachable, node_error, node_pruned, database_unavailable, failed or stopped */
  state: string;
  chainId: string | null;
  indexedHeight: number | null;
  tipHeight: number | null;
  lagBlocks: number | null;
  lagSeconds: number | null;
  error: string | null;
}

export interface IndexSource {
  /** The last indexed block, from the database (undefined before the first); rejects when the database fails. */
  position(): Promise<IndexPosition | undefined>;
  /** The in-process indexer's status, when this process runs one. */
  live?: () => IndexStatus;
}
