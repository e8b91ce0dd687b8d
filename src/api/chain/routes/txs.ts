// GET /cosmos/tx/v1beta1/txs/{hash}, /txs?events=…|query=… and /txs/block/{height}
// (docs/chain-api.md, "Transactions"): from the index; a hash or a block the index does
// not hold is read through from the node. The routes are data (src/api/http/routes.ts),
// each described beside its handler; the Chain API's route table
// (src/api/chain/route-table.ts) joins them for the server, which mounts it, and for the
// OpenAPI document, which describes it.
import { toBase64 } from '@cosmjs/encoding';
import { z } from 'zod';
import { type KeptAs, type Rendered, render, sendNotModified, sendRendered } from '../../http/http-cache.ts';
import type { Route } from '../../http/routes.ts';
import { cometBlockJson } from '../block-json.ts';
import type { ChainApiContext } from '../context.ts';
import { invalidArgument, notFound } from '../gateway.ts';
import { int64Param, pageRequest, single, uint64Param } from '../params.ts';
import { schemaOf } from '../proto-json.ts';
import { attributeFormOf, type HeightErrors, latestHeight, loadBlock, loadTx, txRecordOf } from '../read-through.ts';
import { answer, heightSchema, notFoundAnswer, paginated, TAGS, uint64 } from '../route-docs.ts';
import { type AttributeForm, txJson, txResponseText, txWithResponse } from '../tx-json.ts';
import {
  type Condition,
  checkConditionCount,
  decodeCursor,
  encodeCursor,
  newestPageHolds,
  pageIsFinal,
  pageStart,
  parseEvent,
  parseQuery,
  type SearchRequest,
  searchTxs,
} from '../tx-search.ts';

const BASE = '/cosmos/tx/v1beta1/txs';

/** How long an HTTP cache may keep a tx answer (or a block's txs) not in its final form (read through, or a type printed as base64). */
const NOT_FINAL_TX_MAX_AGE_SECONDS = 60;

/**
 * How long an HTTP cache may keep a final answer with events: for ever, except in base64 (a
 * Tendermint 0.34 chain's form), which a chain's upgrade to 0.37 turns into text: a day.
 */
const finalLifetime = (form: AttributeForm | undefined) =>
  form === 'base64' ? { maxAgeSeconds: BASE64_EVENTS_MAX_AGE_SECONDS } : ('immutable' as const);
const BASE64_EVENTS_MAX_AGE_SECONDS = 86_400;

/** What sets an answer with events apart in the caches: its attributes' form (text has none, as before the form was known). */
const formKey = (form: AttributeForm | undefined) => (form === 'base64' ? ':base64' : '');

/** Whether every Any in the answer printed its fields (no `{"@type", "value"}` of a type no schema knows). */
function everyTypePrinted(json: unknown): boolean {
  if (Array.isArray(json)) return json.every(everyTypePrinted);
  if (json === null || typeof json !== 'object') return true;
  const o = json as Record<string, unknown>;
  const keys = Object.keys(o);
  if (keys.length === 2 && typeof o['@type'] === 'string' && typeof o.value === 'string' && !schemaOf(o['@type']))
    return false;
  return Object.values(o).every(everyTypePrinted);
}

/** How long an HTTP cache may keep a search page that can still change (a new block comes every second or few). */
const CHANGING_PAGE_MAX_AGE_SECONDS = 1;
/** How long a page of the newest txs first is kept for its block at most (a later block replaces it anyway). */
const NEWEST_PAGE_KEEP_MS = 60_000;

/** The most txs one page holds (CometBFT's tx_search caps a page at 100 too). */
export const MAX_PAGE = 100n;
const DEFAULT_PAGE = 100n;

type Query = Record<string, string | string[] | undefined>;

/** A tx hash: 64 hex digits, any case; Go's hex errors for what does not decode. */
function hashParam(hash: string): string {
  const bad = /[^0-9a-fA-F]/u.exec(hash);
  if (bad) {
    const cp = bad[0].codePointAt(0)!;
    throw invalidArgument(
      `encoding/hex: invalid byte: U+${cp.toString(16).toUpperCase().padStart(4, '0')} '${bad[0]}'`,
    );
  }
  if (hash.length % 2 === 1) throw invalidArgument('encoding/hex: odd length hex string');
  if (hash.length !== 64) throw invalidArgument(`invalid tx hash ${hash}: a tx hash is 32 bytes (64 hex digits)`);
  return hash.toUpperCase();
}

/** `order_by`: the OrderBy enum by name or number; unspecified is ascending, as the SDK. */
function descendingParam(value: string | undefined): boolean {
  if (value === undefined || ['', '0', '1', 'ORDER_BY_UNSPECIFIED', 'ORDER_BY_ASC'].includes(value)) return false;
  if (value === '2' || value === 'ORDER_BY_DESC') return true;
  throw invalidArgument(`type mismatch, parameter: order_by, error: ${value} is not valid`);
}

const min = (a: bigint, b: bigint) => (a < b ? a : b);

/** The conditions of `events=` (each one, ANDed) and `query=` (ANDed with them). */
function conditionsOf(query: Query): Condition[] {
  const events = [query.events ?? []].flat();
  const text = single(query, 'query');
  const conditions = [...events.map(parseEvent), ...(text ? parseQuery(text) : [])];
  if (conditions.length === 0) throw invalidArgument('must declare at least one event to search');
  checkConditionCount(conditions);
  return conditions;
}

/** GetBlockWithTxs' errors: the SDK's text, with the statuses of GetBlockByHeight (400). */
function blockWithTxsErrors(ctx: ChainApiContext): HeightErrors {
  const outOfChain = (height: bigint, tip: number) =>
    invalidArgument(
      `requested height ${height} but height must not be less than 1 or greater than the current height ${tip}: invalid height`,
    );
  return {
    notPositive: async (height) => outOfChain(height, await latestHeight(ctx)),
    aboveTip: async (height, tip) => outOfChain(height, tip ?? (await latestHeight(ctx))),
  };
}

export const txsRoutes: Route<ChainApiContext>[] = [
  {
    method: 'get',
    path: `${BASE}/block/:height`,
    tag: TAGS.blocks,
    summary:
      "A block with its transactions (GetBlockWithTxs), a page of the block's txs; immutable: ETag, Cache-Control, 304",
    params: z.object({ height: heightSchema }),
    query: paginated(),
    responses: { 200: answer('txs, block_id, block, pagination') },
    handler: (ctx) => {
      const errors = blockWithTxsErrors(ctx);
      return async (req, res) => {
        const height = int64Param('height', req.params.height)!;
        const q = req.query as Query;
        const page = pageRequest(q);
        const limit = Number(min(page.limit > 0n ? page.limit : DEFAULT_PAGE, MAX_PAGE));
        // a block is final once it exists, and so is each page of its txs
        const key = `block-txs:${height}?${JSON.stringify({ reverse: page.reverse, key: toBase64(page.key), offset: String(page.offset), limit })}`;
        if (sendNotModified(req, res, ctx.txPages, key)) return;
        const rendered = await ctx.txPages.remember(key, async () => {
          const block = await loadBlock(ctx, height, errors);
          const n = block.txs.length;
          const order = block.txs.map((_, i) => i);
          if (page.reverse) order.reverse();
          let start: number;
          if (page.key.length > 0) {
            if (page.key.length !== 4) throw invalidArgument('invalid pagination.key: not a next_key of this block');
            const from = new DataView(page.key.buffer, page.key.byteOffset, 4).getUint32(0);
            start = order.indexOf(from);
            if (start < 0) start = n;
          } else {
            if (page.offset >= BigInt(n) && n !== 0)
              throw invalidArgument(
                `out of range: cannot paginate ${n} txs with offset ${page.offset} and limit ${limit}: invalid request`,
              );
            start = Number(page.offset);
          }
          const shown = order.slice(start, start + limit);
          const next = order[start + limit];
          let nextKey: string | null = null;
          if (next !== undefined) {
            const bytes = new Uint8Array(4);
            new DataView(bytes.buffer).setUint32(0, next);
            nextKey = toBase64(bytes);
          }
          const txs = shown.map((i) => txJson(block.txs[i]!));
          const text = JSON.stringify({
            txs,
            ...cometBlockJson(block.parts, block.txs),
            pagination: { next_key: nextKey, total: String(n) },
          });
          // a message type not known yet prints as base64 until it is
          const final = txs.every(everyTypePrinted);
          // a key that names no tx of the block (one of 2^32) gets its empty page, not kept
          return { rendered: { ...render(200, text), final }, immutable: final && start < n };
        });
        const lifetime = rendered.final === false ? { maxAgeSeconds: NOT_FINAL_TX_MAX_AGE_SECONDS } : 'immutable';
        await sendRendered(req, res, rendered, lifetime, { cache: ctx.txPages, key });
      };
    },
  },
  {
    method: 'get',
    path: `${BASE}/:hash`,
    tag: TAGS.blocks,
    summary:
      'A transaction by hash (from the index, else read through from the node); immutable: ETag, Cache-Control, 304',
    params: z.object({ hash: z.string().describe('the tx hash, 64 hex digits, any case') }),
    responses: { 200: answer('tx, tx_response'), 404: notFoundAnswer('no such transaction') },
    handler: (ctx) => async (req, res) => {
      const sent = req.params.hash!;
      const hash = hashParam(sent);
      const form = await attributeFormOf(ctx);
      const key = `tx:${hash}${formKey(form)}`;
      if (sendNotModified(req, res, ctx.answers, key, finalLifetime(form))) return;
      const rendered = await ctx.answers.remember(key, async () => {
        const found = await loadTx(ctx, hash);
        if (!found) throw notFound(`tx not found: ${sent}`);
        const { tx, text } = txWithResponse(found, form);
        // a tx in the index is final; read through from the node it carries the result's data
        // the index does not keep, and a message type not known yet prints as base64 until it is
        // (only `tx` holds Anys: tx_response repeats it, its logs and events are strings); its
        // events print as the node's protocol has them, once that is known
        const final = form !== undefined && !found.fromNode && everyTypePrinted(tx);
        return { rendered: { ...render(200, text), final }, immutable: final };
      });
      const lifetime = rendered.final === false ? { maxAgeSeconds: NOT_FINAL_TX_MAX_AGE_SECONDS } : finalLifetime(form);
      await sendRendered(req, res, rendered, lifetime, { cache: ctx.answers, key });
    },
  },
  {
    method: 'get',
    path: BASE,
    tag: TAGS.blocks,
    summary: 'Transactions matching event conditions (AND)',
    description:
      "Conditions on `message.sender`, `message.action`, `transfer.recipient` and `tx.height`, as `events=` (repeat for more) and/or `query=` (SDK 0.50's syntax, joined by AND). Pages by `pagination.*`, or SDK 0.47's `page` and `limit`. A page nothing can join any more (its next_key names a match, and the index holds every height from where it starts to that match) is immutable: ETag, Cache-Control, 304; any other page says max-age=1, with its ETag.",
    query: paginated({
      events: z.string().optional().describe("a condition `type.attribute='value'`; repeat the parameter for more"),
      query: z.string().optional().describe("conditions `type.attribute='value'` joined by ` AND `"),
      order_by: z
        .enum(['ORDER_BY_UNSPECIFIED', 'ORDER_BY_ASC', 'ORDER_BY_DESC', '0', '1', '2'])
        .optional()
        .describe('oldest first unless ORDER_BY_DESC'),
      page: uint64.optional().describe('1-based page (with `limit`)'),
      limit: uint64.optional().describe('page size (with `page`)'),
    }),
    responses: { 200: answer('txs, tx_responses, pagination, total') },
    handler: (ctx) => async (req, res) => {
      const q = req.query as Query;
      const conditions = conditionsOf(q);
      const descending = descendingParam(single(q, 'order_by'));
      const page = pageRequest(q);
      // SDK v0.47 clients page with `page` (1-based) and `limit`
      const legacyPage = uint64Param('page', single(q, 'page'));
      const legacyLimit = uint64Param('limit', single(q, 'limit'));
      const limit = min(page.limit > 0n ? page.limit : legacyLimit || DEFAULT_PAGE, MAX_PAGE);
      const cursor = page.key.length > 0 ? decodeCursor(page.key) : undefined;
      const offset = cursor
        ? 0n
        : page.offset > 0n
          ? page.offset
          : legacyPage && legacyPage > 1n
            ? (legacyPage - 1n) * limit
            : 0n;
      const request: SearchRequest = {
        conditions,
        // a node's tx search reads no `pagination.reverse` (SDK 0.45/0.46 take offset and limit
        // from the PageRequest, 0.47+ none of it): wallets send it beside order_by
        descending,
        cursor,
        offset: Number(min(offset, BigInt(Number.MAX_SAFE_INTEGER))),
        limit: Number(limit),
        // as a node counts tx_search's matches for every page (wallets page by it); a key page,
        // which a node does not have, goes on from one that had it
        countTotal: !cursor,
      };
      const form = await attributeFormOf(ctx);
      // one key for every way of asking the same page (order of parameters, page/limit or pagination.*)
      const key = `txs?${JSON.stringify(request)}${formKey(form)}`;
      if (sendNotModified(req, res, ctx.txPages, key, finalLifetime(form))) return;
      // the page's JSON, and whether it may be kept (no type in it printed as base64 until known)
      const read = async () => {
        const result = await searchTxs(ctx.db, request);
        const txs = [];
        const responses = [];
        for (const row of result.rows) {
          const record = txRecordOf(row);
          const tx = txJson(record.bytes);
          txs.push(tx);
          responses.push(txResponseText(record, tx, form));
        }
        const total = result.total ?? '0';
        const pagination = { next_key: result.next ? toBase64(encodeCursor(result.next)) : null, total };
        const text = `{"txs":${JSON.stringify(txs)},"tx_responses":[${responses.join(',')}],"pagination":${JSON.stringify(pagination)},"total":${JSON.stringify(total)}}`;
        return { result, text, printed: form !== undefined && txs.every(everyTypePrinted) };
      };
      let rendered: Rendered;
      // where a page that holds until the next block is kept (its gzip form replaces it there)
      let keptUntilNextBlock: KeptAs | undefined;
      if (pageStart(request) !== undefined) {
        rendered = await ctx.txPages.remember(key, async () => {
          // read before the page: every height up to its last is in the index when the page is read
          const at = await ctx.indexedSpan();
          const { result, text, printed } = await read();
          const final = at !== undefined && pageIsFinal(request, result, at) && printed;
          return { rendered: { ...render(200, text), final }, immutable: final };
        });
      } else {
        // a counted total (or the newest first) changes as the index's span does (a new block on
        // top, a backfill below its first height): kept until then (the span is in the key)
        const at = await ctx.indexedSpan();
        if (at) {
          keptUntilNextBlock = { cache: ctx.txPages, key: `${key}@${at.first}-${at.last}` };
          rendered = await ctx.txPages.remember(keptUntilNextBlock.key, async () => {
            const { result, text, printed } = await read();
            return {
              rendered: render(200, text),
              immutable: newestPageHolds(request, result, at) && printed,
              keepMs: NEWEST_PAGE_KEEP_MS,
            };
          });
        } else {
          rendered = render(200, (await read()).text);
        }
      }
      // gzipped for a client that takes it (a page of 100 txs is ~0.7 MB of JSON, ~57 kB gzipped)
      if (rendered.final) await sendRendered(req, res, rendered, finalLifetime(form), { cache: ctx.txPages, key });
      else await sendRendered(req, res, rendered, { maxAgeSeconds: CHANGING_PAGE_MAX_AGE_SECONDS }, keptUntilNextBlock);
    },
  },
];
