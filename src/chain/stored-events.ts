// How a transaction's events are kept in the index: compact JSON ([type, [[key, value], …]]
// per event, dropping the always-true `index` flags) compressed with LZ4 against a preset
// dictionary of the Cosmos SDK's and CosmWasm's event vocabulary. A launchpad trade's events
// are ~3 kB of JSON; packed they are ~780 bytes and stay inline in their row instead of going
// to TOAST, which made writing them 10 times slower.
//
// LZ4 rather than DEFLATE: it packs a trade's events in ~5 µs against DEFLATE's ~25 (a fifth
// of the block worker's CPU a trade was DEFLATE), and unpacks them ten times as fast. Its
// output is larger in the rowstore (~780 bytes against ~570) but smaller once TimescaleDB's
// columnstore compresses a chunk (a whole tx 681 bytes against 845 with DEFLATE, and 500 with
// the batches in LZ4: README "Storage"): LZ4 leaves the addresses and amounts that repeat
// from tx to tx as literals, which the compression of a batch of txs at once finds, where
// DEFLATE's output looks random to it. Cold chunks are most of a chain's history.
//
// Formats, told apart by the first byte:
// - 0x0e, then the uncompressed length (uint32, little-endian), then an LZ4 block compressed
//   against DICTIONARY_1 as an external dictionary (LZ4_decompress_safe_usingDict reads it;
//   written now).
// - 0x06, then raw DEFLATE with DICTIONARY_1 (written before LZ4; still read).
// - otherwise raw DEFLATE without a dictionary (written before the dictionary; still read).
// Neither marker can begin a raw DEFLATE stream: its first block's type would be 3, which
// RFC 1951 reserves. The dictionary is part of the stored format: it never changes. A better
// one would get a marker of its own (another byte with block type 3: 0x16, 0x1e, …).
import { compressSync as lz4Compress, uncompressSync as lz4Uncompress } from 'lz4-napi';
import { sizedInflateRaw } from '../internal/sized-zlib.ts';

export interface ChainEvent {
  readonly type: string;
  readonly attributes: readonly { readonly key: string; readonly value: string }[];
}

/** The Cosmos REST shape of an event (tx_response.events[]). */
export interface RestEvent {
  type: string;
  attributes: { key: string; value: string; index: boolean }[];
}

const MARKER_LZ4_DICTIONARY_1 = 0x0e;
const MARKER_DICTIONARY_1 = 0x06;
/** LZ4 shortens by at most ~255 to 1: a length claiming more is a corrupted row, refused before it is allocated. */
const LZ4_MAX_RATIO = 256;

/**
 * What a chain's tx events repeat, as the compact JSON spells it: the SDK's fee, signature,
 * message and bank events, CosmWasm's execute and wasm events, and the launchpad's and AMM's
 * own (src/chain/contract-events.ts). No chain's addresses, denoms or prefixes: it serves any
 * chain. LZ4 and DEFLATE find the nearest copy cheapest, so the most frequent come last.
 */
const DICTIONARY_1 = Buffer.from(
  [
    '["wasm-token_created",[["_contract_address","',
    '"],["creator","',
    '"],["name","',
    '"],["symbol","',
    '"],["initial_reserves","',
    '["wasm-graduate",[["_contract_address","',
    '"],["tokens_for_pool","',
    '"],["native_for_pool","',
    '["wasm-swap",[["_contract_address","',
    '"],["direction","native_to_token"]',
    '"],["direction","token_to_native"]',
    '"],["offer_amount","',
    '"],["return_amount","',
    '"],["trader","',
    '["message",[["action","/cosmos.bank.v1beta1.MsgSend"],["sender","',
    '"],["module","bank"]',
    '["burn",[["burner","',
    '["coinbase",[["minter","',
    '"],["action","transfer"]',
    '"],["action","mint"]',
    '"],["action","burn"]',
    '"],["owner","',
    '"],["recipient","',
    '["wasm-buy_and_graduate",[["_contract_address","',
    '["wasm-buy",[["_contract_address","',
    '"],["buyer","',
    '"],["native_input","',
    '"],["tokens_out","',
    '["wasm-sell",[["_contract_address","',
    '"],["seller","',
    '"],["tokens_input","',
    '"],["native_out","',
    '"],["fee","',
    '"],["native_reserves","',
    '"],["token_address","',
    '"],["action","send"]',
    '"],["action","buy"]',
    '"],["action","sell"]',
    '"],["from","',
    '"],["to","',
    '["tx",[["acc_seq","',
    '["tx",[["signature","',
    '["tx",[["fee","',
    '"],["fee_payer","',
    '["message",[["action","/cosmwasm.wasm.v1.MsgExecuteContract"],["sender","',
    '"],["module","wasm"]',
    '["execute",[["_contract_address","',
    '["wasm",[["_contract_address","',
    '"],["msg_index","0"]]]',
    '["coin_spent",[["spender","',
    '["coin_received",[["receiver","',
    '["transfer",[["recipient","',
    '"],["sender","',
    '"],["amount","',
  ].join(''),
);

/**
 * Packs events for storage (~5 µs of LZ4 for a trade's ~3 kB of events, and ~7 µs of making
 * the compact JSON). Synchronous on purpose: a block's 1,000 txs are packed in one go.
 */
export function packEvents(events: readonly ChainEvent[]): Buffer {
  const compact = events.map((e) => [e.type, e.attributes.map((a) => [a.key, a.value])]);
  return packCompactJson(JSON.stringify(compact));
}

/**
 * Packs events given as their compact JSON (`[[type,[[key,value],…]],…]`, as `packEvents`
 * prints it, or as src/chain/block-results.ts copies it from the node's bytes: its strings'
 * escapes may be the node's, which read back as the same text).
 */
export function packCompactJson(json: string | Buffer): Buffer {
  const block = lz4Compress(json, DICTIONARY_1);
  const packed = Buffer.allocUnsafe(block.length + 1);
  packed[0] = MARKER_LZ4_DICTIONARY_1;
  block.copy(packed, 1);
  return packed;
}

/** The LZ4 block after the marker: its length first, checked before anything is allocated for it. */
function lz4Json(block: Buffer): Buffer {
  if (block.length < 4) throw new Error('stored events: LZ4 block shorter than its length');
  const length = block.readUInt32LE(0);
  if (length > (block.length - 4) * LZ4_MAX_RATIO + 16)
    throw new Error(`stored events: LZ4 block of ${block.length} bytes claims ${length}`);
  const json = lz4Uncompress(block, DICTIONARY_1);
  if (json.length !== length)
    throw new Error(`stored events: LZ4 block claims ${length} bytes and holds ${json.length}`);
  return json;
}

/** The compact JSON's bytes, in any stored format. */
function compactJson(packed: Uint8Array): Buffer {
  const bytes = Buffer.from(packed.buffer, packed.byteOffset, packed.byteLength);
  if (bytes[0] === MARKER_LZ4_DICTIONARY_1) return lz4Json(bytes.subarray(1));
  return bytes[0] === MARKER_DICTIONARY_1 ? sizedInflateRaw(bytes.subarray(1), DICTIONARY_1) : sizedInflateRaw(bytes);
}

function restEventsOf(compactText: string): RestEvent[] {
  const compact = JSON.parse(compactText) as [string, [string, string][]][];
  return compact.map(([type, attributes]) => ({
    type,
    attributes: attributes.map(([key, value]) => ({ key, value, index: true })),
  }));
}

export function unpackEvents(packed: Uint8Array): RestEvent[] {
  return restEventsOf(compactJson(packed).toString('utf8'));
}

/**
 * The events' JSON as the Chain API prints them (`JSON.stringify(unpackEvents(packed))`),
 * written straight from the stored JSON's text: its strings are copied as they are (both
 * are JSON.stringify's), with no objects made and printed again. A tx's events are most of
 * its answer: this is ~3 times as fast.
 */
export function unpackEventsJson(packed: Uint8Array): string {
  const text = compactJson(packed).toString('utf8');
  return restJsonOfCompact(text) ?? JSON.stringify(restEventsOf(text));
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
/** What a token is copied as it is without: escapes, and control characters JSON does not allow raw. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding the control characters JSON forbids raw is the point
const ESCAPES_OR_CONTROLS = /[\\\u0000-\u001f]/u;

/**
 * A token with escapes, as JSON.stringify prints its string (what it already is, written by
 * JSON.stringify), or undefined when it is not a JSON string at all: a corrupted row is left to
 * the fallback, which refuses it, rather than copied into an answer kept for good.
 */
function printedAgain(token: string): string | undefined {
  try {
    const value: unknown = JSON.parse(token);
    return typeof value === 'string' ? JSON.stringify(value) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `[[type,[[key,value],…]],…]` as `[{"type":…,"attributes":[{"key":…,"value":…,"index":true},…]},…]`,
 * or undefined for a text not of that shape as JSON.stringify writes it (no whitespace).
 */
export function restJsonOfCompact(text: string): string | undefined {
  let at = 0;
  const expect = (c: string): boolean => {
    if (text[at] !== c) return false;
    at++;
    return true;
  };
  // a string token, quotes included: up to the first quote not escaped by a backslash
  const string = (): string | undefined => {
    if (text.charCodeAt(at) !== QUOTE) return undefined;
    let from = at + 1;
    for (;;) {
      const quote = text.indexOf('"', from);
      if (quote < 0) return undefined;
      let backslashes = 0;
      while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes++;
      if (backslashes % 2 === 0) {
        const token = text.slice(at, quote + 1);
        at = quote + 1;
        return ESCAPES_OR_CONTROLS.test(token) ? printedAgain(token) : token;
      }
      from = quote + 1;
    }
  };
  if (!expect('[')) return undefined;
  let out = '[';
  if (!expect(']')) {
    for (let first = true; ; first = false) {
      if (!first && !expect(',')) return undefined;
      if (!expect('[')) return undefined;
      const type = string();
      if (type === undefined || !expect(',') || !expect('[')) return undefined;
      out += `${first ? '' : ','}{"type":${type},"attributes":[`;
      if (!expect(']')) {
        for (let firstAttribute = true; ; firstAttribute = false) {
          if (!firstAttribute && !expect(',')) return undefined;
          if (!expect('[')) return undefined;
          const key = string();
          if (key === undefined || !expect(',')) return undefined;
          const value = string();
          if (value === undefined || !expect(']')) return undefined;
          out += `${firstAttribute ? '' : ','}{"key":${key},"value":${value},"index":true}`;
          if (expect(']')) break;
        }
      }
      if (!expect(']')) return undefined;
      out += ']}';
      if (expect(']')) break;
    }
  }
  return at === text.length ? `${out}]` : undefined;
}
