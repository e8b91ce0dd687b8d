// GET /api/trades/recent (docs/launchpad-api.md "Trade"): newest first, optionally of one token, with the
// token's name and symbol joined.
import { z } from 'zod';
import { sql } from '../../../db/sql.ts';
import { tradeTimes } from '../../../db/tokens.ts';
import type { Database } from '../../../db/types.ts';
import { reads } from '../../http/freshness.ts';
import { sendJsonBytes } from '../../http/respond.ts';
import type { ResponseCache } from '../../http/response-cache.ts';
import type { Handler } from '../../http/routes.ts';
import { bech32Address, parseOrThrow, queryInt } from '../../http/validate.ts';
import type { LaunchpadRoute } from '../context.ts';

const ACTIONS = ['buy', 'sell', 'swap', 'buy_and_graduate'] as const;

/** A trade's place in chain order: `<block_height>-<tx_index>-<event_index>`. */
const POSITION = /^(\d{1,10})-(\d{1,5})-(\d{1,5})$/;
const position = z
  .string()
  .regex(POSITION, { message: "must be a trade's position, <block_height>-<tx_index>-<event_index>" })
  .transform((p) => {
    const [, height, tx, event] = POSITION.exec(p)!;
    return {
      height: Number(height),
      tx: Number(tx),
      event: Number(event),
      seq: (BigInt(height!) << 32n) | (BigInt(tx!) << 16n) | BigInt(event!),
    };
  })
  .refine((p) => p.height <= 2_147_483_647, { message: 'the block height is too large' })
  // each fits its 16 bits of the chain order (sql/0002_trades.sql): a larger one would read as another position
  .refine((p) => p.tx <= 65_535 && p.event <= 65_535, {
    message: 'the tx index and the event index are at most 65535',
  });

/** GET /api/trades/recent's query. */
export const tradesQuery = z.object({
  token_address: bech32Address.optional().describe("only this token's trades (default: every token's)"),
  limit: queryInt(1, 100).default(50).describe('how many trades'),
  before: position
    .optional()
    .describe(
      'only trades before this one in chain order: the `position` of the last trade seen, to page back through the history',
    ),
  trader: bech32Address.optional().describe("only this address's trades"),
  action: z
    .string()
    .max(64)
    .transform((v) => v.split(','))
    .pipe(z.array(z.enum(ACTIONS, { message: `each action must be one of ${ACTIONS.join(', ')}` })))
    .optional()
    .describe('only trades of these actions, comma-separated (buy, sell, swap, buy_and_graduate)'),
  min_volume: z
    .string()
    .regex(/^\d{1,78}$/, { message: 'must be a whole number of native base units' })
    .optional()
    .describe('only trades of at least this many native base units (volume_unative)'),
});
type TradesQuery = z.infer<typeof tradesQuery>;

interface TradeRow {
  time: Date;
  block_height: number;
  tx_hash: string;
  source: string;
  action: string;
  direction: string;
  token_address: string;
  price_unative: string;
  volume_unative: string;
  volume_token: string;
  fee_unative: string;
  trader: string;
  token_name: string | null;
  token_symbol: string | null;
  tx_index: number;
  event_index: number;
}

const COLUMNS =
  sql.raw(`tr.time, tr.block_height, upper(encode(tr.tx_hash, 'hex')) AS tx_hash, tr.source, tr.action, tr.direction, tr.token_address,
  tr.price_unative::text AS price_unative, tr.volume_unative::text AS volume_unative, tr.volume_token::text AS volume_token,
  tr.fee_unative::text AS fee_unative, tr.trader, tk.name AS token_name, tk.symbol AS token_symbol,
  tr.tx_index, tr.event_index`);

const tradeJson = (t: TradeRow) => ({
  time: t.time.toISOString(),
  block_height: Number(t.block_height),
  tx_hash: t.tx_hash,
  source: t.source,
  action: t.action,
  direction: t.direction,
  token_address: t.token_address,
  price_unative: t.price_unative,
  volume_unative: t.volume_unative,
  volume_token: t.volume_token,
  fee_unative: t.fee_unative,
  trader: t.trader,
  token_name: t.token_name,
  token_symbol: t.token_symbol,
  position: `${t.block_height}-${t.tx_index}-${t.event_index}`,
});

const DAY_MS = 86_400_000;

/** The start of the UTC day of `time` (the day candles' bucket). */
const dayOf = (time: Date) => new Date(Math.floor(time.getTime() / DAY_MS) * DAY_MS);

/**
 * Newest trades first. The trades hypertable has a chunk per day and grows without end,
 * so a query without a time bound plans every chunk (~300 ms embedded at 90 days). Every
 * search here has constant time bounds, so only the chunks of its range are planned. (Any
 * trade outside a range searched is older than every trade inside it, so a range that holds
 * `limit` trades gives the answer.)
 *  1. The last day up to the newest trade (the token's last, or `before`'s block time).
 *  2. A token's trades without other filters: its day candles say how many trades each
 *     earlier day holds, so the range from the newest of those days that, with the days
 *     after it, holds `limit` trades gives the answer (the day of the newest trade counts for
 *     nothing: `before` may exclude any part of it). When they hold fewer, every trade since
 *     the oldest of them, then the trades older than that: none when the token was launched
 *     since then; else those after its launch, or (a token that started on the AMM, whose
 *     launch is not known) all (candles are kept 90 days).
 *  3. Other filters: 30 days, then all.
 */
async function newestTrades(db: Database, q: TradesQuery, bound: { time: Date } | undefined): Promise<TradeRow[]> {
  const token = q.token_address;
  const times = await tradeTimes(db, token);
  if (token && !times) return []; // the indexer stores a token before any of its trades
  const newest = bound?.time ?? times?.at ?? null;
  const conditions = [token ? sql`tr.token_address = ${token}` : sql`true`];
  if (q.trader) conditions.push(sql`tr.trader = ${q.trader}`);
  if (q.action) conditions.push(sql`tr.action = ANY(${q.action}::text[])`);
  if (q.min_volume) conditions.push(sql`tr.volume_unative >= ${q.min_volume}::numeric`);
  if (q.before) conditions.push(sql`tr.seq < ${q.before.seq.toString()}::bigint`);
  if (bound) conditions.push(sql`tr.time <= ${bound.time}`);
  const select = (since: Date | null, until?: Date, limit = q.limit) =>
    db.query<TradeRow>(
      sql`SELECT ${COLUMNS} FROM trades tr LEFT JOIN tokens tk ON tk.address = tr.token_address
       WHERE ${sql.join(conditions, ' AND ')} ${since ? sql`AND tr.time >= ${since}` : sql``}
         ${until ? sql`AND tr.time < ${until}` : sql``}
       ORDER BY tr.time DESC, tr.seq DESC LIMIT ${limit}`,
    );
  if (!newest) return select(null);
  const day = await select(new Date(newest.getTime() - DAY_MS));
  if (day.length >= q.limit) return day;
  // (the day of `newest` holds every trade `before` excludes only when `newest` is its block's time)
  if (token && !q.trader && !q.action && !q.min_volume && (!q.before || bound)) {
    const days = await db.query<{ bucket: Date; trades: number }>(
      sql`SELECT bucket, trade_count::int AS trades FROM candles_1d
       WHERE token_address = ${token} AND bucket < ${dayOf(newest)} ORDER BY bucket DESC`,
    );
    let trades = 0;
    for (const d of days) {
      trades += d.trades;
      if (trades >= q.limit) return select(d.bucket);
    }
    const oldest = days.at(-1)?.bucket ?? dayOf(newest);
    const recent = await select(oldest);
    const launched = times?.created ?? null;
    if (recent.length >= q.limit || (launched && launched >= oldest)) return recent;
    return [...recent, ...(await select(launched, oldest, q.limit - recent.length))];
  }
  const month = await select(new Date(newest.getTime() - 30 * DAY_MS));
  if (month.length >= q.limit) return month;
  return select(null);
}

export function recentTrades(db: Database, cache: ResponseCache): Handler {
  return async (req, res) => {
    const q = parseOrThrow(tradesQuery, req.query);
    // fresh through the feed's notifications; the TTL only bounds what they cannot announce
    const key = `trades:${JSON.stringify([q.token_address, q.limit, q.before?.seq.toString(), q.trader, q.action, q.min_volume])}`;
    const recent = reads.recentTrades(q.token_address);
    const body = q.before
      ? await cache.rememberTagged(key, [], recent.ttlMs, async () => {
          // before a position: no trade after its block's time (when the index holds the block)
          const [bound] = await db.query<{ time: Date }>(
            sql`SELECT time FROM blocks WHERE height = ${q.before!.height}`,
          );
          const { tags, ttlMs } = reads.tradesBefore(q.token_address, bound !== undefined);
          const trades = await newestTrades(db, q, bound);
          return { body: JSON.stringify({ trades: trades.map(tradeJson) }), tags, ttlMs };
        })
      : await cache.remember(key, recent.tags, recent.ttlMs, async () =>
          JSON.stringify({ trades: (await newestTrades(db, q, undefined)).map(tradeJson) }),
        );
    await sendJsonBytes(req, res, body);
  };
}

const amount = (what: string) => z.string().regex(/^\d+$/).describe(what);

/** A trade (tradeJson). */
export const tradeSchema = z
  .strictObject({
    time: z.iso.datetime().describe('block time'),
    block_height: z.number().int(),
    tx_hash: z.string().describe('upper-case hex'),
    source: z.enum(['launchpad', 'amm']),
    action: z.enum(['buy', 'sell', 'swap', 'buy_and_graduate']),
    direction: z.enum(['native_to_token', 'token_to_native']),
    token_address: z.string(),
    price_unative: amount(
      'volume_unative × 10^6 ÷ volume_token (integer division): native base units per 10^6 token base units',
    ),
    volume_unative: amount('native base units that crossed the curve or pool (fee excluded)'),
    volume_token: amount('token base units'),
    fee_unative: amount('the fee in native base units'),
    trader: z.string(),
    token_name: z.string().nullable(),
    token_symbol: z.string().nullable(),
    position: z
      .string()
      .regex(POSITION)
      .describe(
        'its place in chain order, `<block_height>-<tx_index>-<event_index>`: `before=` this to read the trades before it',
      ),
  })
  .meta({ id: 'Trade' });

/** This file's routes (src/api/launchpad/route-table.ts serves and describes them). */
export const tradeRoutes: LaunchpadRoute[] = [
  {
    method: 'get',
    path: '/api/trades/recent',
    tag: 'Launchpad',
    summary: 'The newest trades, of every token or of one, or of one trader; and pages back through a history',
    description:
      "Newest first; trades of one block share its time and come in chain order, last first. An unknown but well-formed `token_address` gives an empty list. To page back through a token's (or a trader's) whole history, ask again with `before` set to the `position` of the last trade of the page: each trade comes once, in chain order, whatever blocks arrive meanwhile.",
    query: tradesQuery,
    responses: { 200: { description: 'The trades', body: z.strictObject({ trades: z.array(tradeSchema) }) } },
    handler: (ctx) => recentTrades(ctx.db, ctx.cache),
  },
];
