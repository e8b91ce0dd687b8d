// tx_search: CometBFT's query language (conditions joined by AND: =, <, <=, >, >=, CONTAINS,
// EXISTS) over tx.hash, tx.height and event attributes, with page/per_page and order_by.
import type { RenderedTxResult } from '../blocks/block.ts';
import type { BlockStore } from '../blocks/block-store.ts';
import { INDEXED_ATTRIBUTES, packPosition, unpackPosition } from '../blocks/tx-index.ts';
import { rpcErrors } from './errors.ts';

export interface Condition {
  key: string;
  op: '=' | '<' | '<=' | '>' | '>=' | 'CONTAINS' | 'EXISTS';
  value: string;
  numeric: boolean;
}

const CONDITION = /^\s*([\w.-]+)\s*(?:(<=|>=|=|<|>|CONTAINS)\s*(?:'([^']*)'|(-?\d+(?:\.\d+)?))|(EXISTS))\s*$/;

export function parseQuery(query: string): Condition[] {
  if (!query.trim()) throw rpcErrors.internal('failed to parse query: query cannot be empty');
  return query.split(/\s+AND\s+/).map((part) => {
    const match = CONDITION.exec(part);
    if (!match) throw rpcErrors.internal(`failed to parse query: invalid condition ${JSON.stringify(part.trim())}`);
    const [, key, op, quoted, number, exists] = match;
    if (exists) return { key: key!, op: 'EXISTS', value: '', numeric: false };
    return { key: key!, op: op as Condition['op'], value: quoted ?? number!, numeric: quoted === undefined };
  });
}

function compare(actual: string, c: Condition): boolean {
  if (c.op === 'EXISTS') return true;
  if (c.op === 'CONTAINS') return actual.includes(c.value);
  if (c.op === '=' && !c.numeric) return actual === c.value;
  const a = Number(actual);
  const b = Number(c.value);
  if (Number.isNaN(a)) return false;
  switch (c.op) {
    case '=':
      return a === b;
    case '<':
      return a < b;
    case '<=':
      return a <= b;
    case '>':
      return a > b;
    default:
      return a >= b;
  }
}

/** True when some event of the tx has the condition's type and a matching attribute. */
export function matchesEvents(result: Pick<RenderedTxResult, 'events'>, c: Condition): boolean {
  const dot = c.key.lastIndexOf('.');
  const type = c.key.slice(0, dot);
  const attribute = c.key.slice(dot + 1);
  return result.events.some(
    (e) => e.type === type && e.attributes.some((a) => a.key === attribute && compare(a.value, c)),
  );
}

function heightRange(conditions: Condition[], latest: number): [number, number] {
  let lo = 1;
  let hi = latest;
  for (const c of conditions) {
    const h = Number(c.value);
    if (c.op === '=') [lo, hi] = [Math.max(lo, h), Math.min(hi, h)];
    else if (c.op === '>') lo = Math.max(lo, Math.floor(h) + 1);
    else if (c.op === '>=') lo = Math.max(lo, Math.ceil(h));
    else if (c.op === '<') hi = Math.min(hi, Math.ceil(h) - 1);
    else if (c.op === '<=') hi = Math.min(hi, Math.floor(h));
  }
  return [lo, hi];
}

function intersect(a: readonly number[], b: readonly number[]): number[] {
  const out: number[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i]! < b[j]!) i++;
    else if (a[i]! > b[j]!) j++;
    else {
      out.push(a[i]!);
      i++;
      j++;
    }
  }
  return out;
}

/** Positions (sorted ascending) of the txs matching every condition. */
export function searchTxs(store: BlockStore, conditions: Condition[]): number[] {
  const hashCondition = conditions.find((c) => c.key === 'tx.hash');
  const heightConditions = conditions.filter((c) => c.key === 'tx.height');
  const indexed = conditions.filter((c) => c.op === '=' && !c.numeric && INDEXED_ATTRIBUTES.has(c.key));
  const rest = conditions.filter((c) => c.key !== 'tx.hash' && c.key !== 'tx.height' && !indexed.includes(c));
  const [lo, hi] = heightRange(heightConditions, store.height);
  if (lo > hi) return [];

  let candidates: readonly number[];
  if (hashCondition) {
    const position = store.index.position(hashCondition.value.toUpperCase());
    candidates = position === undefined ? [] : [position];
  } else if (indexed.length) {
    candidates = indexed.map((c) => store.index.positions(c.key, c.value)).reduce((a, b) => intersect(a, b));
  } else {
    const all: number[] = [];
    for (let h = lo; h <= hi; h++) for (let i = 0; i < store.meta(h)!.txCount; i++) all.push(packPosition(h, i));
    candidates = all;
  }
  const min = packPosition(lo, 0);
  const max = packPosition(hi + 1, 0);
  return candidates.filter((p) => {
    if (p < min || p >= max) return false;
    if (!rest.length) return true;
    const { height, index } = unpackPosition(p);
    const result = store.results(height)[index]!;
    return rest.every((c) => matchesEvents(result, c));
  });
}

export interface PageRequest {
  page: number | undefined;
  perPage: number | undefined;
}

export const DEFAULT_PER_PAGE = 30;
export const MAX_PER_PAGE = 100;

/** CometBFT's validatePerPage and validatePage; returns the slice bounds. */
export function pageBounds(total: number, { page, perPage }: PageRequest): { start: number; end: number } {
  const size = perPage === undefined || perPage < 1 ? DEFAULT_PER_PAGE : Math.min(perPage, MAX_PER_PAGE);
  const pages = Math.max(1, Math.ceil(total / size));
  const current = page ?? 1;
  if (current < 1 || current > pages)
    throw rpcErrors.internal(`page should be within [1, ${pages}] range, given ${current}`);
  const start = (current - 1) * size;
  return { start, end: Math.min(start + size, total) };
}
