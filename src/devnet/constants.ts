// Fixed facts of the devnet chain: identifiers, denominations, prefixes and module parameters.
// Other devnet modules read these instead of repeating literals.

export const DEVNET_CHAIN_ID = 'native-devnet-1';
export const ACCOUNT_PREFIX = 'native';
export const VALOPER_PREFIX = 'nativevaloper';
export const VALCONS_PREFIX = 'nativevalcons';
export const NATIVE_DENOM = 'unative';
export const NATIVE_DISPLAY_DENOM = 'NATIVE';

/** The devnet's well-known test mnemonic (accounts 0..9 are funded at genesis). Never use it on a real chain. */
export const DEFAULT_DEVNET_MNEMONIC =
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';

/** The application's own version; the CometBFT and SDK versions follow the protocol (core/protocol.ts). */
export const APP_VERSION = '1.0.0';
export const NODE_MONIKER = 'native-devnet';

/** Each of accounts 0..9 (and each generator trader) starts with 1,000,000 NATIVE. */
export const GENESIS_ACCOUNT_BALANCE = 1_000_000_000_000n;
/** Accounts 10.. of the mnemonic trade for the traffic generator, so accounts 0..9 stay free for callers. */
export const GENERATOR_TRADER_FIRST_INDEX = 10;
export const GENERATOR_TRADER_COUNT = 20;

/** Minimum gas price of this node's CheckTx: 0.01unative per unit of gas. */
export const MIN_GAS_PRICE = { numerator: 1n, denominator: 100n } as const;

export const STAKING_PARAMS = {
  unbondingTimeSeconds: 1_814_400n,
  maxValidators: 100,
  maxEntries: 7,
  historicalEntries: 10_000,
  bondDenom: NATIVE_DENOM,
  minCommissionRate: '0',
} as const;

export const MINT_PARAMS = {
  mintDenom: NATIVE_DENOM,
  inflationRateChange: '0',
  inflationMax: '0',
  inflationMin: '0',
  goalBonded: '0.67',
  blocksPerYear: 6_311_520n,
} as const;

export const GOV_PARAMS = {
  minDepositAmount: 10_000_000n,
  maxDepositPeriodSeconds: 172_800n,
  votingPeriodSeconds: 172_800n,
  expeditedVotingPeriodSeconds: 86_400n,
  quorum: '0.334000000000000000',
  threshold: '0.500000000000000000',
  vetoThreshold: '0.334000000000000000',
  expeditedThreshold: '0.667000000000000000',
  minInitialDepositRatio: '0.000000000000000000',
  proposalCancelRatio: '0.500000000000000000',
  minDepositRatio: '0.010000000000000000',
} as const;

export const NATIVE_METADATA = {
  description: 'The native staking and fee token of the chain.',
  denomUnits: [
    { denom: NATIVE_DENOM, exponent: 0, aliases: ['micronative'] },
    { denom: NATIVE_DISPLAY_DENOM, exponent: 6, aliases: [] },
  ],
  base: NATIVE_DENOM,
  display: NATIVE_DISPLAY_DENOM,
  name: 'Native',
  symbol: NATIVE_DISPLAY_DENOM,
  uri: '',
  uriHash: '',
};
