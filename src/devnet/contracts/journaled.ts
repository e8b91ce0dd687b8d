// Journaled writes for contract state objects and maps, so a failed transaction undoes them.
import type { Journal } from '../state/journal.ts';

export function assign<T extends object>(journal: Journal, target: T, patch: Partial<T>): void {
  const before: Partial<T> = {};
  for (const key of Object.keys(patch) as (keyof T)[]) before[key] = target[key];
  Object.assign(target, patch);
  journal.record(() => Object.assign(target, before));
}

export function mapSet<K, V>(journal: Journal, map: Map<K, V>, key: K, value: V): void {
  const had = map.has(key);
  const before = map.get(key);
  map.set(key, value);
  journal.record(() => (had ? map.set(key, before as V) : map.delete(key)));
}
