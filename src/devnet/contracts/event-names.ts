// The one place naming the launchpad's and AMM's custom events and their attributes
// (docs/indexing.md "Contract events"); the host prefixes `wasm-` and puts `_contract_address` first.

export const LAUNCHPAD_EVENTS = {
  tokenCreated: 'token_created',
  buy: 'buy',
  buyAndGraduate: 'buy_and_graduate',
  sell: 'sell',
  graduate: 'graduate',
} as const;

export const AMM_EVENTS = { swap: 'swap' } as const;

export const EVENT_ATTRIBUTES = {
  token_created: ['token_address', 'creator', 'name', 'symbol', 'image', 'description', 'initial_reserves'],
  buy: ['token_address', 'buyer', 'native_input', 'tokens_out', 'fee', 'native_reserves'],
  buy_and_graduate: ['token_address', 'buyer', 'native_input', 'tokens_out', 'fee', 'native_reserves'],
  sell: ['token_address', 'seller', 'tokens_input', 'native_out', 'fee', 'native_reserves'],
  graduate: ['token_address', 'native_for_pool', 'tokens_for_pool', 'creator'],
  swap: ['token_address', 'trader', 'direction', 'offer_amount', 'return_amount', 'fee', 'native_reserves'],
} as const;

type EventName = keyof typeof EVENT_ATTRIBUTES;
type AttributesOf<N extends EventName> = { [K in (typeof EVENT_ATTRIBUTES)[N][number]]: string | bigint };

/** Builds a custom event's attribute list in the documented order. */
export function contractEventAttributes<N extends EventName>(name: N, values: AttributesOf<N>): [string, string][] {
  return EVENT_ATTRIBUTES[name].map((key) => [key, String((values as Record<string, string | bigint>)[key])]);
}
