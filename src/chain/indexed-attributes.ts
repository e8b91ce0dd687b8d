// Which event attributes the chain index keeps for search (`events=` on the Chain API's
// tx search, a wallet's history): the indexer stores these pairs per transaction, and
// a search can only filter on these keys.
import type { ChainEvent } from './stored-events.ts';

/**
 * By event type: message.sender, message.action and transfer.recipient. A tx's own
 * sender is message.sender, so transfer.sender is not indexed (it would add two rows per
 * tx for fee payments alone).
 */
const INDEXED_KEYS: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  ['message', new Set(['sender', 'action'])],
  ['transfer', new Set(['recipient'])],
]);

/** INDEXED_KEYS as each key's `type.key` name, by type and key, made once. */
const INDEXED_NAMES: ReadonlyMap<string, ReadonlyMap<string, string>> = new Map(
  [...INDEXED_KEYS].map(([type, keys]) => [type, new Map([...keys].map((key) => [key, `${type}.${key}`]))]),
);

/** Every indexed attribute's `type.key` name (what a search may filter on, besides tx.height). */
export const INDEXED_ATTRIBUTE_NAMES: readonly string[] = [...INDEXED_NAMES.values()].flatMap((names) => [
  ...names.values(),
]);

/** Pairs a tx holds before they are looked up in a set rather than one by one. */
const SCANNED_PAIRS = 16;

/**
 * The distinct [type.key, value] pairs of a tx's events that the attribute index keeps, in
 * order of first appearance. A tx holds a few (its sender, its action, a recipient or two):
 * they are compared one by one, and a set is made only for a tx of many (a multi-send).
 */
export function indexedAttributes(events: readonly ChainEvent[]): [string, string][] {
  const pairs: [string, string][] = [];
  let seen: Set<string> | undefined;
  for (const e of events) {
    const names = INDEXED_NAMES.get(e.type);
    if (!names) continue;
    for (const a of e.attributes) {
      const name = names.get(a.key);
      if (name === undefined) continue;
      if (seen) {
        const pair = `${name}\0${a.value}`;
        if (seen.has(pair)) continue;
        seen.add(pair);
      } else if (pairs.some(([n, v]) => n === name && v === a.value)) continue;
      else if (pairs.length === SCANNED_PAIRS) {
        seen = new Set(pairs.map(([n, v]) => `${n}\0${v}`));
        seen.add(`${name}\0${a.value}`);
      }
      pairs.push([name, a.value]);
    }
  }
  return pairs;
}
