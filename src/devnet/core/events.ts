// ABCI events as the devnet records them, the helpers that build them, and what each SDK
// version adds around a message's or a block phase's events (the `message` event that opens a
// message, `msg_index`, `mode`) and writes into a successful tx's log.
import type { Coin } from 'cosmjs-types/cosmos/base/v1beta1/coin';
import type { Protocol } from './protocol.ts';

export interface EventAttribute {
  key: string;
  value: string;
}
export interface ChainEvent {
  type: string;
  attributes: EventAttribute[];
}

export function event(type: string, ...pairs: [string, string][]): ChainEvent {
  return { type, attributes: pairs.map(([key, value]) => ({ key, value })) };
}

/** The SDK's `Coins.String()`: `100unative,5uatom`. */
export function coinsToString(coins: readonly Coin[]): string {
  return coins.map((c) => `${c.amount}${c.denom}`).join(',');
}

/** SDK v0.50 appends the message's index to every event the message emitted. */
export function withMsgIndex(events: ChainEvent[], msgIndex: number): ChainEvent[] {
  const value = String(msgIndex);
  for (const e of events) e.attributes.push({ key: 'msg_index', value });
  return events;
}

/**
 * The `message` event baseapp emits first for each message: `action` alone in SDK 0.45
 * (the modules add their own `message {module}` and `message {sender}` events), `action`,
 * `sender` (the first signer) and `module` (the second part of the type URL) from SDK 0.47.
 */
export function messageEvent(protocol: Protocol, typeUrl: string, signer: string, module: string): ChainEvent {
  return protocol.messageEvent === 'action'
    ? event('message', ['action', typeUrl])
    : event('message', ['action', typeUrl], ['sender', signer], ['module', module]);
}

export type BlockPhase = 'begin' | 'end';

/** SDK 0.47+ appends `mode` (`BeginBlock` or `EndBlock`) to every event of a block phase. */
export function withBlockMode(protocol: Protocol, events: ChainEvent[], phase: BlockPhase): ChainEvent[] {
  if (!protocol.blockEventMode) return events;
  const value = phase === 'begin' ? 'BeginBlock' : 'EndBlock';
  for (const e of events) e.attributes.push({ key: 'mode', value });
  return events;
}

/**
 * The log of a successful tx, as the SDK writes it: `ABCIMessageLogs.String()`, Go's
 * encoding/json of one entry per message. Struct tags decide the shape: `log` and an
 * attribute's empty `key`/`value` are left out (omitempty) in both SDK 0.45 and 0.47;
 * `msg_index` 0 is left out in 0.45 and always written in 0.47. SDK 0.45's
 * `StringifyEvents` flattens a message's events (one event per type, attributes concatenated
 * in order, types sorted); 0.47 keeps them as emitted. SDK 0.50 writes no log (empty).
 */
export function messageLogs(protocol: Protocol, messages: readonly (readonly ChainEvent[])[]): string {
  if (protocol.messageLogs === 'none') return '';
  const flattened = protocol.messageLogs === 'flattened';
  const logs = messages.map((events, msgIndex) => ({
    ...(!flattened || msgIndex !== 0 ? { msg_index: msgIndex } : {}),
    events: (flattened ? flattenEvents(events) : events).map(stringEvent),
  }));
  return goJson(logs);
}

/** SDK 0.45 `StringEvents.Flatten`: one event per type with the attributes in order, types sorted. */
export function flattenEvents(events: readonly ChainEvent[]): ChainEvent[] {
  const byType = new Map<string, EventAttribute[]>();
  for (const e of events) {
    const list = byType.get(e.type) ?? [];
    list.push(...e.attributes);
    byType.set(e.type, list);
  }
  // Go's sort.Strings orders by bytes; type names are ASCII, where that is code-unit order.
  return [...byType.keys()].sort(compareCodeUnits).map((type) => ({ type, attributes: byType.get(type)! }));
}

const compareCodeUnits = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** sdk.StringEvent's JSON: `type` omitempty; `attributes` null when there are none; key and value omitempty. */
function stringEvent(e: ChainEvent) {
  return {
    ...(e.type ? { type: e.type } : {}),
    attributes: e.attributes.length
      ? e.attributes.map((a) => ({ ...(a.key ? { key: a.key } : {}), ...(a.value ? { value: a.value } : {}) }))
      : null,
  };
}

/**
 * JSON as Go's encoding/json writes it: like JSON.stringify, but `<`, `>`, `&`, U+2028 and
 * U+2029 escaped as \u003c… and backspace and form feed as \u0008 and \u000c.
 */
export function goJson(value: unknown): string {
  return JSON.stringify(value).replace(/\\(.)|[<>&\u2028\u2029]/g, (match: string, escaped: string | undefined) => {
    if (escaped === undefined) return `\\u${match.charCodeAt(0).toString(16).padStart(4, '0')}`;
    if (escaped === 'b') return '\\u0008';
    if (escaped === 'f') return '\\u000c';
    return match;
  });
}
