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

/** A token as the Launchpad API lists it, with its last 24 hours of trades. */
export interface ListedToken {
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
  volume_24h: string;
  trade_count_24h: number;
  created_at: Date | null;
  first_seen_at: Date;
  graduation_threshold: string | null;
  /** The CW20's total supply (token_info), null until read. */
  total_supply: string | null;
  /** Trades of the last 24 hours that bought the token (native in), that sold it, and their distinct traders. */
  buys_24h: number;
  sells_24h: number;
  traders_24h: number;
  /** Addresses with a positive balance in the index's CW20 balances. */
  holders: number;
  last_trade_at: Date | null;
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

/** The windows of price_change. */
const PRICE_WINDOWS = { '5m': 300_000, '1h': 3_600_000, '6h': 21_600_000, '24h': 86_400_000 } as const;
type PriceWindow = keyof typeof PRICE_WINDOWS;
const WINDOW_NAMES = Object.keys(PRICE_WINDOWS) as PriceWindow[];
const DAY_MS = 86_400_000;
/** How long the day candles are kept (sql/0006_candle_chunks.sql prunes them at 90 days), less a day of margin. */
const CANDLE_DAYS_KEPT_MS = 89 * DAY_MS;

/** A token whose price before a window's start is still to be found. */
interface PriceSearch {
  token: ListedToken;
  window: PriceWindow;
  start: Date;
}

/**
 * Each token's price before each window: none without a trade; its current price when its
 * last trade is older than the window's start (nothing traded since); none when it was
 * launched after it; else the price of its last trade (in chain order) at or before it.
 * That trade is searched in three bounded steps, each only for what the one before did not
 * find, and with time bounds that are constants of the query, so the planner reads only the
 * chunks of the range (a search of a 90-day hypertable without them plans every chunk:
 * ~300 ms embedded):
 *  1. the trades of the day before the start, for every token and window in one query;
 *  2. the close of the token's last day candle that began at least a day before the start:
 *     step 1 found no trade after that day began, so its close is the last trade before the
 *     start (candles_1d closes by chain order, as this does);
 *  3. for a token the day candles do not reach (kept 90 days), the trades older than them.
 */
async function fillPricesBefore(db: Queryable, rows: ListedToken[], now: number): Promise<void> {
  let pending: PriceSearch[] = [];
  for (const window of WINDOW_NAMES) {
    const key = `price_before_${window}` as const;
    const start = new Date(now - PRICE_WINDOWS[window]);
    for (const r of rows) {
      if (r.last_trade_at === null) r[key] = null;
      else if (r.last_trade_at <= start) r[key] = r.current_price;
      else if (r.created_at !== null && r.created_at > start) r[key] = null;
      else {
        r[key] = null; // unless a step finds it
        pending.push({ token: r, window, start });
      }
    }
  }
  const found = (prices: { token: string; start: Date; price: string }[]) => {
    const byPair = new Map(prices.map((p) => [`${p.token} ${p.start.getTime()}`, p.price]));
    pending = pending.filter((s) => {
      const price = byPair.get(`${s.token.address} ${s.start.getTime()}`);
      if (price === undefined) return true;
      s.token[`price_before_${s.window}`] = price;
      return false;
    });
  };
  const pairs = () =>
    sql`unnest(${pending.map((s) => s.token.address)}::text[], ${pending.map((s) => s.start)}::timestamptz[]) AS p(token, start)`;
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
    const kept = new Date(now - CANDLE_DAYS_KEPT_MS);
    found(
      await db.query(
        sql`SELECT p.token, p.start, t.price FROM ${pairs()} CROSS JOIN LATERAL (
              SELECT price_unative::text AS price FROM trades
              WHERE token_address = p.token AND time <= p.start - INTERVAL '1 day' AND time <= ${kept}
              ORDER BY time DESC, seq DESC LIMIT 1) t`,
      ),
    );
  }
}

/**
 * When the token's answer changes without a new trade: when the first trade after a
 * window's start leaves the window (the 24-hour figures and that window's price before
 * change), or when a window's start passes the token's launch. Null: not before a trade.
 */
function windowsChangeAt(r: ListedToken & Record<`first_after_${PriceWindow}`, Date | null>, now: number): Date | null {
  let at = Infinity;
  for (const window of WINDOW_NAMES) {
    const first = r[`first_after_${window}`];
    if (first !== null) at = Math.min(at, first.getTime() + PRICE_WINDOWS[window]);
    if (r.created_at !== null && r.created_at.getTime() > now - PRICE_WINDOWS[window])
      at = Math.min(at, r.created_at.getTime() + PRICE_WINDOWS[window]);
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

/**
 * Tokens with their last 24 hours of trades and their holders: all of them, newest first, or
 * the one at `address`. The windows end at one `now` (a constant of the queries: the planner
 * reads only the chunks of the last day).
 */
export async function listedTokens(db: Queryable, address?: string): Promise<ListedToken[]> {
  const only = (column: string) => (address ? sql`${sql.raw(column)} = ${address} AND` : sql``);
  const now = Date.now();
  const since = (window: PriceWindow) => new Date(now - PRICE_WINDOWS[window]);
  const rows = await db.query<ListedToken & Record<`first_after_${PriceWindow}`, Date | null>>(
    sql`SELECT t.address, t.name, t.symbol, t.decimals, t.image, t.description, t.creator, t.source, t.graduated,
       t.native_reserves::text AS native_reserves, t.current_price::text AS current_price,
       coalesce(s.volume, 0)::text AS volume_24h, coalesce(s.trades, 0)::int AS trade_count_24h,
       coalesce(s.buys, 0)::int AS buys_24h, coalesce(s.sells, 0)::int AS sells_24h,
       coalesce(s.traders, 0)::int AS traders_24h,
       (coalesce(h.others, 0)
        + CASE WHEN ci.initial_holder IS NOT NULL AND t.total_supply - coalesce(h.others_balance, 0) > 0 THEN 1 ELSE 0 END
       )::int AS holders,
       t.created_at, t.first_seen_at, t.graduation_threshold::text AS graduation_threshold,
       t.total_supply::text AS total_supply,
       t.last_trade_at,
       s.first_after_24h, s.first_after_6h, s.first_after_1h, s.first_after_5m
     FROM tokens t
     LEFT JOIN (SELECT token_address, sum(volume_unative) AS volume, count(*) AS trades,
                       count(*) FILTER (WHERE direction = 'native_to_token') AS buys,
                       count(*) FILTER (WHERE direction = 'token_to_native') AS sells,
                       count(DISTINCT trader) AS traders,
                       min(time) AS first_after_24h,
                       min(time) FILTER (WHERE time > ${since('6h')}) AS first_after_6h,
                       min(time) FILTER (WHERE time > ${since('1h')}) AS first_after_1h,
                       min(time) FILTER (WHERE time > ${since('5m')}) AS first_after_5m
                FROM trades WHERE ${only('token_address')} time > ${since('24h')}
                GROUP BY token_address) s
       ON s.token_address = t.address
     LEFT JOIN cw20_tokens ci ON ci.token = t.address AND ci.created_height IS NOT NULL
     LEFT JOIN (SELECT b.token,
                       count(*) FILTER (WHERE b.holder IS DISTINCT FROM c.initial_holder) AS others,
                       sum(b.balance) FILTER (WHERE b.holder IS DISTINCT FROM c.initial_holder) AS others_balance
                FROM cw20_balances b LEFT JOIN cw20_tokens c ON c.token = b.token AND c.created_height IS NOT NULL
                WHERE ${only('b.token')} b.balance > 0 GROUP BY b.token) h
       ON h.token = t.address
     ${address ? sql`WHERE t.address = ${address}` : sql`ORDER BY t.first_seen_at DESC, t.address`}`,
  );
  for (const r of rows) r.changes_at = windowsChangeAt(r, now);
  await fillPricesBefore(db, rows, now);
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
