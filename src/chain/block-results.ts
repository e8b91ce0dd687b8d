// A `block_results` answer read with its txs' events taken straight from the node's bytes.
//
// A full block's results are megabytes of JSON, most of it the txs' events as objects
// (`{"type":…,"attributes":[{"key":…,"value":…,"index":true},…]}`). Parsing all of it made an
// object for every attribute, and keeping the events (src/chain/stored-events.ts) printed them
// again as compact JSON (`[type,[[key,value],…]]`). Here each tx's events array is copied from
// the bytes into that compact JSON as it is read (its strings' tokens as the node wrote them),
// each string read as text on the way (JSON.parse only for a token with escapes), and only the
// rest of the answer (a tx's code, log and gas, the block's own events) goes through
// JSON.parse. The compact JSON is what is packed for storage; the texts are the events the
// indexer decodes. Tendermint 0.34's attributes are base64: each key and value is decoded as
// it is read (as src/chain/node-events.ts decodes them, a `null` one as '') and written into
// the compact JSON as a JSON string of its text.
//
// It reads the events arrays only in the exact layout CometBFT writes them (no whitespace,
// fields in their order; `"index":false`, which Go leaves out, is taken too); anything else (a
// proxy's pretty-printing or sorted keys, an event without a type, a 0.37+ attribute without a
// key, a body that is not valid JSON, events arrays that are not the txs') is left to
// `readAnswer`'s full parse, which then decides. Where the fast read is taken, it reads what
// the full parse reads.
import { isAscii } from 'node:buffer';
import { randomBytes } from 'node:crypto';
import { type CometProtocol, fromBase64Key, fromBase64Text, type WireBlockResults } from './node-events.ts';
import { type Answer, readAnswer } from './rpc-client.ts';
import type { ChainEvent } from './stored-events.ts';

/** `block_results` read: the answer, and with the fast read each tx's events as compact JSON. */
export interface ReadResults {
  answer: Answer;
  /** Per tx of `txs_results`, its events' compact JSON bytes (undefined for a tx without events); absent when read in full. */
  compactEvents?: (Buffer | undefined)[];
}

const bytesOf = (text: string) => Buffer.from(text, 'latin1');
const EVENTS_KEY = bytesOf('"events":[');
/**
 * What stands in for a copied events array in the text that is parsed: a string no answer can
 * hold by chance or by design (this process's own random prefix), so each tx's stand-in is
 * known to be the array copied, not a value of the node's own.
 */
const STAND_IN = `${randomBytes(12).toString('hex')}:`;
const TYPE = bytesOf('{"type":');
const ATTRIBUTES = bytesOf(',"attributes":[');
const KEY = bytesOf('{"key":');
const VALUE = bytesOf(',"value":');
const INDEX_TRUE = bytesOf(',"index":true}');
const INDEX_FALSE = bytesOf(',"index":false}');
const NULL = bytesOf('null');

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/** Reads a `block_results` body: its txs' events from the bytes where their layout allows, else in full. */
export function readBlockResults(body: Buffer, protocol: CometProtocol): ReadResults {
  try {
    const fast = readFast(body, protocol === '0.34');
    if (fast) return fast;
  } catch {
    // anything the fast read does not take is read in full below, which decides
  }
  return { answer: readAnswer(body) };
}

/** Copies the bytes of a block's compact events, tracking where it is, and reads their strings. */
class Copier {
  /** The compact JSON; only 0.34's decoded texts can outgrow it, which then moves it to a larger one. */
  out: Buffer;
  at = 0;
  /** The text of the string token read last. */
  text = '';
  /** Short texts of the body read before (SHORT), by a hash of their bytes; a slot holds the last one. */
  private readonly short: (string | undefined)[] = new Array(SHORT_SLOTS);
  /** The slot of the text read last (-1 when it was not read through one). */
  private slot = -1;
  /** 0.34: per slot, the base64 text last decoded there and its decoded text. */
  private readonly decodedFrom: (string | undefined)[];
  private readonly decoded: string[];
  constructor(
    size: number,
    private readonly encoding: 'latin1' | 'utf8',
    /** Whether attribute keys and values are base64 (Tendermint 0.34). */
    private readonly base64: boolean,
  ) {
    this.out = Buffer.allocUnsafe(size);
    this.decodedFrom = base64 ? new Array(SHORT_SLOTS) : [];
    this.decoded = base64 ? new Array(SHORT_SLOTS) : [];
  }
  byte(b: number) {
    this.out[this.at++] = b;
  }
  /**
   * Reads the JSON string token that starts at `from`, and copies it (its quotes and escapes
   * as they are) when `copy`; returns the index after it, or -1 when there is no string token
   * there, it never ends, or it holds a control character JSON does not allow raw. A token
   * with escapes is read by JSON.parse, which throws on an escape JSON does not have. A short
   * one in an ASCII body is the string read before for the same bytes, when its slot holds it.
   */
  string(body: Buffer, from: number, copy = true): number {
    this.slot = -1;
    if (body[from] !== QUOTE) return -1;
    const out = this.out;
    const end = body.length;
    let o = this.at;
    let i = from + 1;
    let escaped = false;
    let hash = 0;
    if (copy) out[o++] = QUOTE;
    for (;;) {
      if (i >= end) return -1;
      const c = body[i++]!;
      if (c < 0x20) return -1;
      if (copy) out[o++] = c;
      if (c === QUOTE) break;
      hash = (Math.imul(hash, 31) + c) | 0;
      if (c === BACKSLASH) {
        if (i >= end) return -1;
        escaped = true;
        if (copy) out[o++] = body[i];
        i++;
      }
    }
    this.at = o;
    if (escaped) {
      this.text = JSON.parse(body.toString(this.encoding, from, i)) as string;
      return i;
    }
    const length = i - from - 2;
    if (length > (this.base64 ? SHORT_BASE64 : SHORT) || this.encoding !== 'latin1') {
      this.text = body.toString(this.encoding, from + 1, i - 1);
      return i;
    }
    const slot = (hash ^ length) & (SHORT_SLOTS - 1);
    this.slot = slot;
    const known = this.short[slot];
    if (known !== undefined && known.length === length && sameText(known, body, from + 1)) {
      this.text = known;
      return i;
    }
    this.text = body.toString('latin1', from + 1, i - 1);
    this.short[slot] = this.text;
    return i;
  }
  /**
   * Reads an attribute's key or value at `from` and copies it as a JSON string: in text
   * (0.37+) the token as it is; in base64 (0.34) its decoded text, a `null` one as ''. Returns
   * the index after it, or -1 where it is not a string (or, in base64, `null`).
   */
  attribute(body: Buffer, from: number, key: boolean): number {
    if (!this.base64) return this.string(body, from);
    let i: number;
    if (startsAt(body, from, NULL)) {
      i = from + NULL.length;
      this.text = '';
    } else {
      i = this.string(body, from, false);
      if (i < 0) return -1;
      this.text = this.decode(key);
    }
    this.quote(this.text, body.length - i);
    return i;
  }
  /** The base64 text read last, decoded as src/chain/node-events.ts decodes it; a short one once per slot. */
  private decode(key: boolean): string {
    const from = this.text;
    const slot = this.slot;
    if (slot >= 0 && this.decodedFrom[slot] === from) return this.decoded[slot]!;
    const text = key ? fromBase64Key(from) : fromBase64Text(from);
    if (slot >= 0) {
      this.decodedFrom[slot] = from;
      this.decoded[slot] = text;
    }
    return text;
  }
  /**
   * Writes `text` as a JSON string (as JSON.stringify writes it, printable ASCII copied as it
   * is), leaving room for the `rest` of the body after it.
   */
  private quote(text: string, rest: number) {
    this.room(text.length + 2, rest);
    const out = this.out;
    let o = this.at;
    out[o++] = QUOTE;
    for (let k = 0; k < text.length; k++) {
      const c = text.charCodeAt(k);
      if (c < 0x20 || c > 0x7e || c === QUOTE || c === BACKSLASH) {
        const json = JSON.stringify(text);
        this.room(Buffer.byteLength(json), rest);
        this.at += this.out.write(json, this.at, 'utf8');
        return;
      }
      out[o++] = c;
    }
    out[o++] = QUOTE;
    this.at = o;
  }
  /**
   * Makes room for `size` bytes and then the `rest` of the body (and a few bytes of brackets).
   * Everything else is copied into fewer bytes than it is read from; a decoded text can take
   * more (a NUL is a third of four base64 characters and six bytes escaped), and where the
   * room left would not hold the rest of the body, the copy moves to a larger buffer.
   */
  private room(size: number, rest: number) {
    const most = this.at + size + rest + 16;
    if (most <= this.out.length) return;
    const larger = Buffer.allocUnsafe(Math.max(2 * this.out.length, most));
    this.out.copy(larger, 0, 0, this.at);
    this.out = larger;
  }
}

/**
 * Texts this long or shorter (event types, keys, denoms, contract and account addresses) are
 * read once per block: the same few hundred repeat in every tx of a full block, and each one
 * read anew was a string made and collected (a tenth of reading the results).
 */
const SHORT = 72;
/** The base64 of a text SHORT long (0.34's attributes). */
const SHORT_BASE64 = (SHORT / 3) * 4;
/** Slots of the short texts read before, by a hash of their bytes (a power of two). */
const SHORT_SLOTS = 1024;

/** Whether `text` (read as latin1) is the bytes of `body` from `at`. */
function sameText(text: string, body: Buffer, at: number): boolean {
  for (let k = 0; k < text.length; k++) if (text.charCodeAt(k) !== body[at + k]) return false;
  return true;
}

function startsAt(body: Buffer, at: number, literal: Buffer): boolean {
  if (at + literal.length > body.length) return false;
  for (let k = 0; k < literal.length; k++) if (body[at + k] !== literal[k]) return false;
  return true;
}

/**
 * Copies one tx's events array, whose `[` is at `from`, as compact JSON, and reads them into
 * `events`; returns the index after its `]`, or -1 where the layout is not the one read here.
 */
function copyEvents(body: Buffer, from: number, copy: Copier, events: ChainEvent[]): number {
  let i = from + 1;
  copy.byte(OPEN_BRACKET);
  for (let first = true; body[i] !== CLOSE_BRACKET; first = false) {
    if (!first) {
      if (body[i++] !== COMMA) return -1;
      copy.byte(COMMA);
    }
    if (!startsAt(body, i, TYPE)) return -1;
    copy.byte(OPEN_BRACKET);
    i = copy.string(body, i + TYPE.length);
    if (i < 0) return -1;
    const attributes: { key: string; value: string }[] = [];
    events.push({ type: copy.text, attributes });
    copy.byte(COMMA);
    copy.byte(OPEN_BRACKET);
    if (body[i] !== CLOSE_BRACE) {
      if (!startsAt(body, i, ATTRIBUTES)) return -1;
      i += ATTRIBUTES.length;
      for (let firstAttribute = true; body[i] !== CLOSE_BRACKET; firstAttribute = false) {
        if (!firstAttribute) {
          if (body[i++] !== COMMA) return -1;
          copy.byte(COMMA);
        }
        if (!startsAt(body, i, KEY)) return -1;
        copy.byte(OPEN_BRACKET);
        i = copy.attribute(body, i + KEY.length, true);
        if (i < 0) return -1;
        const key = copy.text;
        copy.byte(COMMA);
        let value = '';
        if (startsAt(body, i, VALUE)) {
          i = copy.attribute(body, i + VALUE.length, false);
          if (i < 0) return -1;
          value = copy.text;
        } else {
          // an empty value is left out (`omitempty`)
          copy.byte(QUOTE);
          copy.byte(QUOTE);
        }
        attributes.push({ key, value });
        copy.byte(CLOSE_BRACKET);
        if (body[i] === CLOSE_BRACE) i++;
        else if (startsAt(body, i, INDEX_TRUE)) i += INDEX_TRUE.length;
        else if (startsAt(body, i, INDEX_FALSE)) i += INDEX_FALSE.length;
        else return -1;
      }
      i++; // the attributes' ]
      if (body[i] !== CLOSE_BRACE) return -1;
    }
    i++; // the event's }
    copy.byte(CLOSE_BRACKET);
    copy.byte(CLOSE_BRACKET);
  }
  copy.byte(CLOSE_BRACKET);
  return i + 1;
}

/**
 * The fast read: each `"events":[…]` of the body copied out as compact JSON and replaced by
 * its stand-in (STAND_IN and its ordinal) in the text that is parsed (the rest of the
 * answer); undefined where the body
 * is not laid out as expected. Throws where a string or the rest does not parse (read in full then).
 */
function readFast(body: Buffer, base64: boolean): ReadResults | undefined {
  const encoding = isAscii(body) ? 'latin1' : 'utf8';
  // the compact JSON is shorter than what it is copied from (each event and attribute drops
  // its field names, each array its `"events":` key), so the body's length holds it but
  // where 0.34's decoded texts need more escapes than their base64 took
  const copy = new Copier(body.length, encoding, base64);
  const rest: string[] = [];
  const ranges: number[] = [];
  const txEvents: ChainEvent[][] = [];
  let from = 0;
  for (let n = 0; ; n++) {
    const key = body.indexOf(EVENTS_KEY, from);
    if (key < 0) break;
    // an array copied here that is not a tx's events (the pattern inside a key, say) is found
    // out below: its stand-in is then not where a tx's events are
    rest.push(body.toString(encoding, from, key + EVENTS_KEY.length - 1), `"${STAND_IN}${n}"`);
    const start = copy.at;
    const events: ChainEvent[] = [];
    const end = copyEvents(body, key + EVENTS_KEY.length - 1, copy, events);
    if (end < 0) return undefined;
    ranges.push(start, copy.at);
    txEvents.push(events);
    from = end;
  }
  rest.push(body.toString(encoding, from));

  const parsed = JSON.parse(rest.join('')) as { result?: WireBlockResults; error?: unknown } | null;
  if (!parsed || typeof parsed !== 'object' || parsed.error || !parsed.result || typeof parsed.result !== 'object')
    return undefined;
  const txResults = parsed.result.txs_results ?? [];
  if (!Array.isArray(txResults)) return undefined;
  const compactEvents: (Buffer | undefined)[] = new Array(txResults.length);
  // the arrays copied must be the txs' events, in order, one each; where they are not (an
  // answer no node writes), the answer is read in full after all
  let next = 0;
  for (let t = 0; t < txResults.length; t++) {
    const result = txResults[t] as { events?: unknown } | null;
    if (!result || typeof result !== 'object') return undefined;
    if (result.events === undefined || result.events === null) continue;
    if (result.events !== `${STAND_IN}${next}`) return undefined;
    (result as { events: ChainEvent[] }).events = txEvents[next]!;
    compactEvents[t] = copy.out.subarray(ranges[2 * next]!, ranges[2 * next + 1]!);
    next++;
  }
  if (next !== txEvents.length) return undefined;
  return { answer: { result: parsed.result }, compactEvents };
}
