// GET /api/trades/recent (SPEC 2.2, 4.7): newest first, optionally of one token, with the
// token's name and symbol joined.
import { z } from 'zod';
import type { Database } from '../../../db/types.ts';
import { sendJsonText } from '../../http/respond.ts';
import { ANY, tokenTag, type ResponseCache } from '../../http/response-cache.ts';
import { bech32Address, parseOrThrow, queryInt } from '../../http/validate.ts';
import type { Handler } from '../handler.ts';

const query = z.object({
  token_address: bech32Address.optional(),
  limit: queryInt(1, 100).default(50),
});

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
}

const COLUMNS = `tr.time, tr.block_height, tr.tx_hash, tr.source, tr.action, tr.direction, tr.token_address,
  tr.price_unative::text AS price_unative, tr.volume_unative::text AS volume_unative, tr.volume_token::text AS volume_token,
  tr.fee_unative::text AS fee_unative, tr.trader, tk.name AS token_name, tk.symbol AS token_symbol`;

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
});

export function recentTrades(db: Database, cache: ResponseCache): Handler {
  return async (req, res) => {
    const { token_address: token, limit } = parseOrThrow(query, req.query);
    const body = await cache.remember(`trades:${token ?? '*'}:${limit}`, [token ? tokenTag(token) : ANY], 5000, async () => {
      // Many trades share one block time: the chain's order (seq) breaks the tie.
      const rows = token
        ? await db.query<TradeRow>(
            `SELECT ${COLUMNS} FROM trades tr LEFT JOIN tokens tk ON tk.address = tr.token_address
             WHERE tr.token_address = $1 ORDER BY tr.time DESC, tr.seq DESC LIMIT $2`,
            [token, limit],
          )
        : await db.query<TradeRow>(
            `SELECT ${COLUMNS} FROM trades tr LEFT JOIN tokens tk ON tk.address = tr.token_address
             ORDER BY tr.time DESC, tr.seq DESC LIMIT $1`,
            [limit],
          );
      return JSON.stringify({ trades: rows.map(tradeJson) });
    });
    sendJsonText(res, 200, body);
  };
}
