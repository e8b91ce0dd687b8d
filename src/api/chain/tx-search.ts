// Tx search (`GET /cosmos/tx/v1beta1/txs`, docs/chain-api.md "Transactions"):
// the SDK's `events=` conditions (v0.47) and CometBFT `query=` strings (v0.50), read into
// equality conditions on the attributes the index keeps (src/chain/indexed-attributes.ts)
// and on `tx.height`, answered by SQL on tx_attribute_refs' primary key (attribute, height,
// tx_index) with keyset pagination.
import { INDEXED_ATTRIBUTE_NAMES } from '../../chain/indexed-attributes.ts';
import { idOf, knownAttributeIds } from '../../db/attribute-values.ts';
import { txsAt } from '../../db/chain-txs.ts';
import { type Sql, sql } from '../../db/sql.ts';
import type { Queryable } from '../../db/types.ts';
import { invalidArgument } from './gateway.ts';
import { TX_COLUMNS, type TxRow } from './read-through.ts';

export const TX_HEIGHT = 'tx.height';
/** Attribute conditions one search may combine (each is a join of tx_attributes). */
export const MAX_ATTRIBUTE_CONDITIONS = 8;

/** Every key a search may filter on, as the error for another key lists them. */
export const SEARCHABLE_KEYS = [...INDEXED_ATTRIBUTE_NAMES, TX_HEIGHT];

export interface Condition {
  key: string;
  value: string;
}

const EVENT_FORMAT = '{eventType}.{eventAttribute}={value}';
/** The SDK v0.47 check of one `events=` value. */
const EVENT = /^([a-zA-Z_]+\.[a-zA-Z_]+)=(\S+)$/;

/** A value as written in a condition: `'quoted'` (CometBFT) or bare (SDK v0.45 style). */
const unquote = (v: string) => (v.length >= 2 && v.startsWith("'") && v.endsWith("'") ? v.slice(1, -1) : v);

function checked(key: string, value: string, written: string): Condition {
  if (!SEARCHABLE_KEYS.includes(key))
    throw invalidArgument(
      `event ${written} cannot be searched: ${key} is not indexed; searchable keys: ${SEARCHABLE_KEYS.join(', ')}`,
    );
  // no indexed attribute (an address, a message type) holds a NUL: a value with one is a mistake
  if (value.includes('\0'))
    throw invalidArgument(`event ${JSON.stringify(written)}: a value cannot contain a NUL character`);
  if (key === TX_HEIGHT) {
    if (!/^\d{1,18}$/.test(value))
      throw invalidArgument(`event ${written}: ${TX_HEIGHT} must be a non-negative integer`);
    // one height however it is written: 020 is 20
    return { key, value: BigInt(value).toString() };
  }
  return { key, value };
}

/** One `events=` value: `type.attribute=value` or `type.attribute='value'`. */
export function parseEvent(event: string): Condition {
  const m = EVENT.exec(event);
  if (!m) throw invalidArgument(`invalid event; event ${event} should be of the format: ${EVENT_FORMAT}`);
  return checked(m[1]!, unquote(m[2]!), event);
}

/** One condition of a CometBFT query: `key = 'value'`, `key = 123`, or another operator (refused). */
const CONDITION = /^\s*([^\s=<>']+)\s*(=|<=|>=|<|>|CONTAINS|EXISTS)\s*('[^']*'|[^\s']+)?\s*/;

/** A `query=` string: conditions joined by AND, each `key = value`. */
export function parseQuery(query: string): Condition[] {
  const conditions: Condition[] = [];
  let rest = query;
  for (;;) {
    const m = CONDITION.exec(rest);
    const written = m?.[0].trim() ?? rest.trim();
    if (!m || (m[2] !== 'EXISTS' && m[3] === undefined))
      throw invalidArgument(
        `invalid query; ${JSON.stringify(query)} should be conditions of the form {eventType}.{eventAttribute}='{value}' joined by AND`,
      );
    if (m[2] !== '=')
      throw invalidArgument(`condition ${written} cannot be searched: the index answers only = (equality) conditions`);
    conditions.push(checked(m[1]!, unquote(m[3]!), written));
    rest = rest.slice(m[0].length);
    if (rest === '') return conditions;
    const and = /^AND\s+/.exec(rest);
    if (!and)
      throw invalidArgument(
        `invalid query; ${JSON.stringify(query)} should be conditions of the form {eventType}.{eventAttribute}='{value}' joined by AND`,
      );
    rest = rest.slice(and[0].length);
  }
}

/** The conditions on event attributes (all but tx.height), each once. */
function attributeConditions(conditions: readonly Condition[]): Condition[] {
  const seen = new Set<string>();
  return conditions.filter((c) => {
    const key = `${c.key}\0${c.value}`;
    if (c.key === TX_HEIGHT || seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Refuses a search of more distinct attribute conditions than MAX_ATTRIBUTE_CONDITIONS (repeats count once). */
export function checkConditionCount(conditions: readonly Condition[]): void {
  const distinct = attributeConditions(conditions);
  if (distinct.length > MAX_ATTRIBUTE_CONDITIONS)
    throw invalidArgument(
      `too many conditions: ${distinct.length} event conditions besides ${TX_HEIGHT}; at most ${MAX_ATTRIBUTE_CONDITIONS} can be searched together`,
    );
}

/** Where a page starts: the (height, tx_index) of its first tx. */
export interface Cursor {
  height: number;
  txIndex: number;
}

/** `next_key`: 8 bytes of height and 4 of tx index, big-endian (opaque to clients). */
export function encodeCursor(c: Cursor): Uint8Array {
  const out = new Uint8Array(12);
  const view = new DataView(out.buffer);
  view.setBigUint64(0, BigInt(c.height));
  view.setUint32(8, c.txIndex);
  return out;
}

export function decodeCursor(key: Uint8Array): Cursor {
  if (key.length !== 12) throw invalidArgument('invalid pagination.key: not a next_key of this search');
  const view = new DataView(key.buffer, key.byteOffset, key.byteLength);
  const height = view.getBigUint64(0);
  if (height > BigInt(Number.MAX_SAFE_INTEGER))
    throw invalidArgument('invalid pagination.key: not a next_key of this search');
  const txIndex = view.getUint32(8);
  // a tx index is a PostgreSQL integer: a key beyond it was not made by this search
  if (txIndex > 0x7fffffff) throw invalidArgument('invalid pagination.key: not a next_key of this search');
  return { height: Number(height), txIndex };
}

export interface SearchRequest {
  conditions: Condition[];
  descending: boolean;
  cursor?: Cursor;
  offset: number;
  limit: number;
  countTotal: boolean;
}

export interface SearchResult {
  rows: TxRow[];
  next?: Cursor;
  total?: string;
}

/** The heights the index holds with none missing: from where its live index began to its newest block. */
export interface IndexedSpan {
  first: number;
  last: number;
}

async function readIndexedSpan(db: Queryable): Promise<IndexedSpan | undefined> {
  const [row] = await db.query<{ first_height: string; last_height: string }>(
    'SELECT first_height, last_height FROM indexer_state',
  );
  return row ? { first: Number(row.first_height), last: Number(row.last_height) } : undefined;
}

/**
 * How long the index's span is kept (docs/chain-api.md "Caching"): a page of the newest txs
 * first is at most this far behind the index (its Cache-Control allows a second), and the
 * database is asked at most this often, not on every request.
 */
export const SPAN_TTL_MS = 250;

/**
 * The index's span, read at most every SPAN_TTL_MS, and again at once when this process's
 * indexer (`indexedHeight`, where one runs here) has committed a block beyond it. A span kept
 * a while is never wrong for what it decides: its last height only grows and its first only
 * falls, so an older one keeps fewer pages as final (pageIsFinal, newestPageHolds), never more.
 * `clock` gives milliseconds (tests step it).
 */
export function createSpanReader(
  db: Queryable,
  indexedHeight?: () => number | null,
  clock: () => number = () => performance.now(),
): () => Promise<IndexedSpan | undefined> {
  // `last`: the span's newest height once read; until then the indexer's when the read began
  let kept: { span: Promise<IndexedSpan | undefined>; readAt: number; last: number | null } | undefined;
  return () => {
    const now = clock();
    const live = indexedHeight?.() ?? null;
    if (kept && now - kept.readAt < SPAN_TTL_MS && (live === null || kept.last === null || live <= kept.last))
      return kept.span;
    const entry: NonNullable<typeof kept> = { span: readIndexedSpan(db), readAt: now, last: live };
    kept = entry;
    entry.span.then(
      (span) => {
        entry.last = Math.max(span?.last ?? 0, entry.last ?? 0);
      },
      () => {
        if (kept === entry) kept = undefined;
      },
    );
    return entry.span;
  };
}

/**
 * Whether a page can never change (docs/chain-api.md "Caching"). Its txs are the first
 * `limit` matches from where it starts, and the match after them (its next_key) exists: so
 * nothing after that match can join it, and a page whose every height, from where it starts to
 * that match, lies within `span` (the index's heights with none missing, written in order:
 * new blocks come after its last, a backfill only below its first) has all its txs already.
 * A page that starts at the chain's beginning (no key, ascending, no height named) starts at
 * height 1. Never a page whose total is counted (it grows), nor the newest txs first without a
 * key or a height (new txs come on top), nor a page from a key this search did not give (the
 * position of no match: there are billions of such keys, each a page to keep).
 */
export function pageIsFinal(req: SearchRequest, result: SearchResult, span: IndexedSpan): boolean {
  const start = pageStart(req);
  if (start === undefined || !result.next) return false;
  // a key this search gave (the position of a match) begins its page; any other is not kept
  const [first] = result.rows;
  if (req.cursor && !(first && Number(first.height) === req.cursor.height && first.tx_index === req.cursor.txIndex))
    return false;
  const [from, to] = req.descending ? [result.next.height, start] : [start, result.next.height];
  return from >= span.first && to <= span.last;
}

/**
 * The height a page starts at (its key's, the one its `tx.height` names, or 1 for the oldest
 * first), or undefined for a page that can change whatever the index holds (a counted total,
 * the newest first from the top): pageIsFinal's question, asked before the page is read.
 */
export function pageStart(req: SearchRequest): number | undefined {
  if (req.countTotal) return undefined;
  const named = req.conditions.find((c) => c.key === TX_HEIGHT);
  const start = req.cursor?.height ?? (named ? Number(named.value) : req.descending ? undefined : 1);
  return start !== undefined && Number.isSafeInteger(start) ? start : undefined;
}

/**
 * Whether a page of the newest matches first (no key, no height named, no total) stays as it is
 * until the index's next block: new blocks add matches on top, and a backfill adds only
 * heights below the index's first, which the page does not reach when the match after it is
 * at or above that first height (or the index begins at height 1).
 */
export function newestPageHolds(req: SearchRequest, result: SearchResult, span: IndexedSpan): boolean {
  if (!req.descending || req.cursor || req.countTotal || pageStart(req) !== undefined) return false;
  return result.next ? result.next.height >= span.first : span.first === 1;
}

/** Least selective last: an action is shared by many txs, an address by few. */
const selectivity = (c: Condition) => (c.key === 'message.action' ? 1 : 0);

/**
 * The matching txs of one page, in (height, tx_index) order, one more read than the page
 * to know the next page's cursor. Each attribute condition is a probe of tx_attribute_refs'
 * primary key by its pair's number (read first: a pair no tx has matches nothing); the most
 * selective drives, `tx.height` narrows its range.
 */
export async function searchTxs(db: Queryable, req: SearchRequest): Promise<SearchResult> {
  const heights = new Set(req.conditions.filter((c) => c.key === TX_HEIGHT).map((c) => c.value));
  if (heights.size > 1) return { rows: [], total: req.countTotal ? '0' : undefined };
  const [height] = heights;
  const attributes = attributeConditions(req.conditions).sort((a, b) => selectivity(a) - selectivity(b));

  // the driving relation: the first attribute condition, or txs itself for tx.height alone
  // the pairs' numbers read first: the page's statement carries them as values the planner can
  // weigh with the column's statistics (an action is shared by many txs)
  const known = await knownAttributeIds(
    db,
    attributes.map((c) => [c.key, c.value] as const),
  );
  const ids = attributes.map((c) => idOf(known, c.key, c.value));
  if (ids.some((id) => id === undefined)) return { rows: [], total: req.countTotal ? '0' : undefined };
  const [first, ...others] = ids;
  const d = sql.raw(first !== undefined ? 'a0' : 't');
  const where: Sql[] = [];
  let from = sql`txs t`;
  if (first !== undefined) {
    where.push(sql`a0.attribute = ${first}::bigint`);
    const joins = others.map((id, i) => {
      const a = sql.raw(`a${i + 1}`);
      return sql`JOIN tx_attribute_refs ${a} ON ${a}.attribute = ${id}::bigint AND ${a}.height = a0.height AND ${a}.tx_index = a0.tx_index`;
    });
    from = sql`tx_attribute_refs a0 ${sql.join(joins, ' ')}`;
  }
  if (height !== undefined) where.push(sql`${d}.height = ${height}::bigint`);

  const total = req.countTotal
    ? (
        await db.query<{ n: string }>(sql`SELECT count(*)::text AS n FROM ${from} WHERE ${sql.join(where, ' AND ')}`)
      )[0]!.n
    : undefined;

  const dir = sql.raw(req.descending ? 'DESC' : 'ASC');
  const page = [...where];
  if (req.cursor)
    page.push(
      sql`(${d}.height, ${d}.tx_index) ${sql.raw(req.descending ? '<=' : '>=')} (${req.cursor.height}::bigint, ${req.cursor.txIndex}::integer)`,
    );
  const order = sql`ORDER BY ${d}.height ${dir}, ${d}.tx_index ${dir}`;
  const window = sql`LIMIT ${req.limit + 1} OFFSET ${req.offset}`;
  const rows = await db.query<TxRow>(
    first === undefined
      ? sql`SELECT ${TX_COLUMNS} FROM txs t WHERE ${sql.join(page, ' AND ')} ${order} ${window}`
      : // the page's positions first, then its txs read at them (src/db/chain-txs.ts)
        sql`SELECT ${TX_COLUMNS}
            FROM ${txsAt(sql`SELECT a0.height, a0.tx_index FROM ${from} WHERE ${sql.join(page, ' AND ')} ${order} ${window}`)}
            ORDER BY t.height ${dir}, t.tx_index ${dir}`,
  );
  const extra = rows.length > req.limit ? rows.pop() : undefined;
  return {
    rows,
    next: extra ? { height: Number(extra.height), txIndex: extra.tx_index } : undefined,
    total,
  };
}
