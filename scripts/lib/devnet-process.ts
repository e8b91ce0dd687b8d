// A devnet in a child process for benchmarks (as a real node is a separate process):
// optionally continuing the chain kept in `dataDir` (the child reads its block log back, so
// a second run reuses it), pregenerating what is missing of `pregenerate` trades
// (`tradesPerBlock` a block, each trade one tx), then serving its RPC, with live blocks when
// `blockMs` is set. Also the service's backfill of such a devnet's chain.
import type { ChainClient } from '../../src/chain/client.ts';
import type { Database } from '../../src/db/types.ts';
import { type BackfillOptions, backfill } from '../../src/indexer/backfill.ts';
import { silentLogger } from '../../src/internal/logger.ts';
import { type BenchChild, startBenchChild } from './bench-child.ts';

export interface DevnetProcess extends BenchChild {
  rpcUrl: string;
  contracts: { launchpad: string; amm: string };
  height: number;
  trades: number;
  /** What the data directory held when the child started. */
  restored: { height: number; trades: number };
  restoreSeconds: number;
  /** 0 when nothing had to be generated. */
  generateSeconds: number;
}

export interface DevnetProcessOptions {
  /** Where the chain is kept (and continued from); without it, a scratch directory. */
  dataDir?: string;
  /** Trades the chain holds before serving: those missing are pregenerated. */
  pregenerate?: number;
  /** Default 1000. */
  tradesPerBlock?: number;
  /** After pregeneration: automatic blocks every blockMs with `liveRate` trades each (0 = none). */
  blockMs?: number;
  liveRate?: number;
  /** The protocol the devnet speaks (default 0.38). */
  cometVersion?: '0.34' | '0.37' | '0.38';
}

export type PregenerateProgress = { trades: number; height: number; seconds: number };

export function startDevnetProcess(
  options: DevnetProcessOptions,
  onProgress?: (p: PregenerateProgress) => void,
): Promise<DevnetProcess> {
  return startBenchChild(new URL('./devnet-child.ts', import.meta.url), options, {
    name: 'the devnet process',
    nodeOptions: ['--max-old-space-size=6144'],
    onLine: (line) => {
      if (line.startsWith('progress ')) onProgress?.(JSON.parse(line.slice(9)));
    },
  });
}

/** The service's backfill (logging nothing) of the devnet's heights `from` to its height, into `db`. */
export function backfillDevnet(
  devnet: DevnetProcess,
  options: { db: Database; chain: ChainClient; from: number; onBatch: BackfillOptions['onBatch'] },
) {
  return backfill({ ...options, contracts: devnet.contracts, logger: silentLogger, to: devnet.height });
}
