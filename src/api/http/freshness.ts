// Which cached answers a change to the index makes stale, in one place. The indexer announces
// typed domain changes (src/feed/notice.ts); the feed hub hears them (with the tokens of new
// feed rows as `trades`); `applyChange` drops the cached answers that read what changed. A
// route declares what its answer reads (`reads`), which gives the answer's tags and how long
// it may be kept for what no change announces (the sliding 24-hour window, a contract's
// balance).
import type { DomainChange } from '../../feed/notice.ts';
import type { ResponseCache } from './response-cache.ts';

/** What an answer reads: the tags a change drops it by, and at most how long it is kept. */
export interface Reads {
  tags: readonly string[];
  ttlMs: number;
}

// The tags: answers about every token, about one token, and about holders' balances.
const ALL_TOKENS = 'tokens';
const token = (address: string) => `token:${address}`;
const HOLDINGS = 'holdings';
const holder = (address: string) => `holder:${address}`;
const holdersOf = (token: string) => `holders-of:${token}`;
const ALL_HOLDERS = 'holders-of';
// what a page of past trades shows of its tokens (their names and symbols): their metadata only
const namesOf = (token: string) => `names:${token}`;
const ALL_NAMES = 'names';
// answers in USD at the oracle's prices (a candle's period takes the price by its end)
const USD = 'usd';

export const reads = {
  /** The token list: every token's figures (its 24-hour window slides, hence the short TTL). */
  tokenList: (): Reads => ({ tags: [ALL_TOKENS], ttlMs: 2000 }),
  /**
   * One token's figures: its trades, metadata and holders' balances. Its windows slide, so
   * it is kept until they change by time alone (the answer says when), at most `ttlMs`.
   */
  token: (address: string): Reads => ({ tags: [token(address), holdersOf(address), ALL_HOLDERS], ttlMs: 300_000 }),
  /** The newest trades of one token, or of every token. */
  recentTrades: (address: string | undefined): Reads => ({
    tags: [address ? token(address) : ALL_TOKENS],
    ttlMs: 60_000,
  }),
  /**
   * Trades before a position in chain order. Once the position's block is indexed no trade can
   * join such a page (new trades come after it; a backfill announces 'anything', which drops
   * every answer), so it is kept 10 minutes, dropped only when a token's metadata (the names
   * and symbols it shows) comes; before that, as the newest trades are.
   */
  tradesBefore: (address: string | undefined, blockIndexed: boolean): Reads =>
    blockIndexed ? { tags: [address ? namesOf(address) : ALL_NAMES], ttlMs: 600_000 } : reads.recentTrades(address),
  /** One token's candles; in USD, at the oracle's prices too. */
  candles: (address: string, inUsd = false): Reads => ({
    tags: inUsd ? [token(address), USD] : [token(address)],
    ttlMs: 60_000,
  }),
  /** A holder's holdings: its balances, kept `ttlMs` (they may come from a contract, which announces nothing). */
  holdings: (address: string, ttlMs: number): Reads => ({ tags: [HOLDINGS, holder(address)], ttlMs }),
  /**
   * A token's holders: its balances (moved by its trades and by transfers, each announced),
   * and its supply (announced as its metadata); kept 10 minutes at most.
   */
  tokenHolders: (address: string): Reads => ({
    tags: [token(address), holdersOf(address), ALL_HOLDERS],
    ttlMs: 600_000,
  }),
  /** A token's traders over a window (which slides: kept 10 s at most). */
  tokenTraders: (address: string): Reads => ({ tags: [token(address)], ttlMs: 10_000 }),
  /** The tokens a holdings answer shows, known once it is computed: their figures. */
  heldTokens: (addresses: readonly string[]): readonly string[] => addresses.map(token),
};

/** The tags a change makes stale; 'all' when any answer may be. */
export function staleTags(change: DomainChange): readonly string[] | 'all' {
  switch (change.kind) {
    case 'trades':
      return [ALL_TOKENS, ...new Set(change.tokens.map(token))];
    case 'metadata':
      return [ALL_TOKENS, ALL_NAMES, ...new Set(change.tokens.flatMap((t) => [token(t), namesOf(t)]))];
    case 'balances':
      return [...change.holders.map(holder), ...change.tokens.map(holdersOf)];
    case 'vouched':
      // every holder's holdings, and the named tokens' holders (without names: a list too long
      // for a notice, or the vouched set moved, every token's)
      return change.tokens ? [HOLDINGS, ...new Set(change.tokens.map(holdersOf))] : [HOLDINGS, ALL_HOLDERS];
    case 'prices':
      return [USD];
    case 'anything':
      return 'all';
  }
}

/** Drops the cached answers `change` makes stale. */
export function applyChange(cache: ResponseCache, change: DomainChange): void {
  const tags = staleTags(change);
  if (tags === 'all') cache.clear();
  else cache.invalidate(tags);
}
