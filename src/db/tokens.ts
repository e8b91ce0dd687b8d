// The `tokens` table (sql/0003_tokens.sql and later migrations): every statement that writes
// it, and its columns as the APIs read them. The indexer stores a token when it first sees it
// (its launch, or its first AMM trade) and moves its reserves and price with each batch; the
// metadata reader fills what the launch event did not carry. Amounts go in and come out as
// decimal strings.
import { type Sql, sql } from './sql.ts';
import type { Queryable } from './types.ts';

/** A token the batch saw: launched (the launch's fields set) or first traded on the AMM (launch fields null). */
export interface SeenToken {
  address: string;
  source: 'launchpad' | 'amm';
  creator: string | null;
  name: string | null;
  symbol: string | null;
  image: string | null;
  description: string | null;
  initialReserves: string | null;
  createdAt: string | null; // ISO time of the launch's block
  createdHeight: number | null;
}

/**
 * Stores the tokens not stored yet, and records the launch of one first seen through a
 * trade whose launch is indexed later (a backfill); resolves to the addresses stored new.
 */
export async function storeSeenTokens(tx: Queryable, tokens: readonly SeenToken[]): Promise<string[]> {
  if (tokens.length === 0) return [];
  const column = <K extends keyof SeenToken>(key: K) => tokens.map((t) => t[key]);
  const stored = await tx.query<{ address: string; inserted: boolean }>(
    sql`INSERT INTO tokens AS t (address, source, creator, name, symbol, image, description, initial_reserves, native_reserves, created_at, created_height)
     SELECT address, source, creator, name, symbol, image, description, initial_reserves, coalesce(initial_reserves, 0), created_at, created_height
     FROM unnest(${column('address')}::text[], ${column('source')}::text[], ${column('creator')}::text[], ${column('name')}::text[],
                 ${column('symbol')}::text[], ${column('image')}::text[], ${column('description')}::text[],
                 ${column('initialReserves')}::numeric[], ${column('createdAt')}::timestamptz[], ${column('createdHeight')}::bigint[])
          AS v(address, source, creator, name, symbol, image, description, initial_reserves, created_at, created_height)
     ON CONFLICT (address) DO UPDATE SET
       source = CASE WHEN excluded.created_at IS NOT NULL THEN excluded.source ELSE t.source END,
       creator = coalesce(t.creator, excluded.creator),
       name = coalesce(t.name, excluded.name),
       symbol = coalesce(t.symbol, excluded.symbol),
       image = coalesce(t.image, excluded.image),
       description = coalesce(t.description, excluded.description),
       initial_reserves = coalesce(t.initial_reserves, excluded.initial_reserves),
       created_at = coalesce(t.created_at, excluded.created_at),
       created_height = coalesce(t.created_height, excluded.created_height)
     WHERE excluded.created_at IS NOT NULL AND t.created_at IS NULL
     RETURNING address, (xmax = 0) AS inserted`,
  );
  return stored.filter((r) => r.inserted).map((r) => r.address);
}

/** Where a batch left a token: each figure applies only when newer (by chain order) than the stored one. */
export interface TokenState {
  address: string;
  reserves: string;
  /** Chain order of the reserves. */
  seq: string;
  /** The last trade's price ('0' without a trade in the batch). */
  price: string;
  lastTradeAt: string | null;
  /** Chain order of the last trade ('0' without one). */
  tradeSeq: string;
  graduatedAt: string | null;
}

export async function storeTokenStates(tx: Queryable, states: readonly TokenState[]): Promise<void> {
  if (states.length === 0) return;
  const column = <K extends keyof TokenState>(key: K) => states.map((s) => s[key]);
  await tx.query(
    sql`UPDATE tokens t SET
       native_reserves = CASE WHEN v.seq > t.state_seq THEN v.reserves ELSE t.native_reserves END,
       state_seq       = greatest(t.state_seq, v.seq),
       current_price   = CASE WHEN v.trade_seq > t.price_seq THEN v.price ELSE t.current_price END,
       last_trade_at   = CASE WHEN v.trade_seq > t.price_seq THEN v.last_trade_at ELSE t.last_trade_at END,
       price_seq       = greatest(t.price_seq, v.trade_seq),
       graduated       = t.graduated OR v.graduated_at IS NOT NULL,
       graduated_at    = coalesce(t.graduated_at, v.graduated_at)
     FROM unnest(${column('address')}::text[], ${column('reserves')}::numeric[], ${column('seq')}::bigint[], ${column('price')}::numeric[],
                 ${column('lastTradeAt')}::timestamptz[], ${column('tradeSeq')}::bigint[], ${column('graduatedAt')}::timestamptz[])
          AS v(address, reserves, seq, price, last_trade_at, trade_seq, graduated_at)
     WHERE t.address = v.address`,
  );
}

/** These tokens were minted or burnt: their total supply is to be read again from their contracts. */
export async function markSuppliesStale(tx: Queryable, tokens: readonly string[]): Promise<void> {
  if (tokens.length === 0) return;
  await tx.query(
    sql`UPDATE tokens SET supply_stale = true WHERE address = ANY(${tokens}::text[]) AND NOT supply_stale`,
  );
}

/** A total supply read from the token's contract. */
export async function storeSupply(db: Queryable, address: string, supply: string): Promise<void> {
  await db.query(sql`UPDATE tokens SET total_supply = ${supply}::numeric WHERE address = ${address}`);
}

/** The oracle price moved: every curve token's graduation threshold is to be read again. */
export async function markThresholdsStale(tx: Queryable): Promise<void> {
  await tx.query(sql`UPDATE tokens SET threshold_stale = true WHERE source = 'launchpad' AND NOT graduated`);
}

/** A token whose metadata is still to be read. */
export interface PendingToken {
  address: string;
  source: 'launchpad' | 'amm';
  metadata_attempts: number;
}

/** Up to `limit` tokens whose metadata is due, oldest first. */
export function tokensDueForMetadata(db: Queryable, limit: number): Promise<PendingToken[]> {
  return db.query<PendingToken>(
    sql`SELECT address, source, metadata_attempts FROM tokens
     WHERE NOT metadata_fetched AND (metadata_retry_at IS NULL OR metadata_retry_at <= now())
     ORDER BY first_seen_at LIMIT ${limit}`,
  );
}

/** What a token's contract (and, for a curve token, the launchpad) says of it; null where it said nothing. */
export interface TokenMetadata {
  name: string | null;
  symbol: string | null;
  decimals: number | null;
  description: string | null;
  image: string | null;
  creator: string | null;
  /** The curve's spot price, the token's price until its first trade. */
  spotPrice: string | null;
  threshold: string | null;
  /** The CW20's total supply (token_info). */
  totalSupply: string | null;
}

/** Stores a token's metadata: values from its launch event come first, the contract's fill the rest. */
export async function storeMetadata(db: Queryable, address: string, m: TokenMetadata): Promise<void> {
  await db.query(
    sql`UPDATE tokens SET
       name = coalesce(nullif(name, ''), ${m.name}), symbol = coalesce(nullif(symbol, ''), ${m.symbol}),
       decimals = coalesce(decimals, ${m.decimals}),
       description = coalesce(nullif(description, ''), ${m.description}), image = coalesce(nullif(image, ''), ${m.image}),
       creator = coalesce(creator, ${m.creator}),
       current_price = CASE WHEN price_seq = 0 AND ${m.spotPrice}::numeric IS NOT NULL THEN ${m.spotPrice}::numeric ELSE current_price END,
       graduation_threshold = coalesce(${m.threshold}::numeric, graduation_threshold),
       total_supply = coalesce(${m.totalSupply}::numeric, total_supply),
       metadata_fetched = true, metadata_retry_at = NULL
     WHERE address = ${address}`,
  );
}

/** A metadata read failed: asked again in `delaySeconds`. */
export async function metadataFailed(db: Queryable, address: string, attempts: number, delaySeconds: number) {
  await db.query(
    sql`UPDATE tokens SET metadata_attempts = ${attempts}, metadata_retry_at = now() + make_interval(secs => ${delaySeconds})
     WHERE address = ${address}`,
  );
}

/** A token fact marked to be read again from its contract (its graduation threshold, its total supply). */
export type StaleMark = 'threshold_stale' | 'supply_stale';

/**
 * Up to `limit` tokens with `mark`, the mark cleared: what marks the token while its fact is
 * read (a price change, a mint) marks it again, and so does a failed read (markStale).
 */
export async function takeStale(db: Queryable, mark: StaleMark, limit: number): Promise<string[]> {
  const column = sql.raw(mark);
  const due = await db.query<{ address: string }>(
    sql`UPDATE tokens SET ${column} = false
     WHERE address IN (SELECT address FROM tokens WHERE ${column} ORDER BY address LIMIT ${limit})
     RETURNING address`,
  );
  return due.map((r) => r.address);
}

/** A failed read: the token marked again, for the next run. */
export async function markStale(db: Queryable, mark: StaleMark, address: string): Promise<void> {
  await db.query(sql`UPDATE tokens SET ${sql.raw(mark)} = true WHERE address = ${address}`);
}

/** A threshold read from the launchpad (null keeps the one stored). */
export async function storeThreshold(db: Queryable, address: string, threshold: string | null): Promise<void> {
  await db.query(
    sql`UPDATE tokens SET graduation_threshold = coalesce(${threshold}::numeric, graduation_threshold) WHERE address = ${address}`,
  );
}

/** What the index stores of a token, as the Launchpad API lists it: all of it but its windows of trades. */
export interface TokenFacts {
  address: string;
  name: string | null;
  symbol: string | null;
  decimals: number | null;
  image: string | null;
  description: string | null;
  creator: string | null;
  source: string;
  graduated: boolean;
  native_reserves: string;
  current_price: string;
  created_at: Date | null;
  first_seen_at: Date;
  /** first_seen_at in µs since the epoch, as text: the list's order to the µs the database keeps. */
  first_seen_us: string;
  graduation_threshold: string | null;
  /** The CW20's total supply (token_info), null until read. */
  total_supply: string | null;
  /** Addresses with a positive balance in the index's CW20 balances. */
  holders: number;
  last_trade_at: Date | null;
  /** Chain order of the last trade (trades.seq; '0' before any): the windows of trades must reach it. */
  price_seq: string;
}

/** The figures of a token's windows of trades: the last 24 hours, and its price before each window's start. */
export interface WindowFigures {
  volume_24h: string;
  trade_count_24h: number;
  /** Trades of the last 24 hours that bought the token (native in), that sold it, and their distinct traders. */
  buys_24h: number;
  sells_24h: number;
  traders_24h: number;
  /** The price of the last trade at or before the start of each window (null: no trade before it). */
  price_before_5m: string | null;
  price_before_1h: string | null;
  price_before_6h: string | null;
  price_before_24h: string | null;
  /**
   * When the figures of the windows change by time alone, without a new trade (a trade
   * leaves a window, a window's start passes the launch); null: only with a new trade.
   */
  changes_at: Date | null;
}

/** A token as the Launchpad API lists it, with its last 24 hours of trades. */
export type ListedToken = TokenFacts & WindowFigures;

/** The windows of price_change, in ms before now. */
export const PRICE_WINDOWS = { '5m': 300_000, '1h': 3_600_000, '6h': 21_600_000, '24h': 86_400_000 } as const;
export type PriceWindow = keyof typeof PRICE_WINDOWS;
export const WINDOW_NAMES = Object.keys(PRICE_WINDOWS) as PriceWindow[];
const DAY_MS = 86_400_000;
/** How long candles are kept (sql/0006_candle_chunks.sql prunes them at 90 days), less a day of margin. */
export const CANDLES_KEPT_MS = 89 * DAY_MS;

/**
 * A token's price before a window starting at `start`, as far as its stored facts tell it:
 * none without a trade; its current price when its last trade is at or before the start
 * (nothing traded since); none when it was launched after it. Undefined: the price of its
 * last trade (in chain order) at or before the start is to be found.
 */
export function priceBeforeFromFacts(t: TokenFacts, start: number): string | null | undefined {
  if (t.last_trade_at === null) return null;
  if (t.last_trade_at.getTime() <= start) return t.current_price;
  if (t.created_at !== null && t.created_at.getTime() > start) return null;
  return undefined;
}

/** A token whose last trade at or before `start` is searched. */
export interface PriceSearch {
  token: string;
  start: Date;
}

/**
 * The price of each token's last trade (in chain order) at or before its start, keyed by
 * `priceKey` (absent: no such trade). Searched in three bounded steps, each only for what
 * the one before did not find, and with time bounds that are constants of the query, so the
 * planner reads only the chunks of the range (a search of a 90-day hypertable without them
 * plans every chunk: ~300 ms embedded):
 *  1. the trades of the day before the start, for every token and start in one query;
 *  2. the close of the token's last day candle that began at least a day before the start:
 *     step 1 found no trade after that day began, so its close is the last trade before the
 *     start (candles_1d closes by chain order, as this does);
 *  3. for a token the day candles do not reach (kept 90 days), the trades older than them.
 */
export async function lastPricesAtOrBefore(
  db: Queryable,
  searches: readonly PriceSearch[],
  now: number,
): Promise<Map<string, string>> {
  const prices = new Map<string, string>();
  let pending = [...searches];
  const found = (rows: { token: string; start: Date; price: string }[]) => {
    for (const r of rows) prices.set(priceKey(r.token, r.start), r.price);
    pending = pending.filter((s) => !prices.has(priceKey(s.token, s.start)));
  };
  const pairs = () =>
    sql`unnest(${pending.map((s) => s.token)}::text[], ${pending.map((s) => s.start)}::timestamptz[]) AS p(token, start)`;
  if (pending.length > 0) {
    const starts = pending.map((s) => s.start.getTime());
    const [earliest, latest] = [new Date(Math.min(...starts) - DAY_MS), new Date(Math.max(...starts))];
    found(
      await db.query(
        sql`SELECT p.token, p.start, t.price FROM ${pairs()} CROSS JOIN LATERAL (
              SELECT price_unative::text AS price FROM trades
              WHERE token_address = p.token AND time <= p.start AND time > p.start - INTERVAL '1 day'
                AND time > ${earliest} AND time <= ${latest}
              ORDER BY time DESC, seq DESC LIMIT 1) t`,
      ),
    );
  }
  if (pending.length > 0) {
    found(
      await db.query(
        sql`SELECT p.token, p.start, c.price FROM ${pairs()} CROSS JOIN LATERAL (
              SELECT close::text AS price FROM candles_1d
              WHERE token_address = p.token AND bucket <= p.start - INTERVAL '1 day'
              ORDER BY bucket DESC LIMIT 1) c`,
      ),
    );
  }
  if (pending.length > 0) {
    const kept = new Date(now - CANDLES_KEPT_MS);
    found(
      await db.query(
        sql`SELECT p.token, p.start, t.price FROM ${pairs()} CROSS JOIN LATERAL (
              SELECT price_unative::text AS price FROM trades
              WHERE token_address = p.token AND time <= p.start - INTERVAL '1 day' AND time <= ${kept}
              ORDER BY time DESC, seq DESC LIMIT 1) t`,
      ),
    );
  }
  return prices;
}

/** The key of a search's answer in lastPricesAtOrBefore's map. */
export const priceKey = (token: string, start: Date | number) =>
  `${token} ${typeof start === 'number' ? start : start.getTime()}`;

/** The first trade after each window's start (null: none in it), as windowsChangeAt reads them. */
export type FirstAfter = Record<PriceWindow, number | null>;

/**
 * When the token's answer changes without a new trade: when the first trade after a
 * window's start leaves the window (the 24-hour figures and that window's price before
 * change), or when a window's start passes the token's launch. Null: not before a trade.
 */
export function windowsChangeAt(t: TokenFacts, firstAfter: FirstAfter, now: number): Date | null {
  let at = Infinity;
  for (const window of WINDOW_NAMES) {
    const first = firstAfter[window];
    if (first !== null) at = Math.min(at, first + PRICE_WINDOWS[window]);
    if (t.created_at !== null && t.created_at.getTime() > now - PRICE_WINDOWS[window])
      at = Math.min(at, t.created_at.getTime() + PRICE_WINDOWS[window]);
  }
  return at === Infinity ? null : new Date(at);
}

/**
 * The contract that received a token's whole supply when it was created (the launchpad or
 * the AMM) holds what no other address does: no event shows that first balance, so it is
 * the total supply less every other holder's balance (docs/indexing.md "CW20 balances"), in
 * the holder count as in the holders list.
 */
const INITIAL_HOLDER = (token: Sql) =>
  sql`(SELECT c.initial_holder FROM cw20_tokens c WHERE c.token = ${token} AND c.created_height IS NOT NULL)`;

/** A token's largest holders (balance DESC, then address), the initial holder's balance derived. */
export function topHolders(
  db: Queryable,
  token: string,
  limit: number,
): Promise<{ holder: string; balance: string }[]> {
  return db.query<{ holder: string; balance: string }>(
    sql`WITH i AS (SELECT ${INITIAL_HOLDER(sql`${token}`)} AS holder),
         derived AS (
           SELECT i.holder, t.total_supply - coalesce(
                    (SELECT sum(b.balance) FROM cw20_balances b WHERE b.token = ${token} AND b.balance > 0 AND b.holder <> i.holder), 0) AS balance
           FROM i JOIN tokens t ON t.address = ${token}
           WHERE i.holder IS NOT NULL AND t.total_supply IS NOT NULL)
        SELECT h.holder, h.balance::text AS balance FROM (
          SELECT b.holder, b.balance FROM cw20_balances b
          WHERE b.token = ${token} AND b.balance > 0 AND b.holder IS DISTINCT FROM (SELECT holder FROM i)
          UNION ALL
          SELECT holder, balance FROM derived WHERE balance > 0) h
        ORDER BY h.balance DESC, h.holder LIMIT ${limit}`,
  );
}

/** Tokens with their holders, without their trades: all of them, newest first, or those at `only`. */
export function tokenFacts(db: Queryable, only?: string | readonly string[]): Promise<TokenFacts[]> {
  const addresses = only === undefined ? undefined : typeof only === 'string' ? [only] : only;
  const of = (column: string) => (addresses ? sql`${sql.raw(column)} = ANY(${addresses}::text[]) AND` : sql``);
  return db.query<TokenFacts>(
    sql`SELECT t.address, t.name, t.symbol, t.decimals, t.image, t.description, t.creator, t.source, t.graduated,
       t.native_reserves::text AS native_reserves, t.current_price::text AS current_price,
       (coalesce(h.others, 0)
        + CASE WHEN ci.initial_holder IS NOT NULL AND t.total_supply - coalesce(h.others_balance, 0) > 0 THEN 1 ELSE 0 END
       )::int AS holders,
       t.created_at, t.first_seen_at, (extract(epoch FROM t.first_seen_at) * 1000000)::bigint::text AS first_seen_us,
       t.graduation_threshold::text AS graduation_threshold,
       t.total_supply::text AS total_supply, t.last_trade_at, t.price_seq::text AS price_seq
     FROM tokens t
     LEFT JOIN cw20_tokens ci ON ci.token = t.address AND ci.created_height IS NOT NULL
     LEFT JOIN (SELECT b.token,
                       count(*) FILTER (WHERE b.holder IS DISTINCT FROM c.initial_holder) AS others,
                       sum(b.balance) FILTER (WHERE b.holder IS DISTINCT FROM c.initial_holder) AS others_balance
                FROM cw20_balances b LEFT JOIN cw20_tokens c ON c.token = b.token AND c.created_height IS NOT NULL
                WHERE ${of('b.token')} b.balance > 0 GROUP BY b.token) h
       ON h.token = t.address
     ${addresses ? sql`WHERE t.address = ANY(${addresses}::text[])` : sql`ORDER BY t.first_seen_at DESC, t.address`}`,
  );
}

/**
 * Tokens with their last 24 hours of trades and their holders, every figure computed by the
 * database: all of them, newest first, or the one at `address`. The windows end at one `now`
 * (a constant of the queries: the planner reads only the chunks of the last day). An API
 * process keeps the last day of trades in memory instead (src/api/launchpad/trade-windows.ts)
 * and reads this only when that day holds more trades than it keeps.
 */
export async function listedTokens(db: Queryable, address?: string): Promise<ListedToken[]> {
  const now = Date.now();
  const since = (window: PriceWindow) => new Date(now - PRICE_WINDOWS[window]);
  const facts = await tokenFacts(db, address);
  const sums = await db.query<{
    token_address: string;
    volume: string;
    trades: number;
    buys: number;
    sells: number;
    traders: number;
    first_after_24h: Date;
    first_after_6h: Date | null;
    first_after_1h: Date | null;
    first_after_5m: Date | null;
  }>(
    sql`SELECT token_address, sum(volume_unative)::text AS volume, count(*)::int AS trades,
          count(*) FILTER (WHERE direction = 'native_to_token')::int AS buys,
          count(*) FILTER (WHERE direction = 'token_to_native')::int AS sells,
          count(DISTINCT trader)::int AS traders,
          min(time) AS first_after_24h,
          min(time) FILTER (WHERE time > ${since('6h')}) AS first_after_6h,
          min(time) FILTER (WHERE time > ${since('1h')}) AS first_after_1h,
          min(time) FILTER (WHERE time > ${since('5m')}) AS first_after_5m
        FROM trades WHERE ${address ? sql`token_address = ${address} AND` : sql``} time > ${since('24h')}
        GROUP BY token_address`,
  );
  const byToken = new Map(sums.map((s) => [s.token_address, s]));
  const searches: PriceSearch[] = [];
  const rows: ListedToken[] = facts.map((t) => {
    const s = byToken.get(t.address);
    const firstAfter = Object.fromEntries(
      WINDOW_NAMES.map((w) => [w, s?.[`first_after_${w}`]?.getTime() ?? null]),
    ) as FirstAfter;
    const before = Object.fromEntries(
      WINDOW_NAMES.map((w) => {
        const start = now - PRICE_WINDOWS[w];
        const price = priceBeforeFromFacts(t, start);
        if (price === undefined) searches.push({ token: t.address, start: new Date(start) });
        return [`price_before_${w}`, price ?? null];
      }),
    ) as Pick<WindowFigures, `price_before_${PriceWindow}`>;
    return {
      ...t,
      volume_24h: s?.volume ?? '0',
      trade_count_24h: s?.trades ?? 0,
      buys_24h: s?.buys ?? 0,
      sells_24h: s?.sells ?? 0,
      traders_24h: s?.traders ?? 0,
      ...before,
      changes_at: windowsChangeAt(t, firstAfter, now),
    };
  });
  const prices = await lastPricesAtOrBefore(db, searches, now);
  for (const r of rows)
    for (const w of WINDOW_NAMES) {
      const price = prices.get(priceKey(r.address, now - PRICE_WINDOWS[w]));
      if (price !== undefined) r[`price_before_${w}`] = price;
    }
  return rows;
}

/** A token as a holding shows it. */
export interface HeldToken {
  address: string;
  name: string | null;
  symbol: string | null;
  price_unative: string;
  graduated: boolean;
}

/** HeldToken's columns, for a select of `tokens t`. */
export const HELD_TOKEN_COLUMNS: Sql = sql.raw(
  `t.address, t.name, t.symbol, t.current_price::text AS price_unative, t.graduated`,
);

export function heldTokens(db: Queryable, addresses: readonly string[]): Promise<HeldToken[]> {
  return db.query<HeldToken>(
    sql`SELECT ${HELD_TOKEN_COLUMNS} FROM tokens t WHERE t.address = ANY(${addresses}::text[])`,
  );
}

/**
 * When the token (or, without one, any token) last traded, and when it was launched (null:
 * not known, as for a token that started on the AMM); undefined when the token is not stored.
 */
export async function tradeTimes(
  db: Queryable,
  token?: string,
): Promise<{ at: Date | null; created: Date | null } | undefined> {
  const [row] = await db.query<{ at: Date | null; created: Date | null }>(
    token
      ? sql`SELECT last_trade_at AS at, created_at AS created FROM tokens WHERE address = ${token}`
      : sql`SELECT max(last_trade_at) AS at, NULL::timestamptz AS created FROM tokens`,
  );
  return row;
}

/** The token's stored total supply (null until read); undefined when the token is not stored. */
export async function storedSupply(db: Queryable, address: string): Promise<string | null | undefined> {
  const [row] = await db.query<{ supply: string | null }>(
    sql`SELECT total_supply::text AS supply FROM tokens WHERE address = ${address}`,
  );
  return row ? row.supply : undefined;
}

export async function isStoredToken(db: Queryable, address: string): Promise<boolean> {
  return (await db.query(sql`SELECT 1 FROM tokens WHERE address = ${address}`)).length > 0;
}

/** A trade as a window of the last day keeps it. */
export interface WindowTrade {
  token_address: string;
  /** The block time in ms, rounded up from the µs stored (a ms bound compares with it as with the stored time). */
  time_ms: number;
  seq: string;
  price: string;
  volume: string;
  direction: 'native_to_token' | 'token_to_native';
  trader: string;
}

/** How far the trades go: the chain order and time of the last trade stored (seq '0' before any). */
export async function lastTradeMark(db: Queryable): Promise<{ seq: string; time: Date | null }> {
  const [row] = await db.query<{ seq: string; time: Date | null }>(
    sql`SELECT price_seq::text AS seq, last_trade_at AS time FROM tokens ORDER BY price_seq DESC LIMIT 1`,
  );
  return row ?? { seq: '0', time: null };
}

/**
 * Trades in chain order from after `afterSeq` up to `upToSeq` (each bound optional), made at
 * `since` or later (the bound that keeps the read to the chunks of the range), or after
 * `since` when `afterSeq` is not given; of `tokens` only, when given; the first `limit` of them.
 */
export function tradesInOrder(
  db: Queryable,
  range: { afterSeq?: string; upToSeq?: string; since: Date; tokens?: readonly string[]; limit?: number },
): Promise<WindowTrade[]> {
  const where = [
    range.afterSeq === undefined
      ? sql`time > ${range.since}`
      : sql`time >= ${range.since} AND seq > ${range.afterSeq}::bigint`,
  ];
  if (range.upToSeq !== undefined) where.push(sql`seq <= ${range.upToSeq}::bigint`);
  if (range.tokens !== undefined) where.push(sql`token_address = ANY(${range.tokens}::text[])`);
  return db.query<WindowTrade>(
    sql`SELECT token_address, ceil(extract(epoch FROM time) * 1000)::float8 AS time_ms, seq::text AS seq,
          price_unative::text AS price, volume_unative::text AS volume, direction, trader
        FROM trades WHERE ${sql.join(where, ' AND ')} ORDER BY trades.seq
        ${range.limit === undefined ? sql`` : sql`LIMIT ${range.limit}`}`,
  );
}
