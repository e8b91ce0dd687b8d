// ABCI events as the devnet records them, and the helpers that build them.
import type { Coin } from 'cosmjs-types/cosmos/base/v1beta1/coin';

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
