// GET /api/tokens with parameters (docs/launchpad-api.md "Token list"): the whole list's
// snapshot, filtered (graduated, q), sorted by one figure, and paged by a cursor that names
// the last token of the page by its sort value and address, so a page follows the one
// before it even when the snapshot was recomputed in between.
import { z } from 'zod';
import { badRequest } from '../http/errors.ts';
import { queryInt } from '../http/validate.ts';

export const TOKEN_SORTS = [
  'first_seen_at',
  'volume_24h',
  'market_cap',
  'price_change_24h',
  'trade_count_24h',
] as const;
export type TokenSort = (typeof TOKEN_SORTS)[number];

export const tokensQuery = z.object({
  sort: z
    .enum(TOKEN_SORTS)
    .optional()
    .describe('the figure to order by (default `first_seen_at`); tokens without it (no market cap yet…) come last'),
  order: z.enum(['desc', 'asc']).optional().describe('`desc` (default): largest or newest first'),
  graduated: z
    .enum(['true', 'false'])
    .optional()
    .describe('only graduated tokens, or only curve and AMM tokens not graduated'),
  q: z
    .string()
    .min(1)
    .max(128)
    .optional()
    .describe("tokens whose name, symbol or address starts with this text (letters' case ignored)"),
  limit: queryInt(1, 1000).optional().describe('tokens per page (1 to 1000); with it the answer has `next_cursor`'),
  cursor: z.string().max(512).optional().describe("the previous page's `next_cursor`"),
});
export type TokensQuery = z.infer<typeof tokensQuery>;

/** What the list sorts and filters on, for each token. */
export interface Listed {
  address: string;
  name: string | null;
  symbol: string | null;
  graduated: boolean;
  first_seen_at: string;
  volume_24h: string;
  market_cap_unative: string | null;
  price_change: { '24h': string | null };
  trade_count_24h: number;
}

/** A sort value as a comparable integer (percent in hundredths; a time in ms); null: the token has none. */
function sortValue(t: Listed, sort: TokenSort): bigint | null {
  switch (sort) {
    case 'first_seen_at':
      return BigInt(Date.parse(t.first_seen_at));
    case 'volume_24h':
      return BigInt(t.volume_24h);
    case 'market_cap':
      return t.market_cap_unative === null ? null : BigInt(t.market_cap_unative);
    case 'price_change_24h': {
      const p = t.price_change['24h'];
      return p === null ? null : BigInt(p.replace('.', ''));
    }
    case 'trade_count_24h':
      return BigInt(t.trade_count_24h);
  }
}

type Key = [value: bigint | null, address: string];

/** Order of two keys: by value (nulls last in either order), then by address ascending. */
function compare(a: Key, b: Key, desc: boolean): number {
  if (a[0] !== b[0]) {
    if (a[0] === null) return 1;
    if (b[0] === null) return -1;
    return (a[0] < b[0] ? -1 : 1) * (desc ? -1 : 1);
  }
  return a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0;
}

const encodeCursor = ([value, address]: Key) =>
  Buffer.from(JSON.stringify([value === null ? null : value.toString(), address])).toString('base64url');

function decodeCursor(cursor: string): Key {
  try {
    const [value, address] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    if ((value === null || (typeof value === 'string' && /^-?\d{1,100}$/.test(value))) && typeof address === 'string')
      return [value === null ? null : BigInt(value), address];
  } catch {}
  throw badRequest('Invalid query parameters', [{ parameter: 'cursor', message: "must be a page's next_cursor" }]);
}

/** True when the query asks for anything but the specification's whole list. */
export const isPlainList = (q: TokensQuery) => Object.values(q).every((v) => v === undefined);

/** The page of `tokens` the query asks for, and the cursor of the next page (null: none follows). */
export function tokenPage<T extends Listed>(
  tokens: readonly T[],
  q: TokensQuery,
): { tokens: T[]; next_cursor: string | null } {
  const sort = q.sort ?? 'first_seen_at';
  const desc = (q.order ?? 'desc') === 'desc';
  const prefix = q.q?.toLowerCase();
  const graduated = q.graduated === undefined ? undefined : q.graduated === 'true';
  const after = q.cursor === undefined ? undefined : decodeCursor(q.cursor);
  const keyed: { t: T; key: Key }[] = [];
  for (const t of tokens) {
    if (graduated !== undefined && t.graduated !== graduated) continue;
    if (
      prefix !== undefined &&
      !(
        t.address.toLowerCase().startsWith(prefix) ||
        t.name?.toLowerCase().startsWith(prefix) ||
        t.symbol?.toLowerCase().startsWith(prefix)
      )
    )
      continue;
    const key: Key = [sortValue(t, sort), t.address];
    if (after && compare(key, after, desc) <= 0) continue;
    keyed.push({ t, key });
  }
  keyed.sort((a, b) => compare(a.key, b.key, desc));
  const limit = q.limit ?? keyed.length;
  const page = keyed.slice(0, limit);
  const last = page.at(-1);
  return {
    tokens: page.map((k) => k.t),
    next_cursor: keyed.length > limit && last ? encodeCursor(last.key) : null,
  };
}
