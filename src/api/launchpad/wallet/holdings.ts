// An address's CW20 holdings (docs/launchpad-api.md "Wallet"): every known token it holds,
// from the index's balances where the index vouches for them and from the token contract's
// `balance` query where it cannot (docs/indexing.md "CW20 balances" states the rule).
import type { ChainClient } from '../../../chain/client.ts';
import { sql } from '../../../db/sql.ts';
import { HELD_TOKEN_COLUMNS, type HeldToken, heldTokens } from '../../../db/tokens.ts';
import type { Database } from '../../../db/types.ts';
import type { Logger } from '../../../internal/logger.ts';
import { nodeAnswered, nodeUnavailable } from './options.ts';

export interface Holding {
  address: string;
  name: string | null;
  symbol: string | null;
  /** Token micro-units. */
  balance: string;
  price_unative: string;
  graduated: boolean;
}

interface BalanceRow extends Partial<HeldToken> {
  version: number | string;
  /** null on cw20_state's row alone (the index holds no balance of the address). */
  balance: string | null;
}

/** Contract queries in flight at once for one request. */
const QUERY_CONCURRENCY = 16;

/**
 * The index's version and the address's non-zero balances of known tokens, in one snapshot.
 * Each balance looks its token up by primary key: as a plain join the planner hashes all
 * known tokens (10,000 rows read for a wallet's 100); the LIMIT keeps the lookup per row.
 */
const balancesSql = (holder: string) => sql`
  SELECT s.version, t.*, b.balance::text AS balance
  FROM cw20_state s
  LEFT JOIN (cw20_balances b
             CROSS JOIN LATERAL (SELECT ${HELD_TOKEN_COLUMNS} FROM tokens t WHERE t.address = b.token LIMIT 1) t)
    ON b.holder = ${holder} AND b.balance <> 0`;

/**
 * In one snapshot: the version, the known tokens the index vouches for no holder of (created
 * below complete_from, or by neither the launchpad nor the AMM, or unreadable), and the
 * addresses that received a known token's supply at instantiation.
 */
const VOUCHING_SQL = `
  SELECT s.version,
    (SELECT coalesce(array_agg(t.address), '{}') FROM tokens t
     WHERE NOT EXISTS (SELECT 1 FROM cw20_tokens c
                       WHERE c.token = t.address AND c.created_height >= s.complete_from AND NOT c.unreadable)) AS unvouched,
    (SELECT coalesce(array_agg(DISTINCT c.initial_holder), '{}') FROM cw20_tokens c
     WHERE c.initial_holder IS NOT NULL) AS initial_holders
  FROM cw20_state s`;

interface Vouching {
  version: string;
  unvouched: Set<string>;
  initialHolders: Set<string>;
}

export interface Holdings {
  /**
   * The address's non-zero balances of known tokens, highest value (balance × price) first,
   * and how many token contracts were asked (their answers are the node's, not the index's).
   */
  of(address: string): Promise<{ holdings: Holding[]; contractReads: number }>;
}

export function createHoldings({ db, chain, logger }: { db: Database; chain: ChainClient; logger: Logger }): Holdings {
  // Which tokens the index vouches for changes only with cw20_state.version: kept per version,
  // one computation shared by the requests that need it.
  let vouching: Promise<Vouching> | undefined;
  const vouchingFor = async (version: string): Promise<Vouching> => {
    const current = await vouching?.catch(() => undefined);
    if (current?.version === version) return current;
    const next = db
      .query<{ version: number | string; unvouched: string[]; initial_holders: string[] }>(VOUCHING_SQL)
      .then(([row]) => ({
        version: String(row!.version),
        unvouched: new Set(row!.unvouched),
        initialHolders: new Set(row!.initial_holders),
      }));
    vouching = next;
    return next;
  };

  /** The contract's `balance` answer; undefined when the contract refuses the query (it is not a CW20 then). */
  const contractBalance = async (token: string, address: string): Promise<bigint | undefined> => {
    let answer: { balance?: unknown } | null;
    try {
      answer = await chain.smartQuery<{ balance?: unknown } | null>(token, { balance: { address } });
    } catch (error) {
      if (!nodeAnswered(error)) throw nodeUnavailable();
      logger.warn({ token, err: (error as Error).message }, 'A known token refused its balance query; left out');
      return undefined;
    }
    if (typeof answer?.balance === 'string' && /^\d+$/.test(answer.balance)) return BigInt(answer.balance);
    logger.warn({ token, answer }, 'A known token answered its balance query in another shape; left out');
    return undefined;
  };

  const readAll = async (tokens: readonly string[], address: string) => {
    const balances = new Map<string, bigint>();
    let next = 0;
    const worker = async () => {
      for (let i = next++; i < tokens.length; i = next++) {
        const balance = await contractBalance(tokens[i]!, address);
        if (balance) balances.set(tokens[i]!, balance);
      }
    };
    await Promise.all(Array.from({ length: Math.min(QUERY_CONCURRENCY, tokens.length) }, worker));
    return balances;
  };

  /**
   * The address's balances and the vouching of the same version (the index's rows of a token
   * are used only where the snapshot they come from vouches for them).
   */
  const indexed = async (address: string) => {
    for (;;) {
      const rows = await db.query<BalanceRow>(balancesSql(address));
      const v = await vouchingFor(String(rows[0]!.version));
      if (v.version === String(rows[0]!.version)) return { rows, vouching: v };
    }
  };

  return {
    async of(address) {
      const { rows, vouching: v } = await indexed(address);
      // The tokens whose supply the address received at instantiation are read from the contract.
      const own = v.initialHolders.has(address)
        ? (
            await db.query<{ token: string }>(
              `SELECT c.token FROM cw20_tokens c JOIN tokens t ON t.address = c.token WHERE c.initial_holder = $1`,
              [address],
            )
          ).map((r) => r.token)
        : [];
      const toRead = new Set([...v.unvouched, ...own]);
      const held: Holding[] = [];
      for (const r of rows) {
        if (r.balance === null || toRead.has(r.address!)) continue;
        held.push(holding(r as BalanceRow & HeldToken, r.balance));
      }
      const read = await readAll([...toRead], address);
      if (read.size > 0) {
        const info = await heldTokens(db, [...read.keys()]);
        for (const t of info) held.push(holding(t, read.get(t.address)!.toString()));
      }
      return { holdings: byValue(held), contractReads: toRead.size };
    },
  };
}

const holding = (t: HeldToken, balance: string): Holding => ({
  address: t.address,
  name: t.name,
  symbol: t.symbol,
  balance,
  price_unative: t.price_unative,
  graduated: t.graduated,
});

/** Highest value (balance × price) first, then the larger balance, then by address. */
function byValue(holdings: Holding[]): Holding[] {
  const keyed = holdings.map((h) => {
    const balance = BigInt(h.balance);
    return { h, balance, value: balance * BigInt(h.price_unative) };
  });
  keyed.sort((a, b) =>
    a.value !== b.value
      ? a.value > b.value
        ? -1
        : 1
      : a.balance !== b.balance
        ? a.balance > b.balance
          ? -1
          : 1
        : a.h.address < b.h.address
          ? -1
          : 1,
  );
  return keyed.map((k) => k.h);
}
