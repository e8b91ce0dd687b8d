// GET /api/wallet/transactions?address=&limit=&page= (docs/launchpad-api.md "Wallet"): the
// address's transactions from the chain index, newest first. A tx is the address's when it
// sent it (message.sender) or received a transfer in it (transfer.recipient); a tx with both
// is listed once. Each list is a backward scan of tx_attribute_refs' primary key
// (attribute, height, tx_index) from the pair's number (sql/0017_attribute_values.sql),
// merged; only the page's txs are read from txs, at their positions (src/db/chain-txs.ts).
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
  time: Date;
  code: number;
  tx_bytes: Uint8Array;
}

/** The newest `n` (height, tx_index) of the address's txs, both keys merged without repeats. */
const mine = (address: string, n: number | string) => sql`
  (SELECT height, tx_index FROM tx_attribute_refs
   WHERE attribute = (SELECT id FROM attribute_values WHERE key = ${SENDER} AND value = ${address})
   ORDER BY height DESC, tx_index DESC LIMIT ${n})
  UNION
  (SELECT height, tx_index FROM tx_attribute_refs
   WHERE attribute = (SELECT id FROM attribute_values WHERE key = ${RECIPIENT} AND value = ${address})
   ORDER BY height DESC, tx_index DESC LIMIT ${n})`;

/** A page of the address's history, newest first, and whether another follows (also timed by bench:storage). */
export async function historyPage(db: Database, address: string, offset: number, limit: number) {
  // one more than the page, to know whether another follows
  const rows = await db.query<HistoryRow>(
    sql`SELECT upper(encode(t.hash, 'hex')) AS hash, t.height, t.time, t.code, t.tx_bytes
     FROM ${txsAt(sql`SELECT height, tx_index FROM (${mine(address, String(offset + limit + 1))}) mine
           ORDER BY height DESC, tx_index DESC LIMIT ${limit + 1} OFFSET ${String(offset)}`)}
     ORDER BY t.height DESC, t.tx_index DESC`,
  );
  const hasMore = rows.length > limit;
  return { rows: hasMore ? rows.slice(0, limit) : rows, hasMore };
}

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
  z.object({
    address: walletAddress(prefix),
    limit: queryInt(1, 100).default(20),
    page: queryInt(1, MAX_PAGE).default(1),
  });

export function walletTransactions(db: Database, { accountPrefix }: WalletOptions): Handler {
  const query = walletTransactionsQuery(accountPrefix);
  return async (req, res) => {
    const { address, limit, page } = parseOrThrow(query, req.query);
    const [history, total] = await Promise.all([
      historyPage(db, address, (page - 1) * limit, limit),
      countHistory(db, address),
    ]);
    sendJson(res, 200, {
      address,
      page,
      limit,
      total,
      has_more: history.hasMore,
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
          page: z.number().int(),
          limit: z.number().int(),
          total: z.number().int().nullable(),
          has_more: z.boolean(),
          transactions: z.array(
            z.object({ tx_hash: z.string(), height: z.number().int(), code: z.number().int() }).loose(),
          ),
        }),
      },
    },
    ...walletRoute((wallet, ctx) => walletTransactions(ctx.db, wallet.options)),
  },
];
