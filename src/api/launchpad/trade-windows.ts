// The last day of trades, kept in the API process's memory: a token's 24-hour figures
// (volume, trades, buys, sells, distinct traders) and its price before each window of
// price_change come from here, not from a scan of its trades on every answer. The busiest
// token's day is thousands of trades, and every trade drops its cached answer: recomputing
// them in the database on each of its answers cost ~140 ms embedded, ~50 ms on a server
// (docs/launchpad-api.md "How the figures are computed").
//
// The windows are read from the index, never from the feed: seeded with every trade of the
// last day up to the chain order the tokens table shows, then caught up, before an answer,
// to the chain order of the tokens it reads (`price_seq`, written in the same transaction as
// the trades). So an answer never shows a token whose trades the windows do not hold yet.
// A backfill (trades written below that order) announces `anything`: the windows are
// dropped and seeded again. A last day of more than MAX_WINDOW_TRADES trades is not kept:
// the database computes the figures then (listedTokens).
import {
  type FirstAfter,
  type ListedToken,
  lastPricesAtOrBefore,
  lastTradeMark,
  listedTokens,
  PRICE_WINDOWS,
  type PriceSearch,
  type PriceWindow,
  priceBeforeFromFacts,
  priceKey,
  type TokenFacts,
  tokenFacts,
  tradesInOrder,
  WINDOW_NAMES,
  type WindowFigures,
  type WindowTrade,
  windowsChangeAt,
} from '../../db/tokens.ts';
import type { Queryable } from '../../db/types.ts';

const DAY_MS = PRICE_WINDOWS['24h'];
/** The most trades of the last day kept in memory (about 250 bytes each). */
export const MAX_WINDOW_TRADES = 500_000;
/**
 * A catch-up reads trades from this long before the last one it holds: a CometBFT chain's
 * block times never go back, and the bound only keeps the read to the chunks of the range.
 */
const CATCH_UP_MARGIN_MS = 600_000;
/**
 * Tokens whose windows disagree with the tokens table are read again from the index, up to
 * this many in one answer; more, and the windows are dropped for RETRY_DISAGREED_MS.
 */
const REREAD_MAX_TOKENS = 100;
const RETRY_DISAGREED_MS = 60_000;
/** How often at most every token's window drops the trades that left it (a token's own answer drops its own). */
const SWEEP_EVERY_MS = 60_000;
/** After finding the last day too large to keep, how long the database computes the figures before it is tried again. */
const RETRY_TOO_MANY_MS = 600_000;

/** A trade as a window holds it. */
interface Held {
  /** Its block time in ms, rounded up from the µs stored: `time > t` and `time <= t` for a ms `t` as the database compares them. */
  time: number;
  seq: bigint;
  price: string;
  volume: bigint;
  buy: boolean;
  trader: string;
}

/** One token's trades of the last day, in chain order, with their running figures. */
class TokenWindow {
  /** Trades from `head` on are in the window; those before it have left. */
  private trades: Held[] = [];
  private head = 0;
  volume = 0n;
  buys = 0;
  sells = 0;
  /** Each trader of the window and how many of its trades are theirs. */
  readonly traders = new Map<string, number>();
  /** The price of the last trade at or before the window's start (null: none); undefined until looked up. */
  before: string | null | undefined;
  /** Chain order of the last trade added. */
  lastSeq = 0n;

  get size(): number {
    return this.trades.length - this.head;
  }

  /** Chain order of the oldest trade held (undefined: none). */
  get firstSeq(): bigint | undefined {
    return this.trades[this.head]?.seq;
  }

  add(t: WindowTrade): void {
    const seq = BigInt(t.seq);
    if (seq > this.lastSeq) this.lastSeq = seq;
    const held: Held = {
      time: t.time_ms,
      seq,
      price: t.price,
      volume: BigInt(t.volume),
      buy: t.direction === 'native_to_token',
      trader: t.trader,
    };
    // chain order is time order on a chain whose block times never go back; placed by time if one did
    let at = this.trades.length;
    while (at > this.head && this.trades[at - 1]!.time > held.time) at--;
    this.trades.splice(at, 0, held);
    this.volume += held.volume;
    if (held.buy) this.buys++;
    else this.sells++;
    this.traders.set(held.trader, (this.traders.get(held.trader) ?? 0) + 1);
  }

  /** Drops the trades at or before `start`; the last of them is the price before the window. Resolves to how many left. */
  evict(start: number): number {
    const from = this.head;
    while (this.head < this.trades.length && this.trades[this.head]!.time <= start) {
      const t = this.trades[this.head++]!;
      this.volume -= t.volume;
      if (t.buy) this.buys--;
      else this.sells--;
      const n = this.traders.get(t.trader)! - 1;
      if (n === 0) this.traders.delete(t.trader);
      else this.traders.set(t.trader, n);
      this.before = t.price;
    }
    if (this.head > 64 && this.head * 2 > this.trades.length) {
      this.trades = this.trades.slice(this.head);
      this.head = 0;
    }
    return this.head - from;
  }

  /** Index of the first trade after `start` (the window's length when none is). */
  private firstAfter(start: number): number {
    let [lo, hi] = [this.head, this.trades.length];
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.trades[mid]!.time <= start) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** When the first trade after `start` was made (null: none). */
  firstTimeAfter(start: number): number | null {
    return this.trades[this.firstAfter(start)]?.time ?? null;
  }

  /** The price of the last trade at or before `start` (a start inside the window); undefined while `before` is not known. */
  priceAtOrBefore(start: number): string | null | undefined {
    const i = this.firstAfter(start) - 1;
    return i >= this.head ? this.trades[i]!.price : this.before;
  }
}

/** The windows of every token, and how far in chain order they reach. */
interface Held24h {
  windows: Map<string, TokenWindow>;
  /** Every trade up to this chain order is held (or has left). */
  seq: bigint;
  /** The time of the last trade held, where a catch-up starts reading. */
  time: number;
  trades: number;
  sweptAt: number;
}

export interface TradeWindows {
  /** Tokens with their last day's figures: all of them, newest first, or the one at `address`. */
  listedTokens(address?: string): Promise<ListedToken[]>;
  /** Anything may have changed (a backfill): the windows are read again. */
  reset(): void;
  stats(): { trades: number; tokens: number } | undefined;
}

export function createTradeWindows(
  db: Queryable,
  options: {
    maxTrades?: number;
    /** Every token's facts for the list (default: read from the index each time). */
    allFacts?: () => Promise<TokenFacts[]>;
  } = {},
): TradeWindows {
  const maxTrades = options.maxTrades ?? MAX_WINDOW_TRADES;
  const allFacts = options.allFacts ?? (() => tokenFacts(db));
  let held: Held24h | undefined;
  let databaseUntil = 0;
  let reading: Promise<void> | undefined;
  let generation = 0;

  const addAll = (h: Held24h, trades: readonly WindowTrade[]) => {
    for (const t of trades) {
      let w = h.windows.get(t.token_address);
      if (!w) {
        w = new TokenWindow();
        h.windows.set(t.token_address, w);
      }
      // a token read again holds its trades up to then: a catch-up after it skips them
      if (BigInt(t.seq) <= w.lastSeq) continue;
      w.add(t);
      h.trades++;
      h.time = Math.max(h.time, t.time_ms);
    }
  };

  const seed = async (): Promise<void> => {
    const started = generation;
    const now = Date.now();
    const mark = await lastTradeMark(db);
    const trades = await tradesInOrder(db, { upToSeq: mark.seq, since: new Date(now - DAY_MS), limit: maxTrades + 1 });
    if (started !== generation) return;
    if (trades.length > maxTrades) {
      databaseUntil = Date.now() + RETRY_TOO_MANY_MS;
      return;
    }
    const h: Held24h = { windows: new Map(), seq: BigInt(mark.seq), time: 0, trades: 0, sweptAt: now };
    addAll(h, trades);
    h.time = Math.max(h.time, mark.time?.getTime() ?? 0);
    held = h;
  };

  const catchUp = async (h: Held24h, upTo: bigint): Promise<void> => {
    const started = generation;
    const most = Math.ceil(maxTrades * 1.25);
    const trades = await tradesInOrder(db, {
      afterSeq: String(h.seq),
      upToSeq: String(upTo),
      since: new Date(h.time - CATCH_UP_MARGIN_MS),
      // one past what may still be held (a re-read of some tokens may have passed it: then one)
      limit: Math.max(most - h.trades, 0) + 1,
    });
    if (started !== generation || held !== h) return;
    if (h.trades + trades.length > most) {
      held = undefined;
      databaseUntil = Date.now() + RETRY_TOO_MANY_MS;
      return;
    }
    addAll(h, trades);
    h.seq = upTo > h.seq ? upTo : h.seq;
  };

  /** The windows, holding every trade up to `upTo`; undefined when the last day is too large to keep. */
  const reach = async (upTo: bigint): Promise<Held24h | undefined> => {
    const called = generation;
    for (;;) {
      // dropped meanwhile (a backfill's notices): the database answers, rather than waiting on reads it keeps discarding
      if (Date.now() < databaseUntil || generation !== called) return undefined;
      if (held && held.seq >= upTo) return held;
      // what is to come may be older than the day (the indexer catching up): the day read anew, not the gap
      if (held && held.time < Date.now() - DAY_MS - CATCH_UP_MARGIN_MS && !reading) held = undefined;
      const h = held;
      reading ??= (h ? catchUp(h, upTo) : seed()).finally(() => {
        reading = undefined;
      });
      await reading;
    }
  };

  /** Runs `read` once no other read of the windows is under way, and keeps others waiting for it. */
  const exclusively = async (read: () => Promise<void>): Promise<void> => {
    while (reading) await reading;
    reading = read().finally(() => {
      reading = undefined;
    });
    await reading;
  };

  const evict = (h: Held24h, w: TokenWindow, now: number) => {
    h.trades -= w.evict(now - DAY_MS);
  };

  const sweep = (h: Held24h, now: number) => {
    if (now - h.sweptAt < SWEEP_EVERY_MS) return;
    h.sweptAt = now;
    for (const [token, w] of h.windows) {
      evict(h, w, now);
      // an empty window tells nothing the token's facts do not (its last trade is before the day)
      if (w.size === 0) h.windows.delete(token);
    }
  };

  /** The window figures of `facts` at `now`, the prices before the day that are not known yet looked up first. */
  const figures = async (h: Held24h, facts: readonly TokenFacts[], now: number): Promise<ListedToken[]> => {
    const dayStart = now - DAY_MS;
    const lookups: (PriceSearch & { window: TokenWindow })[] = [];
    for (const t of facts) {
      const w = h.windows.get(t.address);
      if (!w) continue;
      const needed = WINDOW_NAMES.some(
        (name) =>
          priceBeforeFromFacts(t, now - PRICE_WINDOWS[name]) === undefined &&
          w.priceAtOrBefore(now - PRICE_WINDOWS[name]) === undefined,
      );
      if (needed) lookups.push({ token: t.address, start: new Date(dayStart), window: w });
    }
    if (lookups.length > 0) {
      const prices = await lastPricesAtOrBefore(db, lookups, now);
      for (const { token, window: w } of lookups) {
        // a window read again meanwhile is not this one; one that dropped trades meanwhile knows a later price
        if (h.windows.get(token) === w && w.before === undefined)
          w.before = prices.get(priceKey(token, dayStart)) ?? null;
      }
    }
    return facts.map((t) => ({ ...t, ...windowFigures(t, h.windows.get(t.address), now) }));
  };

  /**
   * These tokens' windows, read again from the index (no catch-up meanwhile; one after it
   * skips the trades they hold), without moving where the next catch-up starts.
   */
  const reread = (h: Held24h, tokens: readonly string[], now: number) =>
    exclusively(async () => {
      const trades = await tradesInOrder(db, { since: new Date(now - DAY_MS), tokens });
      if (held !== h) return;
      for (const token of tokens) {
        h.trades -= h.windows.get(token)?.size ?? 0;
        h.windows.delete(token);
      }
      const time = h.time;
      addAll(h, trades);
      h.time = time;
    });

  const reset = () => {
    generation++;
    held = undefined;
    databaseUntil = 0;
  };

  return {
    async listedTokens(address?: string): Promise<ListedToken[]> {
      const facts = address ? await tokenFacts(db, address) : await allFacts();
      const upTo = facts.reduce((max, t) => (BigInt(t.price_seq) > max ? BigInt(t.price_seq) : max), 0n);
      const h = await reach(upTo);
      if (!h) return listedTokens(db, address);
      const now = Date.now();
      if (!address) sweep(h, now);
      const disagree: string[] = [];
      for (const t of facts) {
        const w = h.windows.get(t.address);
        if (w) evict(h, w, now);
        if (!agrees(t, w, now)) disagree.push(t.address);
      }
      // trades written out of chain order without a backfill's notice
      if (disagree.length > REREAD_MAX_TOKENS) {
        reset();
        databaseUntil = Date.now() + RETRY_DISAGREED_MS;
        return listedTokens(db, address);
      }
      if (disagree.length > 0) await reread(h, disagree, now);
      return figures(h, facts, now);
    },
    reset,
    stats: () => held && { trades: held.trades, tokens: held.windows.size },
  };
}

/**
 * Whether a token's window (its old trades dropped) holds what its row in the tokens table
 * says: its last trade when that was within the day, else no trade at all.
 */
function agrees(t: TokenFacts, w: TokenWindow | undefined, now: number): boolean {
  const inDay = t.last_trade_at !== null && t.last_trade_at.getTime() > now - DAY_MS;
  // none in the day, or the row is behind the window (its notice not yet heard): every trade held is later than its last
  if (!inDay) return w === undefined || w.size === 0 || w.firstSeq! > BigInt(t.price_seq);
  // at or past it: a catch-up for a later answer may have added trades the row did not show yet
  return w !== undefined && w.lastSeq >= BigInt(t.price_seq);
}

/** A token's figures from its window (none: no trade in the last day) and its facts. */
function windowFigures(t: TokenFacts, w: TokenWindow | undefined, now: number): WindowFigures {
  const firstAfter = {} as FirstAfter;
  const before = {} as Record<`price_before_${PriceWindow}`, string | null>;
  for (const name of WINDOW_NAMES) {
    const start = now - PRICE_WINDOWS[name];
    firstAfter[name] = w ? w.firstTimeAfter(start) : null;
    const told = priceBeforeFromFacts(t, start);
    before[`price_before_${name}`] = told !== undefined ? told : (w?.priceAtOrBefore(start) ?? null);
  }
  return {
    volume_24h: String(w?.volume ?? 0n),
    trade_count_24h: w?.size ?? 0,
    buys_24h: w?.buys ?? 0,
    sells_24h: w?.sells ?? 0,
    traders_24h: w?.traders.size ?? 0,
    ...before,
    changes_at: windowsChangeAt(t, firstAfter, now),
  };
}
