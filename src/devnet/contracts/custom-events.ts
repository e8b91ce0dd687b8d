// The launchpad's and AMM's custom events: their names and attributes, in the order the
// contracts emit them. This is the contracts' own specification; a contract emits the name
// without the `wasm-` prefix and without `_contract_address`, which the host adds in front
// (wasm.ts: CUSTOM_EVENT_PREFIX, CONTRACT_ADDRESS_ATTRIBUTE), so `buy` is seen on the chain
// as `wasm-buy {_contract_address, token_address, buyer, …}`.

/** The launchpad's events: a token launched on its curve, trades on the curve, a graduation to the AMM. */
export const LAUNCHPAD_CUSTOM_EVENTS = {
  tokenCreated: {
    type: 'token_created',
    attributes: ['token_address', 'creator', 'name', 'symbol', 'image', 'description', 'initial_reserves'],
  },
  buy: {
    type: 'buy',
    attributes: ['token_address', 'buyer', 'native_input', 'tokens_out', 'fee', 'native_reserves'],
  },
  /** A buy that fills the curve; a `graduate` event follows it. */
  buyAndGraduate: {
    type: 'buy_and_graduate',
    attributes: ['token_address', 'buyer', 'native_input', 'tokens_out', 'fee', 'native_reserves'],
  },
  sell: {
    type: 'sell',
    attributes: ['token_address', 'seller', 'tokens_input', 'native_out', 'fee', 'native_reserves'],
  },
  graduate: {
    type: 'graduate',
    attributes: ['token_address', 'native_for_pool', 'tokens_for_pool', 'creator'],
  },
} as const;

/** The AMM's event: a swap either way (`direction` is `native_to_token` or `token_to_native`). */
export const AMM_CUSTOM_EVENTS = {
  swap: {
    type: 'swap',
    attributes: ['token_address', 'trader', 'direction', 'offer_amount', 'return_amount', 'fee', 'native_reserves'],
  },
} as const;

const CUSTOM_EVENTS = { ...LAUNCHPAD_CUSTOM_EVENTS, ...AMM_CUSTOM_EVENTS };

type CustomEvent = keyof typeof CUSTOM_EVENTS;
type AttributeValues<E extends CustomEvent> = {
  [K in (typeof CUSTOM_EVENTS)[E]['attributes'][number]]: string | bigint;
};

/** A custom event's type as the contract emits it (without the host's `wasm-` prefix). */
export type CustomEventType<E extends CustomEvent> = (typeof CUSTOM_EVENTS)[E]['type'];

export function customEventType<E extends CustomEvent>(event: E): CustomEventType<E> {
  return CUSTOM_EVENTS[event].type;
}

/** Builds a custom event's attribute list in the contract's order. */
export function contractEventAttributes<E extends CustomEvent>(
  event: E,
  values: AttributeValues<E>,
): [string, string][] {
  return CUSTOM_EVENTS[event].attributes.map((key: string) => [
    key,
    String((values as Record<string, string | bigint>)[key]),
  ]);
}
