// Events as a node sends them, in every CometBFT protocol version in use, read into one
// plain-text form (docs/real-chains.md "Protocol versions"): Tendermint 0.34 encodes each
// attribute's key and value in base64, 0.37 and later send text; 0.34 and 0.37 report a
// block's own events as `begin_block_events` and `end_block_events`, 0.38 and 1.x as
// `finalize_block_events`. Which message of a tx emitted an event is its `msg_index`
// attribute on SDK 0.50+, and the `message` event that opens each message before that.
import { MSG_INDEX_ATTRIBUTE } from './contract-events.ts';
import type { ChainEvent } from './stored-events.ts';

/** The CometBFT RPC protocol a node speaks, from its `node_info.version`. */
export type CometProtocol = '0.34' | '0.37' | '0.38' | '1';

/**
 * The protocol of a node's version string ("0.34.27", "v0.37.4", "0.38.17", "1.0.1",
 * "0.34.24-terra.1"); a version this service does not know is read as 0.38's successor
 * shapes when 1.x or later, and as 0.37 otherwise (what cosmjs's connectComet does).
 */
export function protocolOf(version: string): CometProtocol {
  const m = /^v?(\d+)\.(\d+)/.exec(version.trim());
  if (!m) return '0.37';
  const major = Number(m[1]);
  const minor = Number(m[2]);
  if (major >= 1) return '1';
  if (minor <= 34) return '0.34';
  if (minor === 37) return '0.37';
  return minor >= 38 ? '0.38' : '0.37';
}

/** An event as any version sends it (attributes may be absent, keys and values null; dYdX leaves out `type`). */
export interface WireEvent {
  type?: string | null;
  attributes?: null | readonly { key?: string | null; value?: string | null; index?: boolean }[];
}

/**
 * 0.34's base64 attribute text, decoded. atob is several times faster than a Buffer and
 * right whenever the text is ASCII (nearly always); other text is decoded as UTF-8, and
 * what atob refuses is decoded as a Buffer decodes it (skipping what is not base64).
 */
const NOT_ASCII = /[\u0080-\uffff]/;
export function fromBase64Text(s: string | null | undefined): string {
  if (!s) return '';
  let binary: string;
  try {
    binary = atob(s);
  } catch {
    return Buffer.from(s, 'base64').toString('utf8');
  }
  return NOT_ASCII.test(binary) ? Buffer.from(s, 'base64').toString('utf8') : binary;
}

/** Attribute keys are few (a chain's modules and contracts use some hundreds): remembered decoded. */
const keys = new Map<string, string>();
export function fromBase64Key(s: string | null | undefined): string {
  if (!s) return '';
  let text = keys.get(s);
  if (text === undefined) {
    if (keys.size >= 4096) keys.clear();
    text = fromBase64Text(s);
    keys.set(s, text);
  }
  return text;
}

/**
 * Whether the protocol's event attributes are bytes, sent and printed in base64: Tendermint
 * 0.34's (its RPC, and the REST gateway of the SDKs built on it, 0.45 and 0.46), where 0.37
 * and later have text.
 */
export const attributesInBase64 = (protocol: CometProtocol): boolean => protocol === '0.34';

/** Whether an event of 0.37 or later already has the plain-text shape (a type, and a key and value to each attribute). */
function inTextForm(e: WireEvent): boolean {
  if (typeof e.type !== 'string' || !Array.isArray(e.attributes)) return false;
  for (const a of e.attributes) if (typeof a?.key !== 'string' || typeof a.value !== 'string') return false;
  return true;
}

/**
 * Events in plain text whatever the wire form (base64 in 0.34); absent keys and values are ''.
 * Events of 0.37 and later that have every type, key and value are returned as they are (their
 * attributes keep the node's `index` flags, which nothing reads).
 */
export function readEvents(events: readonly WireEvent[] | null | undefined, protocol: CometProtocol): ChainEvent[] {
  if (!events) return [];
  const base64 = attributesInBase64(protocol);
  // text as sent, every type, key and value present: the node's own objects are read as they are
  if (!base64 && events.every(inTextForm)) return events as ChainEvent[];
  return events.map((e) => ({
    type: e.type ?? '',
    attributes: (e.attributes ?? []).map((a) =>
      base64
        ? { key: fromBase64Key(a.key), value: fromBase64Text(a.value) }
        : { key: a.key ?? '', value: a.value ?? '' },
    ),
  }));
}

/** One tx's result in `block_results` (every version's field set). */
export interface WireTxResult {
  code?: number;
  codespace?: string;
  log?: string;
  info?: string;
  data?: string | null;
  gas_wanted?: string;
  gas_used?: string;
  events?: WireEvent[] | null;
}

/** `block_results` of any version. */
export interface WireBlockResults {
  height?: string;
  txs_results?: WireTxResult[] | null;
  begin_block_events?: WireEvent[] | null;
  end_block_events?: WireEvent[] | null;
  finalize_block_events?: WireEvent[] | null;
}

/** A block's own events (outside its txs) in the order they happened: begin block, then end block. */
export function blockEventsOf(results: WireBlockResults, protocol: CometProtocol): ChainEvent[] {
  if (results.finalize_block_events) return readEvents(results.finalize_block_events, protocol);
  return [...readEvents(results.begin_block_events, protocol), ...readEvents(results.end_block_events, protocol)];
}

/**
 * The index of the message that emitted each event of a tx: the `msg_index` attribute when
 * the chain sends it (SDK 0.50+: the last of that name, which the SDK appends); before that,
 * the `message` event whose first attribute is `action`, which the SDK emits first for each
 * message (0.45 to 0.47), opens the next one (messageBoundaries). The ante handler's fee
 * and signature events are given 0.
 */
export function messageIndexes(events: readonly ChainEvent[]): number[] {
  // a contract may name an attribute msg_index too (in its `wasm` and `wasm-*` events): the
  // SDK's own tag is on its modules' events, and on any event it is the last attribute
  const tagged = events.some(
    (e) =>
      !(e.type === 'wasm' || e.type.startsWith('wasm-')) && e.attributes.some((a) => a.key === MSG_INDEX_ATTRIBUTE),
  );
  if (!tagged) return messageBoundaries(events).map((m) => Math.max(0, m));
  return events.map((e) => {
    const v = e.attributes.findLast((a) => a.key === MSG_INDEX_ATTRIBUTE)?.value;
    return v !== undefined && /^\d+$/.test(v) ? Number(v) : 0;
  });
}

/**
 * Before SDK 0.50, the index of the message that emitted each event of a tx, from the
 * `message` event whose first attribute is `action`, which opens each message's events;
 * -1 for the ante handler's events: those before the first message and, where the node
 * repeats them after the last message's events (SDK 0.45 does: tm034-osmosis-1 in
 * test/fixtures/real-chains), that copy.
 */
export function messageBoundaries(events: readonly ChainEvent[]): number[] {
  const out = new Array<number>(events.length);
  let current = -1;
  let ante = 0;
  for (let i = 0; i < events.length; i++) {
    const e = events[i]!;
    if (e.type === 'message' && e.attributes[0]?.key === 'action') current++;
    else if (current < 0) ante++;
    out[i] = current;
  }
  const copyFrom = events.length - ante;
  if (ante > 0 && copyFrom > ante && events.slice(copyFrom).every((e, i) => sameEvent(e, events[i]!)))
    out.fill(-1, copyFrom);
  return out;
}

const sameEvent = (a: ChainEvent, b: ChainEvent) =>
  a.type === b.type &&
  a.attributes.length === b.attributes.length &&
  a.attributes.every((x, i) => x.key === b.attributes[i]!.key && x.value === b.attributes[i]!.value);
