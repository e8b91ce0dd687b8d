// The attribute index's pairs (sql/0017_attribute_values.sql): each (type.key, value) a tx
// is indexed by is numbered once in attribute_values, and a tx's rows in tx_attribute_refs
// hold those numbers. The indexer numbers them (attributeIds); a search finds them
// (knownAttributeIds).
import { storableText } from './nul.ts';
import { sql } from './sql.ts';
import type { Queryable } from './types.ts';

/** Each pair's number: `get(key)?.get(value)`, both as stored (U+FFFD for U+0000; see idOf). */
export type AttributeIds = Map<string, Map<string, number | string>>;

/** The number of the pair (key, value) as given (not yet stored): undefined when it has none. */
export const idOf = (ids: AttributeIds, key: string, value: string): number | string | undefined =>
  ids.get(storableText(key))?.get(storableText(value));

interface IdRow {
  id: number | string;
  key: string;
  value: string;
}

function add(ids: AttributeIds, rows: readonly IdRow[]): void {
  for (const r of rows) {
    const values = ids.get(r.key) ?? new Map<string, number | string>();
    if (values.size === 0) ids.set(r.key, values);
    values.set(r.value, r.id);
  }
}

/** The distinct pairs, as stored, in two arrays (keys, values). */
function distinct(pairs: Iterable<readonly [string, string]>): { keys: string[]; values: string[] } {
  const keys: string[] = [];
  const values: string[] = [];
  const seen = new Map<string, Set<string>>(); // the values seen of each key
  for (const [k, v] of pairs) {
    const key = storableText(k);
    const value = storableText(v);
    let ofKey = seen.get(key);
    if (!ofKey) {
      ofKey = new Set();
      seen.set(key, ofKey);
    } else if (ofKey.has(value)) continue;
    ofKey.add(value);
    keys.push(key);
    values.push(value);
  }
  return { keys, values };
}

/** The numbers the pairs (stored text) have; a pair not numbered yet is absent. */
const numbered = (db: Queryable, keys: readonly string[], values: readonly string[]) =>
  db.query<IdRow>(
    sql`SELECT a.id, a.key, a.value FROM attribute_values a
     JOIN unnest(${keys}::text[], ${values}::text[]) AS p(k, v) ON a.key = p.k AND a.value = p.v`,
  );

/** The numbers of those of the pairs any tx has (reads only). */
export async function knownAttributeIds(
  db: Queryable,
  pairs: Iterable<readonly [string, string]>,
): Promise<AttributeIds> {
  const ids: AttributeIds = new Map();
  const { keys, values } = distinct(pairs);
  if (keys.length > 0) add(ids, await numbered(db, keys, values));
  return ids;
}

/**
 * The numbers of the pairs, numbering those new to the index. One statement inserts the new
 * ones (in key order, so two writers lock alike) and reads the others. A pair another writer
 * numbered while this one waited on it is in neither (the statement's snapshot predates it),
 * so whatever is missing is read once more by a statement of its own, which sees it.
 */
export async function attributeIds(tx: Queryable, pairs: Iterable<readonly [string, string]>): Promise<AttributeIds> {
  const ids: AttributeIds = new Map();
  const { keys, values } = distinct(pairs);
  if (keys.length === 0) return ids;
  add(
    ids,
    await tx.query<IdRow>(
      sql`WITH pairs AS (SELECT k, v FROM unnest(${keys}::text[], ${values}::text[]) AS p(k, v)),
       numbered AS (
         INSERT INTO attribute_values (key, value) SELECT k, v FROM pairs ORDER BY k, v
         ON CONFLICT DO NOTHING RETURNING id, key, value)
       SELECT id, key, value FROM numbered
       UNION ALL
       SELECT a.id, a.key, a.value FROM attribute_values a JOIN pairs ON a.key = pairs.k AND a.value = pairs.v`,
    ),
  );
  const missing = keys.flatMap((k, i) => (ids.get(k)?.has(values[i]!) ? [] : [i]));
  if (missing.length > 0) {
    add(
      ids,
      await numbered(
        tx,
        missing.map((i) => keys[i]!),
        missing.map((i) => values[i]!),
      ),
    );
    if (missing.some((i) => !ids.get(keys[i]!)?.has(values[i]!)))
      throw new Error('attribute_values: a pair was neither numbered nor found');
  }
  return ids;
}
