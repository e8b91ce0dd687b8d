// Completes token rows from contract queries (CW20 token_info and marketing_info, the
// launchpad's progress) outside the indexer's transaction: a failed query is retried
// later with backoff and never holds up indexing. A curve token's graduation threshold
// comes from the same progress query, and is asked again whenever the indexer saw the
// oracle price change (threshold_stale).
import type { ChainClient } from '../chain/client.ts';
import { CONTRACT_QUERIES } from '../chain/contract-events.ts';
import type { Database } from '../db/types.ts';
import type { ContractAddresses } from '../domain/events.ts';
import { notify } from '../feed/notice.ts';
import type { Logger } from '../internal/logger.ts';

interface PendingToken {
  address: string;
  source: 'launchpad' | 'amm';
  metadata_attempts: number;
}

interface TokenInfo {
  name?: string;
  symbol?: string;
  decimals?: number;
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

async function fetchMetadata(chain: ChainClient, contracts: ContractAddresses, token: PendingToken) {
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
    const pending = await db.query<PendingToken>(
      `SELECT address, source, metadata_attempts FROM tokens
       WHERE NOT metadata_fetched AND (metadata_retry_at IS NULL OR metadata_retry_at <= now())
       ORDER BY first_seen_at LIMIT $1`,
      [batch],
    );
    await Promise.all(
      pending.map(async (token) => {
        try {
          const m = await fetchMetadata(chain, contracts, token);
          // Event values come first: queries only fill what the launch event did not carry.
          await db.query(
            `UPDATE tokens SET
               name = coalesce(nullif(name, ''), $2), symbol = coalesce(nullif(symbol, ''), $3), decimals = coalesce(decimals, $4),
               description = coalesce(nullif(description, ''), $5), image = coalesce(nullif(image, ''), $6), creator = coalesce(creator, $7),
               current_price = CASE WHEN price_seq = 0 AND $8::numeric IS NOT NULL THEN $8::numeric ELSE current_price END,
               graduation_threshold = coalesce($9::numeric, graduation_threshold),
               metadata_fetched = true, metadata_retry_at = NULL
             WHERE address = $1`,
            [token.address, m.name, m.symbol, m.decimals, m.description, m.image, m.creator, m.spotPrice, m.threshold],
          );
          await notify(db, { kind: 'token', address: token.address });
        } catch (error) {
          const attempts = token.metadata_attempts + 1;
          const delayMs = Math.min(MAX_RETRY_MS, 1000 * 2 ** Math.min(attempts, 10));
          await db.query(
            `UPDATE tokens SET metadata_attempts = $2, metadata_retry_at = now() + make_interval(secs => $3) WHERE address = $1`,
            [token.address, attempts, delayMs / 1000],
          );
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
   * Reads the thresholds the indexer marked stale, `batch` tokens at a time. The mark is
   * cleared before the query, so a price change during it marks the token again; a failed
   * query marks it again too, and the next run retries. True when more may be waiting.
   */
  const refreshThresholds = async (): Promise<boolean> => {
    const due = await db.query<{ address: string }>(
      `UPDATE tokens SET threshold_stale = false
       WHERE address IN (SELECT address FROM tokens WHERE threshold_stale ORDER BY address LIMIT $1)
       RETURNING address`,
      [batch],
    );
    if (due.length === 0) return false;
    let failed = 0;
    await Promise.all(
      due.map(async ({ address }) => {
        try {
          const progress = await chain.smartQuery<Progress>(contracts.launchpad, CONTRACT_QUERIES.progress(address));
          await db.query(
            `UPDATE tokens SET graduation_threshold = coalesce($2::numeric, graduation_threshold) WHERE address = $1`,
            [address, thresholdOf(progress)],
          );
        } catch (error) {
          failed++;
          await db.query(`UPDATE tokens SET threshold_stale = true WHERE address = $1`, [address]);
          if (failed === 1)
            logger.warn(
              { token: address, err: (error as Error).message },
              'Graduation threshold query failed; will retry',
            );
        }
      }),
    );
    await notify(db, { kind: 'changed' }); // the API's cached token answers are stale
    return failed === 0 && due.length === batch;
  };

  const loop = async () => {
    do {
      again = false;
      await runOnce().catch((error) => logger.warn({ err: error }, 'Token metadata run failed'));
      if (await refreshThresholds().catch((error) => logger.warn({ err: error }, 'Graduation threshold run failed')))
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
