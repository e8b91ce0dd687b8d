// The launchpad's and AMM's custom events as their contracts emit them. The names and the
// attributes, in order, are the chain's (src/chain/contract-events.ts); a contract leaves
// out the `wasm-` prefix and `_contract_address`, which the host adds (wasm.ts).
import { AMM_EVENTS, LAUNCHPAD_EVENTS } from '../../chain/contract-events.ts';

const CUSTOM_EVENTS = { ...LAUNCHPAD_EVENTS, ...AMM_EVENTS };
const HOST_PREFIX = 'wasm-';

type CustomEvent = keyof typeof CUSTOM_EVENTS;
type Attributes<E extends CustomEvent> = (typeof CUSTOM_EVENTS)[E]['attributes'];
type AttributeValues<E extends CustomEvent> = {
  [K in Attributes<E>[keyof Attributes<E>] & string]: string | bigint;
};

type Unprefixed<T> = T extends `wasm-${infer N}` ? N : never;

/** A custom event's type as the contract emits it: the chain's name without the host's prefix. */
export type CustomEventType<E extends CustomEvent> = Unprefixed<(typeof CUSTOM_EVENTS)[E]['type']>;

export function customEventType<E extends CustomEvent>(event: E): CustomEventType<E> {
  return CUSTOM_EVENTS[event].type.slice(HOST_PREFIX.length) as CustomEventType<E>;
}

/** Builds a custom event's attribute list in the chain's order. */
export function contractEventAttributes<E extends CustomEvent>(
  event: E,
  values: AttributeValues<E>,
): [string, string][] {
  return Object.values(CUSTOM_EVENTS[event].attributes).map((key: string) => [
    key,
    String((values as Record<string, string | bigint>)[key]),
  ]);
}
