// Folds a batch's domain events, in chain order, into one change per token: the
// token rows to create and the last reserves, price and graduation to apply.
import { type DomainEvent, seqOf, type TokenLaunch, type TradeSource } from '../domain/events.ts';

export interface TokenChange {
  address: string;
  /** Where the token was first seen in this batch (launchpad for launches and curve trades, amm for swaps). */
  source: TradeSource;
  launch?: TokenLaunch;
  /** Reserves after the token's last event of the batch, and that event's seq. */
  reserves: bigint;
  seq: bigint;
  /** The last trade's price and time, and its seq (0 when the batch has no trade of the token). */
  price?: bigint;
  lastTradeAt?: Date;
  tradeSeq: bigint;
  graduatedAt?: Date;
}

export function foldTokenChanges(events: readonly DomainEvent[]): Map<string, TokenChange> {
  const changes = new Map<string, TokenChange>();
  const changeOf = (address: string, source: TradeSource): TokenChange => {
    let c = changes.get(address);
    if (!c) {
      c = { address, source, reserves: 0n, seq: 0n, tradeSeq: 0n };
      changes.set(address, c);
    }
    return c;
  };
  for (const e of events) {
    const seq = seqOf(e.at);
    switch (e.kind) {
      case 'token_launch': {
        const c = changeOf(e.token, 'launchpad');
        c.launch = e;
        c.source = 'launchpad';
        c.reserves = e.initialReserves;
        c.seq = seq;
        break;
      }
      case 'trade': {
        const c = changeOf(e.trade.tokenAddress, e.trade.source);
        c.reserves = e.trade.nativeReserves;
        c.seq = seq;
        c.price = e.trade.priceUnative;
        c.lastTradeAt = e.trade.time;
        c.tradeSeq = seq;
        break;
      }
      case 'graduation': {
        const c = changeOf(e.token, 'launchpad');
        c.reserves = e.nativeForPool; // the pool's starting reserve; later swaps update it
        c.seq = seq;
        c.graduatedAt = e.at.time;
        break;
      }
    }
  }
  return changes;
}
