// How a tx's log is kept in the index (docs/real-chains.md "Logs"). A successful tx's log on
// SDK 0.45 to 0.47 is the JSON of its ABCIMessageLogs: for each message, the events that
// message emitted, which the tx's events already hold. At indexing the log is rebuilt from
// the events in each SDK's way and compared with the node's text; when one is the very same
// text only its form is stored, and the log is rebuilt from the stored events when served.
// Any other log (an error text, another serialisation) is kept as the node wrote it: as it
// is when short, else raw-DEFLATE compressed.
import { ownBytes } from '../internal/bytes.ts';
import { sizedDeflateRaw, sizedInflateRaw } from '../internal/sized-zlib.ts';
import { messageBoundaries } from './node-events.ts';
import type { ChainEvent } from './stored-events.ts';

/**
 * How a log is rebuilt from the tx's events: `by-type` (SDK 0.45: each message's events
 * grouped by type, types sorted, attributes concatenated in order) or `as-emitted` (SDK
 * 0.46 and 0.47: each message's events in order).
 */
export type LogForm = 'by-type' | 'as-emitted';
export const LOG_FORMS: readonly LogForm[] = ['by-type', 'as-emitted'];

// The log is written through a sink: to text when served, and at indexing compared piece by
// piece with the node's text, stopping at the first difference (no 5 kB string a tx is
// built, in what runs for every tx of an SDK 0.45 to 0.47 chain). One writer, so what is
// compared is what is served.
interface Sink {
  /** JSON punctuation and names, written as they are; false stops the writer. */
  raw(text: string): boolean;
  /** A JSON string; false stops the writer. */
  string(value: string): boolean;
  /**
   * One attribute's object, `{"key":…,"value":…}` (sdk.Attribute: an empty key or value
   * left out, omitempty), after a comma unless first; false stops the writer.
   */
  attribute(key: string, value: string, first: boolean): boolean;
}

// Go's encoding/json (before Go 1.22) escapes `<`, `>`, `&`, U+2028 and U+2029, and writes
// backspace and form feed as \u0008 and \u000c, where JSON.stringify writes them as they
// are and as \b and \f. Escapes are matched whole, so an escaped backslash stays one.
const deflateLog = sizedDeflateRaw(1);

const GO_ESCAPE = /\\(.)|[<>&\u2028\u2029]/g;
const unicodeEscape = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
const goEscape = (match: string, escaped: string | undefined) =>
  escaped === undefined ? unicodeEscape(match) : escaped === 'b' ? '\\u0008' : escaped === 'f' ? '\\u000c' : match;
/** Text whose JSON is not itself between quotes: what either encoder escapes, and lone surrogates. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: JSON escapes every control character
const ESCAPED = /["\\\u0000-\u001f<>&\u2028\u2029\ud800-\udfff]/;
const goQuote = (value: string) =>
  ESCAPED.test(value) ? JSON.stringify(value).replace(GO_ESCAPE, goEscape) : `"${value}"`;

function attributeJson(key: string, value: string, first: boolean): string {
  const open = first ? '{' : ',{';
  if (!key) return value ? `${open}"value":${goQuote(value)}}` : `${open}}`;
  return value ? `${open}"key":${goQuote(key)},"value":${goQuote(value)}}` : `${open}"key":${goQuote(key)}}`;
}

function textSink() {
  let text = '';
  const sink: Sink = {
    raw(piece) {
      text += piece;
      return true;
    },
    string(value) {
      text += goQuote(value);
      return true;
    },
    attribute(key, value, first) {
      text += attributeJson(key, value, first);
      return true;
    },
  };
  return { sink, text: () => text };
}

/** Compares what is written with `log` from its start, piece by piece. A class: one is made for every tx's log. */
class MatchSink implements Sink {
  at = 0;
  constructor(private readonly log: string) {}
  // `piece` at `pos`: indexOf is faster than startsWith with a position, or a loop over the
  // code units (V8 11); a piece that is not there ends the match, so its search past `pos`
  // happens once
  private startsAt(piece: string, pos: number): boolean {
    return this.log.indexOf(piece, pos) === pos;
  }
  /** `"value"` for text JSON writes between quotes as it is. */
  private plain(value: string): boolean {
    const { log, at } = this;
    if (log.charCodeAt(at) !== 34 || !this.startsAt(value, at + 1) || log.charCodeAt(at + 1 + value.length) !== 34)
      return false;
    this.at = at + value.length + 2;
    return true;
  }
  raw(piece: string): boolean {
    if (!this.startsAt(piece, this.at)) return false;
    this.at += piece.length;
    return true;
  }
  string(value: string): boolean {
    return ESCAPED.test(value) ? this.raw(goQuote(value)) : this.plain(value);
  }
  attribute(key: string, value: string, first: boolean): boolean {
    // the usual attribute, both present and plain, compared in place
    if (!key || !value || ESCAPED.test(key) || ESCAPED.test(value)) return this.raw(attributeJson(key, value, first));
    if (!this.startsAt(first ? '{"key":' : ',{"key":', this.at)) return false;
    this.at += first ? 7 : 8;
    if (!this.plain(key) || !this.startsAt(',"value":', this.at)) return false;
    this.at += 9;
    if (!this.plain(value) || this.log.charCodeAt(this.at) !== 125) return false;
    this.at += 1;
    return true;
  }
  /** Whether what was written is the whole log. */
  whole(): boolean {
    return this.at === this.log.length;
  }
}

/**
 * sdk.StringEvent's JSON, of one event or (by type) of several with one type whose
 * attributes are concatenated: `type` left out when empty, `attributes` null when there are
 * none.
 */
function writeEvent(out: Sink, type: string, events: readonly ChainEvent[]): boolean {
  if (type ? !(out.raw('{"type":') && out.string(type) && out.raw(',"attributes":')) : !out.raw('{"attributes":'))
    return false;
  let first = true;
  for (const e of events) {
    for (const a of e.attributes) {
      if (!((first ? out.raw('[') : true) && out.attribute(a.key, a.value, first))) return false;
      first = false;
    }
  }
  return out.raw(first ? 'null}' : ']}');
}

/** A message's events as emitted (SDK 0.46, 0.47). */
function writeAsEmitted(out: Sink, events: readonly ChainEvent[]): boolean {
  for (let i = 0; i < events.length; i++) {
    if ((i > 0 && !out.raw(',')) || !writeEvent(out, events[i]!.type, [events[i]!])) return false;
  }
  return true;
}

/**
 * A message's events as SDK 0.45's StringEvents.Flatten writes them: one event a type,
 * attributes in order, types sorted (by code unit: type names are ASCII, where Go's byte
 * order is the same).
 */
function writeByType(out: Sink, events: readonly ChainEvent[]): boolean {
  const byType = new Map<string, ChainEvent[]>();
  for (const e of events) {
    const list = byType.get(e.type);
    if (list) list.push(e);
    else byType.set(e.type, [e]);
  }
  let first = true;
  for (const type of [...byType.keys()].sort()) {
    if ((!first && !out.raw(',')) || !writeEvent(out, type, byType.get(type)!)) return false;
    first = false;
  }
  return true;
}

/**
 * Writes the log a node writes for a successful tx with these events, in `form`: Go's JSON
 * of one entry per message, `msg_index` 0 left out by SDK 0.45 and written by 0.47.
 */
function writeLog(out: Sink, events: readonly ChainEvent[], form: LogForm): boolean {
  const boundaries = messageBoundaries(events);
  const messages: ChainEvent[][] = [];
  for (let i = 0; i < events.length; i++) {
    const m = boundaries[i]!;
    if (m < 0) continue;
    messages[m] ??= [];
    messages[m].push(events[i]!);
  }
  const sdk045 = form === 'by-type';
  if (!out.raw('[')) return false;
  for (let i = 0; i < messages.length; i++) {
    if (!out.raw(i === 0 ? '{' : ',{')) return false;
    if ((i > 0 || !sdk045) && !out.raw(`"msg_index":${i},`)) return false;
    if (!out.raw('"events":[')) return false;
    if (!(sdk045 ? writeByType(out, messages[i] ?? []) : writeAsEmitted(out, messages[i] ?? []))) return false;
    if (!out.raw(']}')) return false;
  }
  return out.raw(']');
}

/** The log a node writes for a successful tx with these events, in `form`. */
export function messageLog(events: readonly ChainEvent[], form: LogForm): string {
  const { sink, text } = textSink();
  writeLog(sink, events, form);
  return text();
}

/** The form that rebuilt the last log that was rebuilt: a chain's txs are all of one SDK. */
let likelyForm: LogForm = LOG_FORMS[0]!;

const rebuilds = (log: string, events: readonly ChainEvent[], form: LogForm) => {
  const sink = new MatchSink(log);
  return writeLog(sink, events, form) && sink.whole();
};

/** The form in which `log` is rebuilt from the tx's events, if one is. */
export function logFormOf(log: string, code: number, events: readonly ChainEvent[]): LogForm | null {
  if (code !== 0 || !log.startsWith('[{')) return null;
  if (rebuilds(log, events, likelyForm)) return likelyForm;
  for (const form of LOG_FORMS) {
    if (form !== likelyForm && rebuilds(log, events, form)) {
      likelyForm = form;
      return form;
    }
  }
  return null;
}

/** A tx log longer than this, unless rebuilt from its events, is stored compressed. */
export const LOG_PACKED_ABOVE = 256;

/** A tx's log as stored (sql/0011_txs_log_packed.sql, sql/0012_txs_log_form.sql). */
export interface StoredLog {
  /** The log when short and not rebuilt from the events, else ''. */
  text: string;
  /** The log raw-DEFLATE compressed when long and not rebuilt from the events. */
  packed: Buffer | null;
  /** The form in which the events rebuild the log, if they do. */
  form: LogForm | null;
}

/** How the log of a tx with this code and these events is stored. */
export function storedLog(log: string, code: number, events: readonly ChainEvent[]): StoredLog {
  if (log.length <= LOG_PACKED_ABOVE) return { text: log, packed: null, form: null };
  const form = logFormOf(log, code, events);
  if (form) return { text: '', packed: null, form };
  // copied out of zlib's output chunk, so that the tx holds its own bytes until its row is encoded
  return { text: '', packed: ownBytes(deflateLog(log)), form: null };
}

/** The log as the node wrote it, from its stored form and the tx's stored events. */
export function logOf(
  stored: { text: string; packed: Uint8Array | null; form: string | null },
  events: readonly ChainEvent[],
): string {
  if (stored.form) return messageLog(events, stored.form as LogForm);
  return stored.packed ? sizedInflateRaw(stored.packed).toString('utf8') : stored.text;
}
