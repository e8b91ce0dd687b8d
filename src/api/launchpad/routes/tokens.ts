// GET /api/tokens and GET /api/tokens/:address (docs/launchpad-api.md "Token"): tokens with their reserves,
// last price, the last 24 hours of volume and trades, and a curve token's graduation threshold and progress.
import { z } from 'zod';
import type { Database } from '../../../db/types.ts';
import { notFound } from '../../http/errors.ts';
import { sendJsonText } from '../../http/respond.ts';
import { ANY, type ResponseCache, tokenTag } from '../../http/response-cache.ts';
import { bech32Address, parseOrThrow } from '../../http/validate.ts';
import type { Handler } from '../handler.ts';

interface TokenRow {
  address: string;
  name: string | null;
  symbol: string | null;
  image: string | null;
  description: string | null;
  creator: string | null;
  source: string;
  graduated: boolean;
  native_reserves: string;
  current_price: string;
  volume_24h: string;
  trade_count_24h: number;
  created_at: Date | null;
  first_seen_at: Date;
  graduation_threshold: string | null;
}

const TOKEN_COLUMNS = `
  t.address, t.name, t.symbol, t.image, t.description, t.creator, t.source, t.graduated,
  t.native_reserves::text AS native_reserves, t.current_price::text AS current_price,
  coalesce(s.volume, 0)::text AS volume_24h, coalesce(s.trades, 0)::int AS trade_count_24h,
  t.created_at, t.first_seen_at, t.graduation_threshold::text AS graduation_threshold`;

/**
 * A curve token's progress toward graduation: reserves ÷ threshold to the basis point
 * (floored, at most 1), written as the launchpad's progress query writes it ("0.0041").
 */
export function graduationProgress(reserves: string, threshold: string): string {
  const bps = (BigInt(reserves) * 10_000n) / BigInt(threshold);
  const capped = bps > 10_000n ? 10_000n : bps;
  return `${capped / 10_000n}.${(capped % 10_000n).toString().padStart(4, '0')}`;
}

/** Both graduation fields: null for a graduated or AMM token, and until the launchpad told the threshold. */
function graduationJson(t: TokenRow) {
  const curve =
    t.source === 'launchpad' && !t.graduated && t.graduation_threshold !== null && t.graduation_threshold !== '0';
  return {
    graduation_threshold: curve ? t.graduation_threshold : null,
    graduation_progress: curve ? graduationProgress(t.native_reserves, t.graduation_threshold!) : null,
  };
}

const tokenJson = (t: TokenRow) => ({
  address: t.address,
  name: t.name,
  symbol: t.symbol,
  image: t.image,
  description: t.description,
  creator: t.creator,
  source: t.source,
  graduated: t.graduated,
  native_reserves: t.native_reserves,
  current_price: t.current_price,
  volume_24h: t.volume_24h,
  trade_count_24h: Number(t.trade_count_24h),
  created_at: t.created_at ? t.created_at.toISOString() : null,
  first_seen_at: t.first_seen_at.toISOString(),
  ...graduationJson(t),
});

/** Tokens with their last 24 hours of trades: all of them, or the one at `address`. */
function selectTokens(db: Database, address?: string): Promise<TokenRow[]> {
  const only = address ? 'token_address = $1 AND' : '';
  return db.query<TokenRow>(
    `SELECT ${TOKEN_COLUMNS}
     FROM tokens t
     LEFT JOIN (SELECT token_address, sum(volume_unative) AS volume, count(*) AS trades
                FROM trades WHERE ${only} time > now() - INTERVAL '24 hours' GROUP BY token_address) s
       ON s.token_address = t.address
     ${address ? 'WHERE t.address = $1' : 'ORDER BY t.first_seen_at DESC, t.address'}`,
    address ? [address] : [],
  );
}

/**
 * The whole list is the one expensive body (every token's 24 h figures: ~0.4 s at 10k
 * tokens on the embedded database) and any trade changes it, so it is served
 * stale-while-revalidate: at most LIST_MAX_STALE_MS behind, recomputed in the background
 * and, while it computes in under ~0.6 s, in at most a fifth of the database's time
 * (docs/launchpad-api.md says how far behind).
 */
export const LIST_MAX_STALE_MS = 3000;

export function listTokens(db: Database, cache: ResponseCache): Handler {
  return async (_req, res) => {
    const compute = async () => JSON.stringify({ tokens: (await selectTokens(db)).map(tokenJson) });
    const body = await cache.remember('tokens', [ANY], 2000, compute, { maxStaleMs: LIST_MAX_STALE_MS });
    sendJsonText(res, 200, body);
  };
}

/** The token's JSON, or undefined when it is not indexed (cached either way). */
async function findToken(db: Database, cache: ResponseCache, address: string): Promise<string | undefined> {
  const body = await cache.remember(`token:${address}`, [tokenTag(address)], 5000, async () => {
    const [row] = await selectTokens(db, address);
    return row ? JSON.stringify(tokenJson(row)) : '';
  });
  return body || undefined;
}

const addressParam = z.object({ address: bech32Address });

export function getToken(db: Database, cache: ResponseCache): Handler {
  return async (req, res) => {
    const { address } = parseOrThrow(addressParam, req.params, 'Invalid token address');
    const body = await findToken(db, cache, address);
    if (!body) throw notFound('Token not found');
    sendJsonText(res, 200, body);
  };
}
