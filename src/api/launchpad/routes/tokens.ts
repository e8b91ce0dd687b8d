// GET /api/tokens and GET /api/tokens/:address (docs/launchpad-api.md "Token"): tokens with their decimals, reserves,
// last price, the last 24 hours of volume and trades, and a curve token's graduation threshold and progress.
import { z } from 'zod';
import type { ListedToken } from '../../../db/tokens.ts';
import { notFound } from '../../http/errors.ts';
import { reads } from '../../http/freshness.ts';
import { sendJsonBytes } from '../../http/respond.ts';
import type { Handler } from '../../http/routes.ts';
import { bech32Address, parseOrThrow } from '../../http/validate.ts';
import type { LaunchpadContext, LaunchpadRoute } from '../context.ts';
import { marketCap, nativeToUsd, percentChange, tokenUsd, type UsdRate } from '../market.ts';
import { notFoundResponse } from '../openapi.ts';
import { isPlainList, tokenPage, tokensQuery } from '../token-list.ts';

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

/** The windows of `price_change`, each against the last price before it. */
const WINDOWS = ['5m', '1h', '6h', '24h'] as const;

/** A token as both routes answer it (tokenSchema): the index's figures and, at `rate`, their USD values. */
export function tokenJson(t: ListedToken, rate: UsdRate | undefined) {
  const before = {
    '5m': t.price_before_5m,
    '1h': t.price_before_1h,
    '6h': t.price_before_6h,
    '24h': t.price_before_24h,
  };
  const cap = t.total_supply === null ? null : marketCap(t.total_supply, t.current_price);
  const decimals = t.decimals === null ? null : Number(t.decimals);
  return {
    address: t.address,
    name: t.name,
    symbol: t.symbol,
    decimals,
    image: t.image,
    description: t.description,
    creator: t.creator,
    source: t.source,
    graduated: t.graduated,
    native_reserves: t.native_reserves,
    current_price: t.current_price,
    price_usd: tokenUsd(t.current_price, decimals, rate),
    total_supply: t.total_supply,
    market_cap_unative: cap,
    market_cap_usd: cap === null ? null : nativeToUsd(cap, rate),
    price_change: Object.fromEntries(WINDOWS.map((w) => [w, percentChange(t.current_price, before[w])])) as Record<
      (typeof WINDOWS)[number],
      string | null
    >,
    volume_24h: t.volume_24h,
    volume_24h_usd: nativeToUsd(t.volume_24h, rate),
    trade_count_24h: Number(t.trade_count_24h),
    buys_24h: Number(t.buys_24h),
    sells_24h: Number(t.sells_24h),
    traders_24h: Number(t.traders_24h),
    holders: Number(t.holders),
    created_at: t.created_at ? t.created_at.toISOString() : null,
    first_seen_at: t.first_seen_at.toISOString(),
    ...graduationJson(t),
  };
}

export type TokenJson = ReturnType<typeof tokenJson>;

/** The native coin's USD rate for the USD figures, or undefined while no USD price is known. */
async function usdRate(ctx: LaunchpadContext): Promise<UsdRate | undefined> {
  const nativeUsd = (await ctx.prices?.nativeUsd()) ?? 0;
  return nativeUsd > 0 ? { nativeDecimals: ctx.native.decimals, nativeUsd } : undefined;
}

/**
 * The whole list is the one large body (10,000 tokens: megabytes of JSON), and any trade
 * changes it, so it is served stale-while-revalidate: at most LIST_MAX_STALE_MS behind,
 * recomputed in the background from what the process keeps (every token's facts,
 * token-facts.ts, and the last day of trades, trade-windows.ts). A list with parameters is
 * cut from it (docs/launchpad-api.md "Token").
 */
export const LIST_MAX_STALE_MS = 3000;

/**
 * Bytes of the pages (lists with parameters) kept beside one snapshot, the oldest dropped
 * first: the whole list's JSON is kept besides. A search box sends a query a keystroke, and
 * a cursor is any position, so pages are few per snapshot but without number over time:
 * they go with their snapshot.
 */
export const LIST_PAGES_BYTES = 8 << 20;

export function listTokens(ctx: LaunchpadContext): Handler {
  const { cache } = ctx;
  // Every token's objects, computed stale-while-revalidate like an answer: the cache keeps
  // an empty body standing for them, and this map gives them back by it. The whole list's
  // JSON (megabytes at 10,000 tokens) is made only when the whole list is asked for.
  const tokensOf = new WeakMap<Buffer, TokenJson[]>();
  const allTokens = async (): Promise<TokenJson[]> => {
    const { tags, ttlMs } = reads.tokenList();
    const handle = await cache.remember(
      'tokens:objects',
      tags,
      ttlMs,
      async () => {
        const rate = await usdRate(ctx);
        const tokens = (await ctx.windows.listedTokens()).map((t) => tokenJson(t, rate));
        const body = Buffer.alloc(0);
        tokensOf.set(body, tokens);
        return body;
      },
      { maxStaleMs: LIST_MAX_STALE_MS },
    );
    return tokensOf.get(handle)!;
  };
  // The answers made from a snapshot, kept with it (and gone with it): as fresh as it, whatever
  // the query, and bounded by LIST_PAGES_BYTES beside the whole list whatever queries come.
  const answersOf = new WeakMap<TokenJson[], { whole?: Buffer; pages: Map<string, Buffer>; bytes: number }>();
  return async (req, res) => {
    const q = parseOrThrow(tokensQuery, req.query);
    const tokens = await allTokens();
    let answers = answersOf.get(tokens);
    if (!answers) {
      answers = { pages: new Map(), bytes: 0 };
      answersOf.set(tokens, answers);
    }
    if (isPlainList(q)) {
      answers.whole ??= Buffer.from(JSON.stringify({ tokens }));
      return sendJsonBytes(req, res, answers.whole);
    }
    const key = JSON.stringify([q.sort, q.order, q.graduated, q.q, q.limit, q.cursor]);
    let body = answers.pages.get(key);
    if (body)
      answers.pages.delete(key); // the newest again
    else {
      body = Buffer.from(JSON.stringify(tokenPage(tokens, q)));
      answers.bytes += body.length;
      for (const [oldest, page] of answers.pages) {
        if (answers.bytes <= LIST_PAGES_BYTES) break;
        answers.pages.delete(oldest);
        answers.bytes -= page.length;
      }
    }
    answers.pages.set(key, body);
    await sendJsonBytes(req, res, body);
  };
}

/** How long the answer that a token is not indexed is kept at most (its launch, announced, drops it sooner). */
const NOT_FOUND_TTL_MS = 5000;

/**
 * The token's JSON, or undefined when it is not indexed (cached either way). Its answer is
 * kept until a change the indexer announces (its trades, metadata, holders' balances) or
 * until its windows' figures change by time alone (ListedToken.changes_at), and is keyed by
 * the native coin's USD price it was computed at, so it always shows the current one.
 */
async function findToken(ctx: LaunchpadContext, address: string): Promise<Buffer | undefined> {
  const rate = await usdRate(ctx);
  const { tags, ttlMs } = reads.token(address);
  const body = await ctx.cache.rememberFor(`token:${address}:${rate?.nativeUsd ?? 0}`, tags, async () => {
    const [row] = await ctx.windows.listedTokens(address);
    if (!row) return { body: '', ttlMs: NOT_FOUND_TTL_MS };
    const untilChange = row.changes_at === null ? ttlMs : row.changes_at.getTime() - Date.now();
    return { body: JSON.stringify(tokenJson(row, rate)), ttlMs: Math.max(1, Math.min(ttlMs, untilChange)) };
  });
  return body.length > 0 ? body : undefined;
}

/** GET /api/tokens/:address's path parameter. */
export const tokenParams = z.object({ address: bech32Address.describe("the token's CW20 contract address") });

export function getToken(ctx: LaunchpadContext): Handler {
  return async (req, res) => {
    const { address } = parseOrThrow(tokenParams, req.params, 'Invalid token address');
    const body = await findToken(ctx, address);
    if (!body) throw notFound('Token not found');
    await sendJsonBytes(req, res, body);
  };
}

const amount = (what: string) => z.string().regex(/^\d+$/).describe(what);
const usd = (what: string) =>
  z
    .string()
    .regex(/^\d+(\.\d+)?$/)
    .nullable()
    .describe(
      `${what}: USD, at most 12 significant digits (rounded half up); null while no USD price of the native coin is known`,
    );
const percent = z
  .string()
  .regex(/^-?\d+\.\d{2}$/)
  .nullable();

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
    price_usd: usd(
      "one whole token (10^decimals base units) at current_price × the native coin's USD price (/api/wallet/prices); also null while decimals are unknown",
    ),
    total_supply: amount("token base units: the CW20's total_supply (token_info), read again after each mint or burn")
      .nullable()
      .describe('null until the index read it'),
    market_cap_unative: amount('native base units: total_supply × current_price ÷ 10^6, floored')
      .nullable()
      .describe('null while total_supply is unknown'),
    market_cap_usd: usd('market_cap_unative in USD'),
    price_change: z
      .strictObject({ '5m': percent, '1h': percent, '6h': percent, '24h': percent })
      .describe(
        "percent from the price of the last trade at or before the window's start (now minus 5 minutes … 24 hours) to current_price, truncated toward zero to 2 decimals; null when the token had no trade by then",
      ),
    volume_24h: amount('native base units traded in the last 24 hours'),
    volume_24h_usd: usd("volume_24h at the native coin's current USD price"),
    trade_count_24h: z.number().int().describe('trades in the last 24 hours'),
    buys_24h: z
      .number()
      .int()
      .describe('trades of the last 24 hours that bought the token (native in: buys, and AMM swaps to the token)'),
    sells_24h: z.number().int().describe('trades of the last 24 hours that sold the token (token in)'),
    traders_24h: z.number().int().describe('distinct traders of the last 24 hours'),
    holders: z.number().int().describe("addresses with a positive balance in the index's CW20 balances"),
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
    summary:
      'Every token, newest first, with its reserves, price and last 24 hours; or a sorted, filtered page of them',
    description:
      'Without parameters: every token, newest `first_seen_at` first. With `sort`, `order`, `graduated`, `q` or `limit`: those tokens in that order (ties by address), a page of `limit` with `next_cursor` for the next. Served stale-while-revalidate: at most 3 s behind the index.',
    query: tokensQuery,
    responses: {
      200: {
        description: 'The tokens (`next_cursor` when the query has parameters: null on the last page)',
        body: z.strictObject({ tokens: z.array(tokenSchema), next_cursor: z.string().nullable().optional() }),
      },
    },
    handler: listTokens,
  },
  {
    method: 'get',
    path: '/api/tokens/:address',
    tag: 'Launchpad',
    summary: 'One token',
    params: tokenParams,
    responses: { 200: { description: 'The token', body: tokenSchema }, 404: notFoundResponse('Not indexed (yet)') },
    handler: getToken,
  },
];
