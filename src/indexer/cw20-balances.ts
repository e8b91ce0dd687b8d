// The write path of CW20 balances (docs/indexing.md "CW20 balances"), inside the batch's
// transaction: each block's movements are added to cw20_balances once, by the transaction
// that records the block in cw20_applied_blocks (a replayed or backfilled block adds
// nothing); token creations are recorded; and cw20_state.complete_from follows the run of
// applied blocks that ends at the cursor.
import type { Queryable } from '../db/types.ts';
import type { FetchedBlock } from './fetch-blocks.ts';

export interface Cw20WriteOptions {
  /** The batch extends the index at its head (the cursor moves to its last block). */
  head: boolean;
  /** The tokens rows the batch inserted. */
  newTokens: readonly string[];
  /** CW20 contracts followed besides the launchpad's and the AMM's tokens (CW20_CONTRACTS). */
  cw20Contracts?: readonly string[];
}

/**
 * The CW20s whose balances the index follows (docs/indexing.md "CW20 balances"): the
 * launchpad's and the AMM's tokens (rows of `tokens`, or created by them as `cw20_tokens`
 * records) and the contracts an operator lists. Any other contract of the chain (a cw721,
 * another project's token) is none of the index's business.
 */
const FOLLOWED = (token: string, extra: string) =>
  `(${token} = ANY(${extra}::text[]) OR EXISTS (SELECT 1 FROM tokens t WHERE t.address = ${token})
    OR EXISTS (SELECT 1 FROM cw20_tokens c WHERE c.token = ${token} AND c.created_height IS NOT NULL))`;

/** Movements as parallel arrays, for unnest: holder, token, signed amount, height. */
function movementColumns(blocks: readonly FetchedBlock[]) {
  const holders: string[] = [];
  const tokens: string[] = [];
  const amounts: string[] = [];
  const heights: number[] = [];
  for (const b of blocks) {
    for (const m of b.cw20?.movements ?? []) {
      holders.push(m.holder);
      tokens.push(m.token);
      amounts.push(m.amount.toString());
      heights.push(b.height);
    }
  }
  return [holders, tokens, amounts, heights];
}

/**
 * The lowest height of the run of applied blocks that ends at `top` (an applied height):
 * walks down the applied heights until one whose predecessor is missing.
 */
async function runBottom(tx: Queryable, top: number): Promise<number> {
  const [row] = await tx.query<{ height: number }>(
    `SELECT a.height FROM cw20_applied_blocks a
     WHERE a.height <= $1 AND NOT EXISTS (SELECT 1 FROM cw20_applied_blocks p WHERE p.height = a.height - 1)
     ORDER BY a.height DESC LIMIT 1`,
    [top],
  );
  return Number(row!.height);
}

export interface Cw20Written {
  /** The holders whose balance of some token changed, and those tokens. */
  holders: string[];
  tokens: string[];
  /** The tokens the index vouches for, or their initial holders, may have changed (cw20_state.version moved). */
  vouchingChanged: boolean;
}

/** Writes the batch's CW20 changes; resolves to what changed for readers. */
export async function writeCw20Balances(
  tx: Queryable,
  blocks: readonly FetchedBlock[],
  { head, newTokens, cw20Contracts = [] }: Cw20WriteOptions,
): Promise<Cw20Written> {
  const first = blocks[0];
  const last = blocks.at(-1);
  if (!first || !last) return { holders: [], tokens: [], vouchingChanged: false };
  const origins = new Map<string, { height: number; holder: string }>();
  const unreadable = new Set<string>();
  for (const b of blocks) {
    for (const o of b.cw20?.origins ?? [])
      if (!origins.has(o.token)) origins.set(o.token, { height: b.height, holder: o.initialHolder });
    for (const token of b.cw20?.unreadable ?? []) unreadable.add(token);
  }
  // Whether the tokens the index vouches for (or the initial holders) may have changed: then
  // cw20_state.version moves, and API processes recompute that set. A launch whose token and
  // creation arrive in the same batch changes nothing there; a creation of a token known
  // before (or becoming known in another transaction) may, and so does a new initial holder.
  let vouchingChanged = false;
  if (origins.size > 0) {
    const created = await tx.query<{ token: string; initial_holder: string }>(
      `INSERT INTO cw20_tokens AS c (token, created_height, initial_holder)
       SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[])
       ON CONFLICT (token) DO UPDATE SET created_height = excluded.created_height, initial_holder = excluded.initial_holder
       WHERE c.created_height IS NULL
       RETURNING token, initial_holder`,
      [[...origins.keys()], [...origins.values()].map((o) => o.height), [...origins.values()].map((o) => o.holder)],
    );
    // A token followed from its creation on (not listed in CW20_CONTRACTS) whose creation
    // arrives after later blocks were applied (a backfill below the index) missed their
    // movements: its balances are read from the contract instead.
    const late = created.map((c) => c.token).filter((token) => !cw20Contracts.includes(token));
    if (late.length > 0) {
      const marked = await tx.query(
        `UPDATE cw20_tokens c SET unreadable = true
         WHERE c.token = ANY($1::text[]) AND NOT c.unreadable
           AND EXISTS (SELECT 1 FROM cw20_applied_blocks a WHERE a.height > c.created_height)
         RETURNING c.token`,
        [late],
      );
      if (marked.length > 0) vouchingChanged = true;
    }
    const fresh = new Set(newTokens);
    if (created.some((c) => !fresh.has(c.token))) vouchingChanged = true;
    else if (created.length > 0) {
      const [row] = await tx.query<{ added: boolean }>(
        `SELECT EXISTS (
           SELECT 1 FROM unnest($1::text[]) AS h(holder)
           WHERE NOT EXISTS (SELECT 1 FROM cw20_tokens c WHERE c.initial_holder = h.holder AND NOT (c.token = ANY($2::text[])))
         ) AS added`,
        [[...new Set(created.map((c) => c.initial_holder))], created.map((c) => c.token)],
      );
      vouchingChanged = row!.added;
    }
  }
  // Only the blocks this transaction records as applied contribute their movements.
  const moved = await tx.query<{ holder: string; token: string }>(
    `WITH applied AS (
       INSERT INTO cw20_applied_blocks (height) SELECT unnest($1::bigint[])
       ON CONFLICT DO NOTHING RETURNING height
     )
     INSERT INTO cw20_balances AS b (holder, token, balance)
     SELECT m.holder, m.token, sum(m.amount)
     FROM unnest($2::text[], $3::text[], $4::numeric[], $5::bigint[]) AS m(holder, token, amount, height)
     WHERE m.height IN (SELECT height FROM applied) AND ${FOLLOWED('m.token', '$6')}
     GROUP BY m.holder, m.token
     HAVING sum(m.amount) <> 0
     ORDER BY m.holder, m.token
     ON CONFLICT (holder, token) DO UPDATE SET balance = b.balance + excluded.balance
     RETURNING b.holder, b.token`,
    [blocks.map((b) => b.height), ...movementColumns(blocks), [...cw20Contracts]],
  );

  if (unreadable.size > 0) {
    const marked = await tx.query(
      `INSERT INTO cw20_tokens AS c (token, unreadable)
       SELECT u.token, true FROM unnest($1::text[]) AS u(token) WHERE ${FOLLOWED('u.token', '$2')}
       ON CONFLICT (token) DO UPDATE SET unreadable = true WHERE NOT c.unreadable
       RETURNING token`,
      [[...unreadable], [...cw20Contracts]],
    );
    vouchingChanged ||= marked.length > 0;
  }

  // complete_from: set by the first batch at the head; lowered when a batch fills the heights
  // just below it (a backfill's last batch), down through whatever run of applied blocks it joins.
  const [state] = await tx.query<{ complete_from: number | null }>(`SELECT complete_from FROM cw20_state`);
  const from = state?.complete_from == null ? undefined : Number(state.complete_from);
  let completeFrom: number | undefined;
  if (from === undefined && head) completeFrom = await runBottom(tx, last.height);
  else if (from !== undefined && first.height <= from - 1 && from - 1 <= last.height)
    completeFrom = await runBottom(tx, from - 1);
  // a new known token the index does not vouch for
  if (!vouchingChanged && completeFrom === undefined && newTokens.length > 0) {
    const [row] = await tx.query<{ unvouched: boolean }>(
      `SELECT EXISTS (
         SELECT 1 FROM unnest($1::text[]) AS n(token)
         WHERE NOT EXISTS (SELECT 1 FROM cw20_tokens c
                           WHERE c.token = n.token AND c.created_height >= $2::bigint AND NOT c.unreadable)
       ) AS unvouched`,
      [newTokens, from ?? null],
    );
    vouchingChanged = row!.unvouched;
  }
  if (vouchingChanged || completeFrom !== undefined) {
    await tx.query(
      `UPDATE cw20_state SET version = version + 1,
         complete_from = CASE WHEN $1::bigint IS NULL THEN complete_from ELSE least(coalesce(complete_from, $1::bigint), $1::bigint) END`,
      [completeFrom ?? null],
    );
  }
  return {
    holders: [...new Set(moved.map((m) => m.holder))],
    tokens: [...new Set(moved.map((m) => m.token))],
    vouchingChanged: vouchingChanged || completeFrom !== undefined,
  };
}
