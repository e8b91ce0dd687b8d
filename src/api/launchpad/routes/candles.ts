// GET /api/candles/:tokenAddress (docs/launchpad-api.md "Candles"): OHLCV candles from the continuous
// aggregate of the timeframe, ascending by time, the latest `limit` of the range.
import { z } from 'zod';
import { nativeUsdPrices } from '../../../db/native-usd-prices.ts';
import { sql } from '../../../db/sql.ts';
import { CANDLES_KEPT_MS, isStoredToken } from '../../../db/tokens.ts';
import { badRequest, notFound } from '../../http/errors.ts';
import { reads } from '../../http/freshness.ts';
import { render, sendRendered } from '../../http/http-cache.ts';
import { sendJsonBytes } from '../../http/respond.ts';
import type { Handler } from '../../http/routes.ts';
import { bech32Address, EARLIEST_TIME, isoDateTime, LATEST_TIME, parseOrThrow, queryInt } from '../../http/validate.ts';
import type { LaunchpadContext, LaunchpadRoute } from '../context.ts';
import { nativeToUsd, tokenUsd } from '../market.ts';
import { notFoundResponse } from '../openapi.ts';

/** Timeframe → its aggregate and bucket width. */
export const TIMEFRAMES = {
  '1m': { view: 'candles_1m', ms: 60_000 },
  '5m': { view: 'candles_5m', ms: 300_000 },
  '1h': { view: 'candles_1h', ms: 3_600_000 },
  '1d': { view: 'candles_1d', ms: 86_400_000 },
} as const;
type Timeframe = keyof typeof TIMEFRAMES;

const TIMEFRAME_NAMES = Object.keys(TIMEFRAMES) as [Timeframe, ...Timeframe[]];

/** GET /api/candles/:tokenAddress's query. */
export const candlesQuery = z.object({
  timeframe: z
    .enum(TIMEFRAME_NAMES, { message: `must be one of ${TIMEFRAME_NAMES.join(', ')}` })
    .default('1h')
    .describe('the period of one candle'),
  from: isoDateTime
    .optional()
    .describe('candles whose period starts at or after this instant (default: 24 h before `to`)'),
  to: isoDateTime.optional().describe('candles whose period starts at or before this instant (default: now)'),
  limit: queryInt(1, 1000).default(300).describe('the latest this many candles of the range'),
  currency: z
    .enum(['native', 'usd'])
    .default('native')
    .describe(
      "`usd`: prices of one whole token and the volume in USD, at the oracle's native USD price in effect at the end of each candle's period",
    ),
});

interface CandleRow {
  bucket: Date;
  open: string;
  high: string;
  low: string;
  close: string;
  volume: string;
  trade_count: number;
}

/** GET /api/candles/:tokenAddress's path parameter. */
export const candlesParams = z.object({ tokenAddress: bech32Address.describe("the token's CW20 contract address") });

export function candles(ctx: LaunchpadContext): Handler {
  const { db, cache } = ctx;
  const indexed = indexedRange(ctx);
  return async (req, res) => {
    const { tokenAddress } = parseOrThrow(candlesParams, req.params, 'Invalid token address');
    const q = parseOrThrow(candlesQuery, req.query);
    const timeframe = q.timeframe;
    const now = Date.now();
    const to = q.to ?? new Date(now);
    const from = q.from ?? new Date(Math.max(to.getTime() - 86_400_000, EARLIEST_TIME.getTime()));
    // without `to` the range reaches the newest indexed trade, whose block time may be a
    // little ahead of this clock: a `from` there (a client's forming candle) is no error
    if (q.to && from > to)
      throw badRequest('Invalid query parameters', [{ parameter: 'from', message: 'must not be after to' }]);

    // A candle belongs to the range when its period starts within [from, to]; rounding
    // `from` up and `to` down to period starts selects the same candles and lets every
    // request of one period share a cache entry.
    const { view, ms } = TIMEFRAMES[timeframe];
    // Past LATEST_TIME the rounded bound would not be a timestamp the database reads; no
    // period starts between the two, so LATEST_TIME selects the same candles.
    const first = new Date(Math.min(Math.ceil(from.getTime() / ms) * ms, LATEST_TIME.getTime()));
    // Without `to` the range ends now, that is, at the newest indexed trade (a block time a
    // little ahead of this clock included): only new trades change it, and those invalidate
    // the entry through the feed, so one entry per `from` period serves every such request.
    const last = q.to ? new Date(Math.floor(q.to.getTime() / ms) * ms) : undefined;
    const key = `candles:${tokenAddress}:${timeframe}:${first.getTime()}:${last?.getTime() ?? 'now'}:${q.limit}:${q.currency}`;
    const compute = async () => {
      const rows = await db.query<CandleRow>(
        sql`SELECT bucket, open::text AS open, high::text AS high, low::text AS low, close::text AS close, volume::text AS volume, trade_count
         FROM ${sql.raw(view)} WHERE token_address = ${tokenAddress} AND bucket >= ${first} ${last ? sql`AND bucket <= ${last}` : sql``}
         ORDER BY bucket DESC LIMIT ${q.limit}`,
      );
      // no candles: an unknown token is a 404, a known one simply had no trades then
      if (rows.length === 0 && !(await isStoredToken(db, tokenAddress))) throw notFound('Token not found');
      const candles = rows.reverse().map((c) => ({
        time: c.bucket.toISOString(),
        open: c.open,
        high: c.high,
        low: c.low,
        close: c.close,
        volume: c.volume,
        trade_count: Number(c.trade_count),
      }));
      if (q.currency === 'native') return JSON.stringify({ token_address: tokenAddress, timeframe, candles });
      return JSON.stringify({
        token_address: tokenAddress,
        timeframe,
        currency: 'usd',
        candles: await inUsd(ctx, tokenAddress, candles, TIMEFRAMES[timeframe].ms),
      });
    };
    // every period of the range over and indexed: the answer does not change until retention cuts its first candles
    const keepMs = first.getTime() + CANDLES_KEPT_MS - now;
    if (
      last &&
      q.currency === 'native' &&
      keepMs > MIN_KEEP_MS &&
      (await indexed.holds(first.getTime(), last.getTime() + ms))
    ) {
      const rendered = await ctx.answers.remember(key, async () => ({
        rendered: render(200, await compute()),
        immutable: true,
        keepMs,
      }));
      return sendRendered(
        req,
        res,
        rendered,
        { maxAgeSeconds: keepMs / 1000, immutable: true },
        { cache: ctx.answers, key },
      );
    }
    const { tags, ttlMs } = reads.candles(tokenAddress, q.currency === 'usd');
    const body = await cache.remember(key, tags, ttlMs, compute);
    await sendJsonBytes(req, res, body, { 'Cache-Control': `public, max-age=${OPEN_CANDLES_MAX_AGE_SECONDS}` });
  };
}

/** A range that retention cuts within this is answered as one that can change. */
const MIN_KEEP_MS = 86_400_000;
/** How long an HTTP cache may keep candles of a range not over yet (its last candle moves with each trade). */
const OPEN_CANDLES_MAX_AGE_SECONDS = 1;
/** How long the index's extent is kept: it only grows (a stale one keeps fewer answers, never a wrong one). */
const EXTENT_TTL_MS = 1000;

/**
 * Whether the index holds every block of [start, end): its first block is at or before the
 * start (a backfill could add trades before it) and its last block after the end (blocks
 * are indexed in order, so every trade until then is in).
 */
function indexedRange(ctx: LaunchpadContext) {
  let extent: Promise<{ first: number; last: number } | undefined> | undefined;
  let readAt = 0;
  const read = async () => {
    const position = await ctx.index.position();
    if (!position) return undefined;
    const [row] = await ctx.db.query<{ time: Date }>(
      sql`SELECT b.time FROM indexer_state s JOIN blocks b ON b.height = s.first_height`,
    );
    return row ? { first: row.time.getTime(), last: position.lastBlockTime.getTime() } : undefined;
  };
  return {
    async holds(start: number, end: number): Promise<boolean> {
      if (!extent || performance.now() - readAt > EXTENT_TTL_MS) {
        readAt = performance.now();
        extent = read();
        extent.catch(() => {
          extent = undefined;
        });
      }
      const e = await extent;
      return e !== undefined && e.first <= start && end <= e.last;
    },
  };
}

type Candle = z.infer<typeof candleSchema>;

/**
 * Candles in USD: each price of one whole token (10^decimals base units) and the volume, at
 * the native coin's USD price the launchpad's oracle had set by the end of the candle's
 * period (native_usd_prices); null figures where no such price is known (or the token's
 * decimals are not yet).
 */
async function inUsd(ctx: LaunchpadContext, token: string, candles: Candle[], periodMs: number) {
  const first = candles[0];
  const lastCandle = candles.at(-1);
  const [decimalsRow] = await ctx.db.query<{ decimals: number | null }>(
    sql`SELECT decimals FROM tokens WHERE address = ${token}`,
  );
  const decimals = decimalsRow?.decimals ?? null;
  const prices =
    first && lastCandle
      ? await nativeUsdPrices(
          ctx.db,
          new Date(Date.parse(first.time) + periodMs),
          new Date(Date.parse(lastCandle.time) + periodMs),
        )
      : [];
  let i = -1;
  return candles.map((c) => {
    const end = Date.parse(c.time) + periodMs;
    while (i + 1 < prices.length && prices[i + 1]!.time.getTime() < end) i++;
    const rate =
      i >= 0 ? { nativeDecimals: ctx.native.decimals, nativeUsd: Number(prices[i]!.usd_micro) / 1e6 } : undefined;
    const usd = (p: string) => tokenUsd(p, decimals, rate);
    return {
      time: c.time,
      open: usd(c.open),
      high: usd(c.high),
      low: usd(c.low),
      close: usd(c.close),
      volume: nativeToUsd(c.volume, rate),
      trade_count: c.trade_count,
    };
  });
}

/** A candle's fields, each figure described by `figure` (what it is, the name it has). */
const candleFields = <F extends z.ZodType>(figure: (what: string) => F, volume: string) => ({
  time: z.iso.datetime().describe("the start of the candle's period"),
  open: figure("the period's first trade"),
  high: figure('the highest'),
  low: figure('the lowest'),
  close: figure("the period's last trade"),
  volume: figure(volume),
  trade_count: z.number().int().describe('trades in the period'),
});

/** One candle (what `candles` answers). */
export const candleSchema = z
  .strictObject(
    candleFields(
      (what) =>
        z
          .string()
          .regex(/^\d+$/)
          .describe(
            what === 'native base units traded' ? what : `${what}: native base units per 10^6 token base units`,
          ),
      'native base units traded',
    ),
  )
  .meta({ id: 'Candle' });

/** One candle in USD (`currency=usd`): prices of one whole token, the volume in USD. */
export const usdCandleSchema = z
  .strictObject(
    candleFields(
      (what) =>
        z
          .string()
          .regex(/^\d+(\.\d+)?$/)
          .nullable()
          .describe(`${what} in USD (at most 12 significant digits; null without an oracle price by the period's end)`),
      'the native base units traded',
    ),
  )
  .meta({ id: 'UsdCandle' });

/** This file's routes (src/api/launchpad/route-table.ts serves and describes them). */
export const candleRoutes: LaunchpadRoute[] = [
  {
    method: 'get',
    path: '/api/candles/:tokenAddress',
    tag: 'Launchpad',
    summary: "A token's OHLCV candles, ascending",
    description:
      'The latest `limit` candles of `timeframe` whose period starts within [`from`, `to`]. A period without trades has no candle; `open`/`close` are its first/last trade in chain order.',
    params: candlesParams,
    query: candlesQuery,
    responses: {
      200: {
        description: 'The candles',
        body: z.union([
          z.strictObject({
            token_address: z.string(),
            timeframe: z.enum(TIMEFRAME_NAMES),
            candles: z.array(candleSchema),
          }),
          z.strictObject({
            token_address: z.string(),
            timeframe: z.enum(TIMEFRAME_NAMES),
            currency: z.literal('usd'),
            candles: z.array(usdCandleSchema),
          }),
        ]),
      },
      404: notFoundResponse('Unknown token'),
    },
    handler: candles,
  },
];
