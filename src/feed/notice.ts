// The one NOTIFY channel between the indexer and the API processes, and what its
// payloads mean: new outbox rows up to an id, one token's metadata changed, some addresses'
// CW20 balances changed (or the tokens the index vouches for), or indexed data changed
// without feed events (a backfill).
import type { Queryable } from '../db/types.ts';

export const FEED_CHANNEL = 'feed_events';

export type FeedNotice =
  | { kind: 'events'; highId: number }
  | { kind: 'token'; address: string }
  /** The holders whose balances changed; 'all' when every holder's answer may have. */
  | { kind: 'balances'; holders: readonly string[] | 'all' }
  | { kind: 'changed' };

/** PostgreSQL refuses a NOTIFY payload of 8000 bytes or more: a longer holder list is sent as 'all'. */
const MAX_PAYLOAD = 7900;
const BALANCES = 'balances:';

export function encodeNotice(notice: FeedNotice): string {
  switch (notice.kind) {
    case 'events':
      return String(notice.highId);
    case 'token':
      return `token:${notice.address}`;
    case 'balances': {
      const list = notice.holders === 'all' ? '*' : notice.holders.join(',');
      return BALANCES + (BALANCES.length + Buffer.byteLength(list) > MAX_PAYLOAD ? '*' : list);
    }
    case 'changed':
      return 'changed';
  }
}

/** Anything unrecognised reads as "changed": readers then drop what they cached. */
export function decodeNotice(payload: string): FeedNotice {
  if (/^\d+$/.test(payload)) return { kind: 'events', highId: Number(payload) };
  if (payload.startsWith('token:')) return { kind: 'token', address: payload.slice(6) };
  if (payload.startsWith(BALANCES)) {
    const list = payload.slice(BALANCES.length);
    return { kind: 'balances', holders: list === '*' ? 'all' : list.split(',').filter(Boolean) };
  }
  return { kind: 'changed' };
}

/** Sends a notice on the feed channel; inside a transaction it is delivered at commit. */
export async function notify(db: Queryable, notice: FeedNotice): Promise<void> {
  await db.query('SELECT pg_notify($1, $2)', [FEED_CHANNEL, encodeNotice(notice)]);
}
