// GET /api/sse/feed (docs/launchpad-api.md, "Live feed"): the live feed of trades, launches and graduations as
// Server-Sent Events, resumable with Last-Event-ID; optional server-side filters.
import { z } from 'zod';
import { FEED_EVENT_NAMES } from '../../../feed/events.ts';
import { CORS_HEADERS } from '../../http/respond.ts';
import { bech32Address, parseOrThrow } from '../../http/validate.ts';
import type { FeedHub } from '../feed-hub.ts';
import type { Handler } from '../handler.ts';

const list = (v: string) =>
  v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

const query = z.object({
  token_address: z
    .string()
    .transform(list)
    .pipe(z.array(bech32Address).min(1, 'must name at least one token address'))
    .optional(),
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
    .optional(),
  last_event_id: z.string().regex(/^\d+$/, 'must be an event id').transform(Number).optional(),
});

export function feed(hub: FeedHub, { retryMs = 3000 } = {}): Handler {
  return async (req, res) => {
    const q = parseOrThrow(query, req.query);
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
    res.write(`retry: ${retryMs}\n: connected\n\n`);
    await hub.subscribe(res, {
      lastEventId,
      tokens: q.token_address ? new Set(q.token_address) : undefined,
      events: q.events ? new Set(q.events) : undefined,
    });
  };
}
