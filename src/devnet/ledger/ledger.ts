// The devnet's record of what it executed, independent of how events are encoded:
// every trade, token launch and graduation with its block, tx and amounts, for tests to
// compare an index against ("every trade appears exactly once with every field right").

export type TradeAction = 'buy' | 'sell' | 'swap' | 'buy_and_graduate';
export type TradeDirection = 'native_to_token' | 'token_to_native';

export interface LedgerTrade {
  height: number;
  /** Block time, RFC 3339 with nanoseconds as CometBFT prints it. */
  time: string;
  /** The tx's hash; for a contract call the block made itself (BeginBlock, EndBlock), the block's hash. */
  txHash: string;
  /** The tx's position in its block; 32767 (after any tx) for a block's own call. */
  txIndex: number;
  /** The message of the tx that ran the trade; 0 for a block's own call. */
  msgIndex: number;
  /**
   * Index of the trade's `wasm-*` event within the tx's events (`tx_result.events`); for a
   * block's own call, within the block's own events, BeginBlock's then EndBlock's (in 0.38 the
   * index in `finalize_block_events`).
   */
  eventIndex: number;
  source: 'launchpad' | 'amm';
  action: TradeAction;
  direction: TradeDirection;
  token: string;
  trader: string;
  /** What the trader sent: unative for native→token, micro-tokens for token→native. */
  inputAmount: bigint;
  /** What the trader received. */
  outputAmount: bigint;
  feeUnative: bigint;
  /** docs/indexing.md "Numbers": native that crossed the curve or pool, and token volume. */
  volumeUnative: bigint;
  volumeToken: bigint;
  priceUnative: bigint;
  nativeReservesAfter: bigint;
}

export interface LedgerLaunch {
  height: number;
  time: string;
  txHash: string;
  token: string;
  source: 'launchpad' | 'amm';
  creator: string;
  name: string;
  symbol: string;
  image: string;
  description: string;
  initialReserves: bigint;
}

export interface LedgerGraduation {
  height: number;
  time: string;
  txHash: string;
  token: string;
  nativeForPool: bigint;
  tokensForPool: bigint;
  creator: string;
}

export interface DevnetLedger {
  readonly trades: readonly LedgerTrade[];
  readonly launches: readonly LedgerLaunch[];
  readonly graduations: readonly LedgerGraduation[];
  tradesOf(token: string): LedgerTrade[];
}

type Position = 'height' | 'time' | 'txHash' | 'txIndex' | 'msgIndex' | 'eventIndex';

/** What a contract knows when it emits an event; the chain adds where it happened. */
export type LedgerDraft =
  | ({ kind: 'trade' } & Omit<LedgerTrade, Position | 'volumeUnative' | 'volumeToken' | 'priceUnative'>)
  | ({ kind: 'launch' } & Omit<LedgerLaunch, 'height' | 'time' | 'txHash'>)
  | ({ kind: 'graduation' } & Omit<LedgerGraduation, 'height' | 'time' | 'txHash'>);

export interface LedgerWriter extends DevnetLedger {
  append(
    draft: LedgerDraft,
    where: { height: number; time: string; txHash: string; txIndex: number; msgIndex: number; eventIndex: number },
  ): void;
}

/** Volumes and price of a trade as docs/indexing.md "Numbers" defines them. */
export function tradeVolumes(t: {
  direction: TradeDirection;
  inputAmount: bigint;
  outputAmount: bigint;
  feeUnative: bigint;
}) {
  const volumeUnative =
    t.direction === 'native_to_token' ? t.inputAmount - t.feeUnative : t.outputAmount + t.feeUnative;
  const volumeToken = t.direction === 'native_to_token' ? t.outputAmount : t.inputAmount;
  const priceUnative = volumeToken === 0n ? 0n : (volumeUnative * 1_000_000n) / volumeToken;
  return { volumeUnative, volumeToken, priceUnative };
}

export function createLedger(): LedgerWriter {
  // Addresses repeat across millions of trades; one string per address keeps the ledger small.
  const interned = new Map<string, string>();
  const intern = (value: string) => {
    const existing = interned.get(value);
    if (existing !== undefined) return existing;
    interned.set(value, value);
    return value;
  };
  const trades: LedgerTrade[] = [];
  const launches: LedgerLaunch[] = [];
  const graduations: LedgerGraduation[] = [];
  return {
    trades,
    launches,
    graduations,
    tradesOf: (token) => trades.filter((t) => t.token === token),
    append(draft, where) {
      const { height, time, txHash } = where;
      if (draft.kind === 'trade') {
        const { kind: _, ...rest } = draft;
        trades.push({
          ...where,
          ...rest,
          token: intern(rest.token),
          trader: intern(rest.trader),
          ...tradeVolumes(rest),
        });
      } else if (draft.kind === 'launch') {
        const { kind: _, ...rest } = draft;
        launches.push({ height, time, txHash, ...rest });
      } else {
        const { kind: _, ...rest } = draft;
        graduations.push({ height, time, txHash, ...rest });
      }
    },
  };
}
