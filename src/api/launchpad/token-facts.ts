// Every token's stored facts (the tokens table with its holder counts), kept in the API
// process for the token list and read again only for the tokens a change names: the
// indexer announces every change to them (src/feed/notice.ts: trades, metadata, balances;
// `vouched` naming the tokens a batch made known; without names, or `anything` after a
// backfill or missed notices: everything), so a list at 10,000 tokens is not a read
// of every token and every balance each time it is made.
import { type TokenFacts, tokenFacts } from '../../db/tokens.ts';
import type { Queryable } from '../../db/types.ts';
import type { DomainChange } from '../../feed/notice.ts';

export interface TokenFactsCache {
  /** Every token's facts, newest `first_seen_at` first (ties by address). */
  all(): Promise<TokenFacts[]>;
  /** What the indexer announced: the tokens it names are read again at the next `all()`. */
  apply(change: DomainChange): void;
}

/** The database's order: first_seen_at descending to the µs, then address. */
const newestFirst = (a: TokenFacts, b: TokenFacts) => {
  const [x, y] = [BigInt(a.first_seen_us), BigInt(b.first_seen_us)];
  return x !== y ? (y > x ? 1 : -1) : a.address < b.address ? -1 : a.address > b.address ? 1 : 0;
};

export function createTokenFacts(db: Queryable): TokenFactsCache {
  let byAddress = new Map<string, TokenFacts>();
  let sorted: TokenFacts[] | undefined;
  let everything = true;
  const dirty = new Set<string>();
  let reading: Promise<void> | undefined;

  /** Reads what is marked; a change that comes meanwhile marks again for the next read. */
  const read = async () => {
    if (everything) {
      everything = false;
      dirty.clear();
      try {
        byAddress = new Map((await tokenFacts(db)).map((t) => [t.address, t]));
      } catch (error) {
        everything = true;
        throw error;
      }
      sorted = undefined;
      return;
    }
    const taken = [...dirty];
    dirty.clear();
    try {
      for (const t of await tokenFacts(db, taken)) {
        if (!byAddress.has(t.address)) sorted = undefined;
        byAddress.set(t.address, t);
      }
    } catch (error) {
      for (const address of taken) dirty.add(address);
      throw error;
    }
    if (sorted) sorted = sorted.map((t) => byAddress.get(t.address)!);
  };

  return {
    async all() {
      // a read under way may have taken its marks before this call's: one more then, at most
      for (let i = 0; i < 2 && (everything || dirty.size > 0); i++) {
        reading ??= read().finally(() => {
          reading = undefined;
        });
        await reading;
      }
      sorted ??= [...byAddress.values()].sort(newestFirst);
      return sorted;
    },
    apply(change) {
      switch (change.kind) {
        case 'trades':
        case 'metadata':
        case 'balances':
          for (const token of change.tokens) dirty.add(token);
          return;
        case 'vouched':
          // a batch that made tokens known names them; without names (the vouched set moved, or
          // a list of holders too long for a notice) any token's holder count may have moved
          if (change.tokens) {
            for (const token of change.tokens) dirty.add(token);
            return;
          }
          everything = true;
          return;
        case 'anything':
          everything = true;
      }
    },
  };
}
