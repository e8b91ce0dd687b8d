// GET /api/wallet/transactions?address=&limit=&page=|cursor= (docs/launchpad-api.md "Wallet"):
// the address's transactions from the chain index, newest first, by page or after a cursor.
// A tx is the address's when it sent it (message.sender) or received a transfer in it
// (transfer.recipient); a tx with both is listed once. Each list is a backward scan of
// tx_attribute_refs' primary key (attribute, height, tx_index) from the pair's number
// (sql/0017_attribute_values.sql), merged; only the page's txs are read from txs, at their
// positions (src/db/chain-txs.ts).
import { z } from 'zod';
import { tryDecodeTxParts } from '../../../chain/tx-decode.ts';
import { txsAt } from '../../../db/chain-txs.ts';
import { sql } from '../../../db/sql.ts';
import type { Database } from '../../../db/types.ts';
import { sendJson } from '../../http/respond.ts';
import type { Handler } from '../../http/routes.ts';
import { parseOrThrow, queryInt } from '../../http/validate.ts';
import { type LaunchpadRoute, walletRoute } from '../context.ts';
import { DESCRIBED_PREFIX, type WalletOptions, walletAddress } from './options.ts';

/** The attribute keys that make a tx an address's (src/chain/indexed-attributes.ts keeps both). */
const SENDER = 'message.sender';
const RECIPIENT = 'transfer.recipient';

/** `total` is counted up to this many txs; past it, it is null (paging goes on with `has_more`). */
export const TOTAL_CAP = 10_000;
/** Pages past this are refused: (page − 1) × limit must stay an exact integer everywhere. */
const MAX_PAGE = 1_000_000_000;

interface HistoryRow {
  hash: string;
  height: number | string;
  tx_index: number;
  time: Date;
  code: number;
  tx_bytes: Uint8Array;
}

/** A tx's position in the chain: where a page that follows it starts (`next_cursor`). */
export interface Position {
  height: number;
  txIndex: number;
}

/**
 * The newest `n` (height, tx_index) of the address's txs (those before `before` when given),
 * both keys merged without repeats.
 */
const mine = (address: string, n: number | string, before?: Position) => {
  // the plain bound on height too: TimescaleDB pushes it into compressed chunks (skipping the
  // batches newer than the cursor), which it does not do with a row comparison
  const older = before
    ? sql`AND height <= ${before.height} AND (height, tx_index) < (${before.height}, ${before.txIndex})`
    : sql``;
  return sql`
  (SELECT height, tx_index FROM tx_attribute_refs
   WHERE attribute = (SELECT id FROM attribute_values WHERE key = ${SENDER} AND value = ${address}) ${older}
   ORDER BY height DESC, tx_index DESC LIMIT ${n})
  UNION
  (SELECT height, tx_index FROM tx_attribute_refs
   WHERE attribute = (SELECT id FROM attribute_values WHERE key = ${RECIPIENT} AND value = ${address}) ${older}
   ORDER BY height DESC, tx_index DESC LIMIT ${n})`;
};

/**
 * A page of the address's history, newest first, `offset` txs in (after `before` when given),
 * and where the next starts (undefined: none follows). Also timed by bench:storage.
 */
export async function historyPage(db: Database, address: string, offset: number, limit: number, before?: Position) {
  // one more than the page, to know whether another follows
  const rows = await db.query<HistoryRow>(
    sql`SELECT upper(encode(t.hash, 'hex')) AS hash, t.height, t.tx_index, t.time, t.code, t.tx_bytes
     FROM ${txsAt(sql`SELECT height, tx_index FROM (${mine(address, String(offset + limit + 1), before)}) mine
           ORDER BY height DESC, tx_index DESC LIMIT ${limit + 1} OFFSET ${String(offset)}`)}
     ORDER BY t.height DESC, t.tx_index DESC`,
  );
  const hasMore = rows.length > limit;
  const page = hasMore ? rows.slice(0, limit) : rows;
  const last = page.at(-1);
  return {
    rows: page,
    hasMore,
    next: hasMore && last ? { height: Number(last.height), txIndex: Number(last.tx_index) } : undefined,
  };
}

/** `next_cursor`: the position of a page's last tx, `<height>-<tx_index>`. */
const encodeCursor = (p: Position) => `${p.height}-${p.txIndex}`;

/** A cursor as walletTransactionsQuery reads it: a position in the chain index's bounds. */
const cursor = z
  .string()
  .regex(/^\d{1,10}-\d{1,5}$/, { message: "must be a page's next_cursor (<height>-<tx index>)" })
  .transform((text): Position => {
    const [height, txIndex] = text.split('-').map(Number) as [number, number];
    return { height, txIndex };
  })
  .refine((p) => p.height >= 1 && p.height <= 2_147_483_647 && p.txIndex <= 65_535, {
    message: "must be a page's next_cursor (a height from 1 to 2147483647, a tx index to 65535)",
  });

/** How many txs the address has, or null past TOTAL_CAP (each list is read at most that far). */
async function countHistory(db: Database, address: string): Promise<number | null> {
  const [row] = await db.query<{ n: number }>(
    sql`SELECT count(*)::int AS n FROM (${mine(address, TOTAL_CAP + 1)}) mine`,
  );
  const n = Number(row?.n ?? 0);
  return n > TOTAL_CAP ? null : n;
}

/** What a wallet shows of a tx: its messages' type URLs, fee and memo, decoded from its bytes (empty when they do not decode). */
function historyJson(r: HistoryRow) {
  const tx = tryDecodeTxParts(r.tx_bytes);
  return {
    tx_hash: r.hash,
    height: Number(r.height),
    time: r.time.toISOString(),
    code: r.code,
    messages: tx ? tx.body.messages.map((m) => m.typeUrl) : [],
    fee: tx ? (tx.authInfo.fee?.amount ?? []).map((c) => ({ denom: c.denom, amount: c.amount })) : [],
    memo: tx ? tx.body.memo : '',
  };
}

/** The query walletTransactions() parses, for an account prefix. */
export const walletTransactionsQuery = (prefix: string) =>
  z
    .object({
      address: walletAddress(prefix),
      limit: queryInt(1, 100).default(20),
      page: queryInt(1, MAX_PAGE)
        .optional()
        .meta({ default: 1 })
        .describe('1-based page (default 1); not with `cursor`'),
      cursor: cursor
        .optional()
        .describe(
          "the previous page's `next_cursor` (`<height>-<tx index>`; height to 2147483647, tx index to 65535): the txs after it, however many came since; not with `page`",
        ),
    })
    .refine((q) => q.page === undefined || q.cursor === undefined, {
      message: 'give page or cursor, not both',
      path: ['cursor'],
    });

export function walletTransactions(db: Database, { accountPrefix }: WalletOptions): Handler {
  const query = walletTransactionsQuery(accountPrefix);
  return async (req, res) => {
    const { address, limit, page, cursor: after } = parseOrThrow(query, req.query);
    const pageNumber = after ? null : (page ?? 1);
    const [history, total] = await Promise.all([
      historyPage(db, address, pageNumber ? (pageNumber - 1) * limit : 0, limit, after),
      countHistory(db, address),
    ]);
    sendJson(res, 200, {
      address,
      page: pageNumber,
      limit,
      total,
      has_more: history.hasMore,
      next_cursor: history.next ? encodeCursor(history.next) : null,
      transactions: history.rows.map(historyJson),
    });
  };
}

/** This file's routes (src/api/launchpad/route-table.ts serves and describes them). */
export const walletTransactionRoutes: LaunchpadRoute[] = [
  {
    method: 'get',
    path: '/api/wallet/transactions',
    tag: 'Wallet',
    summary: "An address's transactions, most recent first",
    description:
      'From the index: transactions the address signed or received coins in, each once. `total` is exact up to 10,000 and `null` beyond.',
    query: walletTransactionsQuery(DESCRIBED_PREFIX),
    responses: {
      200: {
        description: 'One page of the history',
        body: z.strictObject({
          address: z.string(),
          page: z.number().int().nullable().describe('null for a page asked by cursor'),
          limit: z.number().int(),
          total: z.number().int().nullable(),
          has_more: z.boolean(),
          next_cursor: z.string().nullable().describe('where the next page starts (`cursor=`); null on the last'),
          transactions: z.array(
            z.object({ tx_hash: z.string(), height: z.number().int(), code: z.number().int() }).loose(),
          ),
        }),
      },
    },
    ...walletRoute((wallet, ctx) => walletTransactions(ctx.db, wallet.options)),
  },
];
