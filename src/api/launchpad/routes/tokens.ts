// GET /api/tokens and GET /api/tokens/:address (docs/launchpad-api.md "Token"): tokens with their decimals, reserves,
// last price, the last 24 hours of volume and trades, and a curve token's graduation threshold and progress.
import { z } from 'zod';
import { type ListedToken, listedTokens } from '../../../db/tokens.ts';
import type { Database } from '../../../db/types.ts';
import { notFound } from '../../http/errors.ts';
import { reads } from '../../http/freshness.ts';
import { sendJsonText } from '../../http/respond.ts';
import type { ResponseCache } from '../../http/response-cache.ts';
import type { Handler } from '../../http/routes.ts';
import { bech32Address, parseOrThrow } from '../../http/validate.ts';
import type { LaunchpadRoute } from '../context.ts';
import { notFoundResponse } from '../openapi.ts';

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
function graduationJson(t: ListedToken) {
  const curve =
    t.source === 'launchpad' && !t.graduated && t.graduation_threshold !== null && t.graduation_threshold !== '0';
  return {
    graduation_threshold: curve ? t.graduation_threshold : null,
    graduation_progress: curve ? graduationProgress(t.native_reserves, t.graduation_threshold!) : null,
  };
}

const tokenJson = (t: ListedToken) => ({
  address: t.address,
  name: t.name,
  symbol: t.symbol,
  decimals: t.decimals === null ? null : Number(t.decimals),
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
    const compute = async () => JSON.stringify({ tokens: (await listedTokens(db)).map(tokenJson) });
    const { tags, ttlMs } = reads.tokenList();
    const body = await cache.remember('tokens', tags, ttlMs, compute, { maxStaleMs: LIST_MAX_STALE_MS });
    sendJsonText(res, 200, body);
  };
}

/** The token's JSON, or undefined when it is not indexed (cached either way). */
async function findToken(db: Database, cache: ResponseCache, address: string): Promise<string | undefined> {
  const { tags, ttlMs } = reads.token(address);
  const body = await cache.remember(`token:${address}`, tags, ttlMs, async () => {
    const [row] = await listedTokens(db, address);
    return row ? JSON.stringify(tokenJson(row)) : '';
  });
  return body || undefined;
}

/** GET /api/tokens/:address's path parameter. */
export const tokenParams = z.object({ address: bech32Address.describe("the token's CW20 contract address") });

export function getToken(db: Database, cache: ResponseCache): Handler {
  return async (req, res) => {
    const { address } = parseOrThrow(tokenParams, req.params, 'Invalid token address');
    const body = await findToken(db, cache, address);
    if (!body) throw notFound('Token not found');
    sendJsonText(res, 200, body);
  };
}

const amount = (what: string) => z.string().regex(/^\d+$/).describe(what);

/** A token as both routes answer it (tokenJson). */
export const tokenSchema = z
  .strictObject({
    address: z.string().describe('CW20 contract address'),
    name: z.string().nullable(),
    symbol: z.string().nullable(),
    decimals: z
      .number()
      .int()
      .nullable()
      .describe("the CW20 contract's decimals: one token is 10^decimals base units (null until the index read them)"),
    image: z.string().nullable().describe('image URL, as the creator set it'),
    description: z.string().nullable(),
    creator: z.string().nullable().describe('who paid the creation fee (null for a token that started on the AMM)'),
    source: z.enum(['launchpad', 'amm']),
    graduated: z.boolean().describe('moved from the bonding curve to the AMM'),
    native_reserves: amount('native base units: the curve reserve, or the last known pool reserve once graduated'),
    current_price: amount(
      "native base units per 10^6 token base units: the last trade's price (before any trade: the curve's spot price)",
    ),
    volume_24h: amount('native base units traded in the last 24 hours'),
    trade_count_24h: z.number().int().describe('trades in the last 24 hours'),
    created_at: z.iso.datetime().nullable().describe('block time of the creating event'),
    first_seen_at: z.iso.datetime().describe('when the indexer first stored the token'),
    graduation_threshold: amount('native base units of reserves at which a curve token graduates').nullable(),
    graduation_progress: z
      .string()
      .regex(/^[01]\.\d{4}$/)
      .nullable()
      .describe('reserves ÷ threshold, 0.0000 to 1.0000 (null once graduated, for AMM tokens, or while unknown)'),
  })
  .meta({ id: 'Token' });

/** This file's routes (src/api/launchpad/route-table.ts serves and describes them). */
export const tokenRoutes: LaunchpadRoute[] = [
  {
    method: 'get',
    path: '/api/tokens',
    tag: 'Launchpad',
    summary: 'Every token, newest first, with its reserves, price and last 24 hours',
    description: 'Newest `first_seen_at` first. Served stale-while-revalidate: at most 3 s behind the index.',
    responses: { 200: { description: 'The tokens', body: z.strictObject({ tokens: z.array(tokenSchema) }) } },
    handler: (ctx) => listTokens(ctx.db, ctx.cache),
  },
  {
    method: 'get',
    path: '/api/tokens/:address',
    tag: 'Launchpad',
    summary: 'One token',
    params: tokenParams,
    responses: { 200: { description: 'The token', body: tokenSchema }, 404: notFoundResponse('Not indexed (yet)') },
    handler: (ctx) => getToken(ctx.db, ctx.cache),
  },
];
