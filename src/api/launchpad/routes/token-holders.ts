// GET /api/tokens/:address/holders and /api/tokens/:address/traders (docs/launchpad-api.md
// "Holders and traders"): a token's largest holders, from the index's CW20 balances, with their
// share of the supply; and its traders over a window, by volume.
import { z } from 'zod';
import { sql } from '../../../db/sql.ts';
import { isStoredToken, storedSupply, topHolders } from '../../../db/tokens.ts';
import { notFound } from '../../http/errors.ts';
import { reads } from '../../http/freshness.ts';
import { sendJsonBytes } from '../../http/respond.ts';
import type { Handler } from '../../http/routes.ts';
import { bech32Address, parseOrThrow, queryInt } from '../../http/validate.ts';
import type { LaunchpadContext, LaunchpadRoute } from '../context.ts';
import { notFoundResponse } from '../openapi.ts';
import { tokenParams } from './tokens.ts';

export const holdersQuery = z.object({
  limit: queryInt(1, 1000).default(100).describe('how many holders, largest first'),
});

/** balance ÷ supply to 6 decimals, truncated ("0.012345"); null while the supply is unknown or 0. */
function share(balance: string, supply: string | null): string | null {
  if (supply === null || BigInt(supply) === 0n) return null;
  const millionths = (BigInt(balance) * 1_000_000n) / BigInt(supply);
  return `${millionths / 1_000_000n}.${(millionths % 1_000_000n).toString().padStart(6, '0')}`;
}

function tokenHolders(ctx: LaunchpadContext): Handler {
  return async (req, res) => {
    const { address } = parseOrThrow(tokenParams, req.params, 'Invalid token address');
    const { limit } = parseOrThrow(holdersQuery, req.query);
    const { tags, ttlMs } = reads.tokenHolders(address);
    const body = await ctx.cache.remember(`holders:${address}:${limit}`, tags, ttlMs, async () => {
      const supply = await storedSupply(ctx.db, address);
      if (supply === undefined) return '';
      const rows = await topHolders(ctx.db, address, limit);
      return JSON.stringify({
        token: address,
        total_supply: supply,
        holders: rows.map((r) => ({ address: r.holder, balance: r.balance, share: share(r.balance, supply) })),
      });
    });
    if (body.length === 0) throw notFound('Token not found');
    await sendJsonBytes(req, res, body);
  };
}

const WINDOWS = { '5m': '5 minutes', '1h': '1 hour', '6h': '6 hours', '24h': '24 hours', '7d': '7 days' } as const;

export const tradersQuery = z.object({
  window: z
    .enum(Object.keys(WINDOWS) as [keyof typeof WINDOWS, ...(keyof typeof WINDOWS)[]])
    .default('24h')
    .describe('the trades of the last 5m, 1h, 6h, 24h (default) or 7d'),
  limit: queryInt(1, 1000).default(100).describe('how many traders, by volume'),
});

function tokenTraders(ctx: LaunchpadContext): Handler {
  return async (req, res) => {
    const { address } = parseOrThrow(tokenParams, req.params, 'Invalid token address');
    const { window, limit } = parseOrThrow(tradersQuery, req.query);
    const { tags, ttlMs } = reads.tokenTraders(address);
    const body = await ctx.cache.remember(`traders:${address}:${window}:${limit}`, tags, ttlMs, async () => {
      if (!(await isStoredToken(ctx.db, address))) return '';
      const rows = await ctx.db.query<{ trader: string; volume: string; buys: number; sells: number; trades: number }>(
        sql`SELECT trader, sum(volume_unative)::text AS volume,
                   count(*) FILTER (WHERE direction = 'native_to_token')::int AS buys,
                   count(*) FILTER (WHERE direction = 'token_to_native')::int AS sells,
                   count(*)::int AS trades
            FROM trades WHERE token_address = ${address} AND time > now() - ${WINDOWS[window]}::interval
            GROUP BY trader ORDER BY sum(volume_unative) DESC, trader LIMIT ${limit}`,
      );
      return JSON.stringify({
        token: address,
        window,
        traders: rows.map((r) => ({
          address: r.trader,
          volume_unative: r.volume,
          buys: Number(r.buys),
          sells: Number(r.sells),
          trades: Number(r.trades),
        })),
      });
    });
    if (body.length === 0) throw notFound('Token not found');
    await sendJsonBytes(req, res, body);
  };
}

const amount = (what: string) => z.string().regex(/^\d+$/).describe(what);

export const tokenHolderRoutes: LaunchpadRoute[] = [
  {
    method: 'get',
    path: '/api/tokens/:address/holders',
    tag: 'Launchpad',
    summary: "A token's largest holders, with their share of the supply",
    description:
      "From the index's CW20 balances (addresses with a positive balance), largest first, ties by address. Fresh with each commit that moves a balance.",
    params: tokenParams,
    query: holdersQuery,
    responses: {
      200: {
        description: 'The holders',
        body: z.strictObject({
          token: z.string(),
          total_supply: amount("the CW20's total_supply").nullable().describe('null until the index read it'),
          holders: z.array(
            z.strictObject({
              address: bech32Address,
              balance: amount('token base units'),
              share: z
                .string()
                .regex(/^\d+\.\d{6}$/)
                .nullable()
                .describe('balance ÷ total_supply, truncated to 6 decimals (null while the supply is unknown)'),
            }),
          ),
        }),
      },
      404: notFoundResponse('Not indexed (yet)'),
    },
    handler: tokenHolders,
  },
  {
    method: 'get',
    path: '/api/tokens/:address/traders',
    tag: 'Launchpad',
    summary: "A token's traders over a window, by volume",
    description:
      'Each address that traded the token in the window, largest native volume first (ties by address): its volume, buys (native in) and sells (token in). The window ends now; answers are kept 10 s at most.',
    params: tokenParams,
    query: tradersQuery,
    responses: {
      200: {
        description: 'The traders',
        body: z.strictObject({
          token: z.string(),
          window: z.enum(Object.keys(WINDOWS) as [string, ...string[]]),
          traders: z.array(
            z.strictObject({
              address: z.string(),
              volume_unative: amount('native base units traded in the window'),
              buys: z.number().int(),
              sells: z.number().int(),
              trades: z.number().int(),
            }),
          ),
        }),
      },
      404: notFoundResponse('Not indexed (yet)'),
    },
    handler: tokenTraders,
  },
];
