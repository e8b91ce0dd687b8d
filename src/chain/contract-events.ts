// The one place that knows the launchpad's and AMM's event and attribute names
// (docs/indexing.md "Contract events"). A deployment whose contracts use other names changes
// only this file. Custom wasm events carry `_contract_address`, which the indexer
// checks against LAUNCHPAD_CONTRACT / AMM_CONTRACT. Each custom event's attributes are
// listed in the order the contracts emit them; the devnet's contracts emit these names in
// this order (src/devnet/contracts/custom-events.ts).

export const CONTRACT_ADDRESS_ATTRIBUTE = '_contract_address';
export const MSG_INDEX_ATTRIBUTE = 'msg_index';

export const LAUNCHPAD_EVENTS = {
  tokenCreated: {
    type: 'wasm-token_created',
    attributes: {
      token: 'token_address',
      creator: 'creator',
      name: 'name',
      symbol: 'symbol',
      image: 'image',
      description: 'description',
      initialReserves: 'initial_reserves',
    },
  },
  buy: {
    type: 'wasm-buy',
    attributes: {
      token: 'token_address',
      trader: 'buyer',
      nativeInput: 'native_input',
      tokensOut: 'tokens_out',
      fee: 'fee',
      nativeReserves: 'native_reserves',
    },
  },
  buyAndGraduate: {
    type: 'wasm-buy_and_graduate',
    attributes: {
      token: 'token_address',
      trader: 'buyer',
      nativeInput: 'native_input',
      tokensOut: 'tokens_out',
      fee: 'fee',
      nativeReserves: 'native_reserves',
    },
  },
  sell: {
    type: 'wasm-sell',
    attributes: {
      token: 'token_address',
      trader: 'seller',
      tokensInput: 'tokens_input',
      nativeOut: 'native_out',
      fee: 'fee',
      nativeReserves: 'native_reserves',
    },
  },
  graduate: {
    type: 'wasm-graduate',
    attributes: {
      token: 'token_address',
      nativeForPool: 'native_for_pool',
      tokensForPool: 'tokens_for_pool',
      creator: 'creator',
    },
  },
} as const;

/**
 * The launchpad's own `wasm` event for a new oracle price (`action` = `set_oracle_price`):
 * every curve's graduation threshold follows from that price.
 */
export const LAUNCHPAD_ORACLE_UPDATE = {
  type: 'wasm',
  actionAttribute: 'action',
  action: 'set_oracle_price',
  /** The new price: micro-USD per display unit of the native coin. */
  priceAttribute: 'native_usd_micro',
} as const;

export const AMM_EVENTS = {
  swap: {
    type: 'wasm-swap',
    attributes: {
      token: 'token_address',
      trader: 'trader',
      direction: 'direction',
      offerAmount: 'offer_amount',
      returnAmount: 'return_amount',
      fee: 'fee',
      nativeReserves: 'native_reserves',
    },
  },
} as const;

/** Values of the swap event's `direction` attribute. */
export const SWAP_DIRECTIONS = { nativeToToken: 'native_to_token', tokenToNative: 'token_to_native' } as const;

/** Smart queries the indexer sends to CW20 tokens and the launchpad. */
export const CONTRACT_QUERIES = {
  tokenInfo: { token_info: {} },
  marketingInfo: { marketing_info: {} },
  /** The launchpad's curve state of a token: reserves, graduation threshold, progress, spot price. */
  progress: (token: string) => ({ progress: { token_address: token } }),
} as const;

/**
 * cw20-base's balance events: the token's own `wasm` event (`_contract_address` = the token)
 * with `action` and `amount`, and per action the attributes naming whose balance moves
 * (`by`, the spender of a `*_from`, moves nothing). Some forks name the owner of a `*_from`
 * movement `owner` instead of `from`. Balances given at instantiation have no event.
 */
export const CW20_EVENTS = {
  type: 'wasm',
  actionAttribute: 'action',
  amount: 'amount',
  ownerFallback: 'owner',
  actions: {
    transfer: { from: 'from', to: 'to' },
    send: { from: 'from', to: 'to' },
    transfer_from: { from: 'from', to: 'to' },
    send_from: { from: 'from', to: 'to' },
    mint: { to: 'to' },
    burn: { from: 'from' },
    burn_from: { from: 'from' },
  },
} as const;

/**
 * Where the index learns that a CW20 was created and who got its supply: a token the
 * launchpad creates (`wasm-token_created`) starts with its whole supply on the launchpad; a
 * token the AMM creates with `create_token_pool` (no custom event: the AMM's `wasm` event with
 * this `action` names it in `token_address`) starts with its whole supply on the AMM.
 */
export const AMM_TOKEN_CREATED = {
  type: 'wasm',
  actionAttribute: 'action',
  action: 'create_token_pool',
  token: 'token_address',
} as const;
