// GET /api/sse/feed (docs/launchpad-api.md, "Live feed"): the live feed of trades, launches and graduations as
// Server-Sent Events, resumable with Last-Event-ID; optional server-side filters.
import { z } from 'zod';
import { FEED_EVENT_NAMES } from '../../../feed/events.ts';
import { CORS_HEADERS } from '../../http/respond.ts';
import type { Handler } from '../../http/routes.ts';
import { bech32Address, parseOrThrow } from '../../http/validate.ts';
import type { LaunchpadRoute } from '../context.ts';
import type { FeedHub } from '../feed-hub.ts';

const list = (v: string) =>
  v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/** GET /api/sse/feed's query. */
export const feedQuery = z.object({
  token_address: z
    .string()
    .transform(list)
    .pipe(z.array(bech32Address).min(1, 'must name at least one token address'))
    .optional()
    .describe("comma-separated token addresses: only these tokens' events"),
  events: z
    .string()
    .transform(list)
    .pipe(
      z
        .array(
          z.enum(FEED_EVENT_NAMES, { message: `must be a comma-separated list of ${FEED_EVENT_NAMES.join(', ')}` }),
        )
        .min(1, 'must name at least one event'),
    )
    .optional()
    .describe(`comma-separated event names (${FEED_EVENT_NAMES.join(', ')}): only these events`),
  last_event_id: z
    .string()
    .regex(/^\d+$/, 'must be an event id')
    .transform(Number)
    .optional()
    .describe('resume after this event id (as the `Last-Event-ID` header; the header wins)'),
});

export function feed(hub: FeedHub, { retryMs = 3000 } = {}): Handler {
  return async (req, res) => {
    const q = parseOrThrow(feedQuery, req.query);
    const header = req.headers['last-event-id'];
    const lastEventId =
      typeof header === 'string' && /^\d+$/.test(header.trim()) ? Number(header.trim()) : q.last_event_id;
    res.writeHead(200, {
      ...CORS_HEADERS,
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    });
    // HEAD: the stream's headers only (a stream left open would hold the connection forever)
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    req.socket.setNoDelay(true);
    req.socket.setKeepAlive(true);
    // A new stream starts at the newest event: its id goes out first (an `id:` without data
    // sets the client's Last-Event-ID and is no event), so a client that reconnects before
    // any event reached it still gets everything from where it started. Read in the same
    // tick as subscribe() reads its start, nothing can come between.
    const start = lastEventId === undefined ? `id: ${hub.stats().lastEventId}\n` : '';
    res.write(`retry: ${retryMs}\n${start}: connected\n\n`);
    await hub.subscribe(res, {
      lastEventId,
      tokens: q.token_address ? new Set(q.token_address) : undefined,
      events: q.events ? new Set(q.events) : undefined,
    });
  };
}

const amount = z.string().regex(/^\d+$/);
const time = z.iso.datetime();

/** The `data:` of each event, by its `event:` name (src/feed/events.ts builds them). */
export const feedEventSchemas = {
  trade: z
    .strictObject({
      token_address: z.string(),
      action: z.enum(['buy', 'sell', 'swap', 'buy_and_graduate']),
      direction: z.enum(['native_to_token', 'token_to_native']),
      input_amount: amount.describe('what the trader sent (native base units for a buy, token base units for a sell)'),
      output_amount: amount.describe('what the trader received'),
      price_unative: amount.describe('native base units per 10^6 token base units'),
      trader: z.string(),
      tx_hash: z.string(),
      time,
      native_reserves: amount.describe("the token's reserves after the trade"),
    })
    .meta({ id: 'TradeEvent' }),
  token_launch: z
    .strictObject({
      token_address: z.string(),
      creator: z.string(),
      initial_reserves: amount.describe('native base units, from the creation fee'),
      time,
    })
    .meta({ id: 'TokenLaunchEvent' }),
  graduation: z
    .strictObject({
      token_address: z.string(),
      native_for_pool: amount.describe('native base units moved to the AMM pool'),
      tokens_for_pool: amount.describe('token base units moved to the pool'),
      creator: z.string(),
      time,
    })
    .meta({ id: 'GraduationEvent' }),
  gap: z
    .strictObject({
      missed: z.number().int().nullable().describe('events skipped (null: older than the outbox keeps)'),
      after_id: z.number().int(),
      resume_id: z.number().int(),
    })
    .meta({ id: 'GapEvent' }),
};

/** This file's routes (src/api/launchpad/route-table.ts serves and describes them). */
export const feedRoutes: LaunchpadRoute[] = [
  {
    method: 'get',
    path: '/api/sse/feed',
    tag: 'Live feed',
    summary: 'Trades, launches and graduations as Server-Sent Events',
    description:
      'Each event has an `id:` (increasing, the same in every API process), an `event:` name (`trade`, `token_launch`, `graduation`, or `gap` on a resume too far behind) and a JSON `data:` line. The stream opens with `retry: 3000`, `id:` of the newest event (unless resuming) and `: connected`; `: keepalive` follows every 15 s. Reconnect with `Last-Event-ID` to get every missed event once, in order. Counts once against the rate limit per connection.',
    query: feedQuery,
    headers: { 'Last-Event-ID': 'resume after this event id (browsers send it when they reconnect)' },
    responses: {
      200: {
        description: "The stream; each event's `data:` is one of these objects, by its `event:` name",
        contentType: 'text/event-stream',
        body: z.union(Object.values(feedEventSchemas)),
      },
    },
    handler: (ctx) => feed(ctx.hub),
  },
];
