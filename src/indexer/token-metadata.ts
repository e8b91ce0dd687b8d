// Completes token rows from contract queries (CW20 token_info and marketing_info, the
// launchpad's progress) outside the indexer's transaction: a failed query is retried
// later with backoff and never holds up indexing. A curve token's graduation threshold
// comes from the same progress query, and is asked again whenever the indexer saw the
// oracle price change (threshold_stale).
import type { ChainClient } from '../chain/client.ts';
import { CONTRACT_QUERIES } from '../chain/contract-events.ts';
import {
  markStale,
  metadataFailed,
  type PendingToken,
  type StaleMark,
  storeMetadata,
  storeSupply,
  storeThreshold,
  type TokenMetadata,
  takeStale,
  tokensDueForMetadata,
} from '../db/tokens.ts';
import type { Database } from '../db/types.ts';
import type { ContractAddresses } from '../domain/events.ts';
import { notify } from '../feed/notice.ts';
import type { Logger } from '../internal/logger.ts';

interface TokenInfo {
  name?: string;
  symbol?: string;
  decimals?: number;
  total_supply?: string;
}
interface MarketingInfo {
  description?: string | null;
  logo?: { url?: string } | string | null;
}
interface Progress {
  creator?: string;
  graduated?: boolean;
  spot_price_unative?: string;
  native_reserves?: string;
  graduation_threshold?: string;
}

const UINT = /^\d+$/;
/** The progress answer's threshold when it is a positive integer, else null. */
const thresholdOf = (p: Progress | undefined) =>
  p?.graduation_threshold && UINT.test(p.graduation_threshold) && BigInt(p.graduation_threshold) > 0n
    ? p.graduation_threshold
    : null;

const MAX_RETRY_MS = 10 * 60_000;

async function fetchMetadata(
  chain: ChainClient,
  contracts: ContractAddresses,
  token: PendingToken,
): Promise<TokenMetadata> {
  const [info, marketing, progress] = await Promise.all([
    chain.smartQuery<TokenInfo>(token.address, CONTRACT_QUERIES.tokenInfo),
    chain.smartQuery<MarketingInfo>(token.address, CONTRACT_QUERIES.marketingInfo).catch(() => ({}) as MarketingInfo), // optional in CW20
    token.source === 'launchpad'
      ? chain.smartQuery<Progress>(contracts.launchpad, CONTRACT_QUERIES.progress(token.address))
      : Promise.resolve(undefined),
  ]);
  const logo = marketing.logo;
  return {
    name: info.name ?? null,
    symbol: info.symbol ?? null,
    decimals: typeof info.decimals === 'number' ? info.decimals : null,
    description: marketing.description ?? null,
    image: logo && typeof logo === 'object' && typeof logo.url === 'string' ? logo.url : null,
    creator: progress?.creator ?? null,
    spotPrice:
      progress?.spot_price_unative && UINT.test(progress.spot_price_unative) ? progress.spot_price_unative : null,
    threshold: thresholdOf(progress),
    totalSupply: info.total_supply && UINT.test(info.total_supply) ? info.total_supply : null,
  };
}

export interface MetadataFetcher {
  /** Fetches what is due now; a call during a run makes it go round once more. */
  run(): Promise<void>;
  /** Resolves when no run is in progress. */
  settled(): Promise<void>;
}

export function createMetadataFetcher({
  db,
  chain,
  contracts,
  logger,
  batch = 25,
}: {
  db: Database;
  chain: ChainClient;
  contracts: ContractAddresses;
  logger: Logger;
  batch?: number;
}): MetadataFetcher {
  let running: Promise<void> | undefined;
  let again = false;

  const runOnce = async () => {
    const pending = await tokensDueForMetadata(db, batch);
    await Promise.all(
      pending.map(async (token) => {
        try {
          const m = await fetchMetadata(chain, contracts, token);
          await storeMetadata(db, token.address, m);
          await notify(db, { kind: 'metadata', tokens: [token.address] });
        } catch (error) {
          const attempts = token.metadata_attempts + 1;
          const delayMs = Math.min(MAX_RETRY_MS, 1000 * 2 ** Math.min(attempts, 10));
          await metadataFailed(db, token.address, attempts, delayMs / 1000);
          if (attempts === 1 || attempts % 10 === 0) {
            logger.warn(
              { token: token.address, attempts, retry_in_ms: delayMs, err: (error as Error).message },
              'Token metadata query failed; will retry',
            );
          }
        }
      }),
    );
  };

  /**
   * Reads again the facts the indexer marked stale (`mark`), `batch` tokens at a time, with
   * `read` (which stores what it read). The mark is cleared before the query, so a change
   * during it marks the token again; a failed query marks it again too, and the next run
   * retries. True when more may be waiting.
   */
  const refresh = async (mark: StaleMark, what: string, read: (address: string) => Promise<void>) => {
    const due = await takeStale(db, mark, batch);
    if (due.length === 0) return false;
    let failed = 0;
    await Promise.all(
      due.map(async (address) => {
        try {
          await read(address);
        } catch (error) {
          failed++;
          await markStale(db, mark, address);
          if (failed === 1)
            logger.warn({ token: address, err: (error as Error).message }, `${what} query failed; will retry`);
        }
      }),
    );
    await notify(db, { kind: 'metadata', tokens: due });
    return failed === 0 && due.length === batch;
  };
  /** The graduation threshold of every curve token, after the oracle price moved. */
  const refreshThresholds = () =>
    refresh('threshold_stale', 'Graduation threshold', async (address) => {
      const progress = await chain.smartQuery<Progress>(contracts.launchpad, CONTRACT_QUERIES.progress(address));
      await storeThreshold(db, address, thresholdOf(progress));
    });
  /** The total supply of the tokens the indexer saw minted or burnt. */
  const refreshSupplies = () =>
    refresh('supply_stale', 'Total supply', async (address) => {
      const info = await chain.smartQuery<TokenInfo>(address, CONTRACT_QUERIES.tokenInfo);
      if (!info.total_supply || !UINT.test(info.total_supply)) throw new Error('token_info has no total_supply');
      await storeSupply(db, address, info.total_supply);
    });

  const loop = async () => {
    do {
      again = false;
      await runOnce().catch((error) => logger.warn({ err: error }, 'Token metadata run failed'));
      if (await refreshThresholds().catch((error) => logger.warn({ err: error }, 'Graduation threshold run failed')))
        again = true;
      if (await refreshSupplies().catch((error) => logger.warn({ err: error }, 'Total supply run failed')))
        again = true;
    } while (again);
    running = undefined;
  };

  return {
    run() {
      if (running) again = true;
      else running = loop();
      return running;
    },
    settled: () => running ?? Promise.resolve(),
  };
}
