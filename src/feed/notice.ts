// What the indexer announces, at commit, on the one NOTIFY channel between it and the API
// processes: new outbox rows up to an id (the feed's trades, launches and graduations), and
// the changes to the index that no feed row tells, as typed domain changes. Readers never see
// the payload text: `decodeNotice` gives them the same types back.
import type { Queryable } from '../db/types.ts';

export const FEED_CHANNEL = 'feed_events';

/** A change to what the index says, as an API's caches need to hear of it. */
export type DomainChange =
  /** Trades, launches or graduations of these tokens (read from the outbox rows the notice announced). */
  | { kind: 'trades'; tokens: readonly string[] }
  /** These tokens' metadata: name, symbol, decimals, image, description, graduation threshold. */
  | { kind: 'metadata'; tokens: readonly string[] }
  /** These holders' CW20 balances of these tokens moved. */
  | { kind: 'balances'; holders: readonly string[]; tokens: readonly string[] }
  /**
   * The set of tokens the index vouches for moved: every holder's holdings, and every token's
   * holders; with `tokens`, only those became known (and their balances, or others', moved).
   */
  | { kind: 'vouched'; tokens?: readonly string[] }
  /** The launchpad's oracle set the native coin's USD price: answers in USD. */
  | { kind: 'prices' }
  /** Anything may have changed: a backfill wrote without feed rows, or a reader missed notices. */
  | { kind: 'anything' };

/** What the indexer sends: the outbox's new high id, or a change no feed row tells. */
export type Notice = { kind: 'events'; highId: number } | Exclude<DomainChange, { kind: 'trades' }>;

/** PostgreSQL refuses a NOTIFY payload of 8000 bytes or more: a longer list is sent as its widest change. */
const MAX_PAYLOAD = 7900;

function listed(prefix: string, list: readonly string[], widest: string): string {
  const text = prefix + list.join(',');
  return Buffer.byteLength(text) > MAX_PAYLOAD ? widest : text;
}

export function encodeNotice(notice: Notice): string {
  switch (notice.kind) {
    case 'events':
      return String(notice.highId);
    case 'metadata':
      return listed('metadata:', notice.tokens, 'anything');
    case 'balances':
      return listed(`balances:${notice.tokens.join(',')};`, notice.holders, 'vouched');
    case 'vouched':
      return notice.tokens ? listed('vouched:', notice.tokens, 'vouched') : 'vouched';
    case 'prices':
      return 'prices';
    case 'anything':
      return 'anything';
  }
}

const list = (text: string) => text.split(',').filter(Boolean);

/** Anything unrecognised reads as "anything": readers then drop what they cached. */
export function decodeNotice(payload: string): Notice {
  if (/^\d+$/.test(payload)) return { kind: 'events', highId: Number(payload) };
  if (payload.startsWith('metadata:')) return { kind: 'metadata', tokens: list(payload.slice(9)) };
  if (payload.startsWith('balances:')) {
    const [tokens = '', holders = ''] = payload.slice(9).split(';');
    return { kind: 'balances', holders: list(holders), tokens: list(tokens) };
  }
  if (payload === 'vouched') return { kind: 'vouched' };
  if (payload.startsWith('vouched:')) return { kind: 'vouched', tokens: list(payload.slice(8)) };
  if (payload === 'prices') return { kind: 'prices' };
  return { kind: 'anything' };
}

/** Sends a notice on the feed channel; inside a transaction it is delivered at commit. */
export async function notify(db: Queryable, notice: Notice): Promise<void> {
  await db.query('SELECT pg_notify($1, $2)', [FEED_CHANNEL, encodeNotice(notice)]);
}
