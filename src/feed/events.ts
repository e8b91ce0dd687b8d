// The live feed's events and their payloads (docs/launchpad-api.md, "Live feed"): built
// once by the indexer from the domain events and stored in the outbox exactly as SSE
// clients receive them.
import type { DomainEvent } from '../domain/events.ts';

export const FEED_EVENT_NAMES = ['trade', 'token_launch', 'graduation'] as const;
export type FeedEventName = (typeof FEED_EVENT_NAMES)[number];

export interface FeedRow {
  event: FeedEventName;
  tokenAddress: string;
  eventKey: string;
  blockHeight: number;
  data: Record<string, string>;
}

export function feedRowOf(e: DomainEvent): FeedRow {
  const eventKey = `${e.at.txHash}:${e.at.msgIndex}:${e.at.eventIndex}`;
  const time = e.at.time.toISOString();
  const base = { eventKey, blockHeight: e.at.blockHeight };
  switch (e.kind) {
    case 'trade': {
      const t = e.trade;
      return {
        ...base,
        event: 'trade',
        tokenAddress: t.tokenAddress,
        data: {
          token_address: t.tokenAddress,
          action: t.action,
          direction: t.direction,
          input_amount: t.inputAmount.toString(),
          output_amount: t.outputAmount.toString(),
          price_unative: t.priceUnative.toString(),
          trader: t.trader,
          tx_hash: t.txHash,
          time,
          native_reserves: t.nativeReserves.toString(),
        },
      };
    }
    case 'token_launch':
      return {
        ...base,
        event: 'token_launch',
        tokenAddress: e.token,
        data: { token_address: e.token, creator: e.creator, initial_reserves: e.initialReserves.toString(), time },
      };
    case 'graduation':
      return {
        ...base,
        event: 'graduation',
        tokenAddress: e.token,
        data: {
          token_address: e.token,
          native_for_pool: e.nativeForPool.toString(),
          tokens_for_pool: e.tokensForPool.toString(),
          creator: e.creator,
          time,
        },
      };
  }
}
