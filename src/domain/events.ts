// What the index is about, independent of how it is read or served: the contracts it
// follows, and the token launches, trades and graduations it decodes from their events.
// The indexer produces these; the live feed and the APIs consume them.

export interface ContractAddresses {
  launchpad: string;
  amm: string;
}

/** Where an event happened on chain. */
export interface EventPosition {
  blockHeight: number;
  time: Date;
  txHash: string;
  txIndex: number;
  msgIndex: number;
  eventIndex: number;
}

export type TradeSource = 'launchpad' | 'amm';
export type TradeAction = 'buy' | 'sell' | 'swap' | 'buy_and_graduate';
export type TradeDirection = 'native_to_token' | 'token_to_native';

export interface Trade {
  time: Date;
  blockHeight: number;
  txIndex: number;
  eventIndex: number;
  msgIndex: number;
  txHash: string;
  source: TradeSource;
  action: TradeAction;
  direction: TradeDirection;
  tokenAddress: string;
  priceUnative: bigint;
  volumeUnative: bigint;
  volumeToken: bigint;
  feeUnative: bigint;
  trader: string;
  inputAmount: bigint;
  outputAmount: bigint;
  nativeReserves: bigint;
}

export interface TokenLaunch {
  kind: 'token_launch';
  at: EventPosition;
  token: string;
  creator: string;
  name: string;
  symbol: string;
  image: string;
  description: string;
  initialReserves: bigint;
}

export interface Graduation {
  kind: 'graduation';
  at: EventPosition;
  token: string;
  nativeForPool: bigint;
  tokensForPool: bigint;
  creator: string;
}

export interface TradeEvent {
  kind: 'trade';
  at: EventPosition;
  trade: Trade;
}

export type DomainEvent = TokenLaunch | Graduation | TradeEvent;

/** The chain-order key of an event, as the trades.seq column computes it. */
export function seqOf(at: { blockHeight: number; txIndex: number; eventIndex: number }): bigint {
  return (BigInt(at.blockHeight) << 32n) | (BigInt(at.txIndex) << 16n) | BigInt(at.eventIndex);
}
