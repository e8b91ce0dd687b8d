// Which event attributes the chain index keeps for search (`events=` on the Chain API's
// tx search, a wallet's history): the indexer stores these pairs per transaction, and
// a search can only filter on these keys.
import type { ChainEvent } from './stored-events.ts';

/**
 * By event type: message.sender, message.action and transfer.recipient. A tx's own
 * sender is message.sender, so transfer.sender is not indexed (it would add two rows per
 * tx for fee payments alone).
 */
export const INDEXED_KEYS: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  ['message', new Set(['sender', 'action'])],
  ['transfer', new Set(['recipient'])],
]);

/** The distinct [type.key, value] pairs of a tx's events that the attribute index keeps. */
export function indexedAttributes(events: readonly ChainEvent[]): [string, string][] {
  const pairs: [string, string][] = [];
  const seen = new Set<string>();
  for (const e of events) {
    const keys = INDEXED_KEYS.get(e.type);
    if (!keys) continue;
    for (const a of e.attributes) {
      if (!keys.has(a.key)) continue;
      const key = `${e.type}.${a.key}`;
      const pair = `${key}\0${a.value}`;
      if (seen.has(pair)) continue;
      seen.add(pair);
      pairs.push([key, a.value]);
    }
  }
  return pairs;
}
