// Trades for tests and benchmarks, built by the rules of docs/indexing.md "Numbers", and an
// independent in-memory candle calculation to compare the database's candles with.
import type { Trade } from '../../src/domain/events.ts';

/** A small deterministic PRNG (mulberry32) so failures reproduce. */
export function rng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1)),
    pick: <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)]!,
  };
}

let hashCounter = 0;
export function fakeTxHash(): string {
  hashCounter++;
  return (hashCounter.toString(16).padStart(16, '0') + process.pid.toString(16))
    .padEnd(64, 'A')
    .toUpperCase()
    .slice(0, 64);
}

/** A launchpad buy of `nativeIn` unative (fee 1%) returning `tokensOut` micro-tokens. */
export function makeTrade(
  fields: Partial<Trade> & Pick<Trade, 'time' | 'blockHeight' | 'tokenAddress'>,
  nativeIn = 1_000_000n,
  tokensOut = 2_000_000n,
): Trade {
  const fee = nativeIn / 100n;
  const volumeUnative = nativeIn - fee;
  return {
    txIndex: 0,
    eventIndex: 0,
    msgIndex: 0,
    txHash: fakeTxHash(),
    source: 'launchpad',
    action: 'buy',
    direction: 'native_to_token',
    priceUnative: (volumeUnative * 1_000_000n) / tokensOut,
    volumeUnative,
    volumeToken: tokensOut,
    feeUnative: fee,
    trader: 'native1trader',
    inputAmount: nativeIn,
    outputAmount: tokensOut,
    nativeReserves: 5_000_000_000n,
    ...fields,
  };
}

/** Random trades over [from, to): several per block, blocks sharing one time, shuffled. */
export function randomTrades(opts: {
  seed: number;
  from: Date;
  to: Date;
  tokens: string[];
  blocks: number;
  startHeight?: number;
}): Trade[] {
  const r = rng(opts.seed);
  const span = opts.to.getTime() - opts.from.getTime();
  const times = Array.from({ length: opts.blocks }, () => opts.from.getTime() + Math.floor(r.next() * span)).sort(
    (a, b) => a - b,
  );
  const trades: Trade[] = [];
  times.forEach((ms, b) => {
    const height = (opts.startHeight ?? 1) + b;
    const perBlock = r.int(1, 6);
    for (let i = 0; i < perBlock; i++) {
      const nativeIn = BigInt(r.int(1_000, 5_000_000_000));
      const tokensOut = BigInt(r.int(1_000, 9_000_000_000));
      trades.push(
        makeTrade(
          {
            time: new Date(ms),
            blockHeight: height,
            txIndex: i,
            eventIndex: r.int(0, 3),
            tokenAddress: r.pick(opts.tokens),
          },
          nativeIn,
          tokensOut,
        ),
      );
    }
  });
  // insertion order must not matter: open/close come from the ordering key
  for (let i = trades.length - 1; i > 0; i--) {
    const j = Math.floor(r.next() * (i + 1));
    [trades[i], trades[j]] = [trades[j]!, trades[i]!];
  }
  return trades;
}

export const TIMEFRAMES = { '1m': 60_000, '5m': 300_000, '1h': 3_600_000, '1d': 86_400_000 } as const;
export type Timeframe = keyof typeof TIMEFRAMES;

export interface ExpectedCandle {
  token: string;
  bucket: string;
  open: string;
  high: string;
  low: string;
  close: string;
  volume: string;
  trade_count: number;
}

/** expectedCandles as GET /api/candles writes them: `time` for the period's start. */
export function servedCandles(trades: readonly Trade[], timeframe: Timeframe) {
  return expectedCandles(trades, timeframe).map(({ bucket, open, high, low, close, volume, trade_count }) => ({
    time: bucket,
    open,
    high,
    low,
    close,
    volume,
    trade_count,
  }));
}

/** Candles computed in memory with BigInt: the oracle for the continuous aggregates. */
export function expectedCandles(trades: readonly Trade[], timeframe: Timeframe): ExpectedCandle[] {
  const width = TIMEFRAMES[timeframe];
  const ordered = [...trades].sort(
    (a, b) => a.blockHeight - b.blockHeight || a.txIndex - b.txIndex || a.eventIndex - b.eventIndex,
  );
  const byKey = new Map<
    string,
    { token: string; bucket: number; open: bigint; high: bigint; low: bigint; close: bigint; volume: bigint; n: number }
  >();
  for (const t of ordered) {
    const bucket = Math.floor(t.time.getTime() / width) * width;
    const key = `${t.tokenAddress}|${bucket}`;
    const c = byKey.get(key);
    if (!c)
      byKey.set(key, {
        token: t.tokenAddress,
        bucket,
        open: t.priceUnative,
        high: t.priceUnative,
        low: t.priceUnative,
        close: t.priceUnative,
        volume: t.volumeUnative,
        n: 1,
      });
    else {
      // bigints: Math.max and Math.min take numbers only
      if (t.priceUnative > c.high) c.high = t.priceUnative;
      if (t.priceUnative < c.low) c.low = t.priceUnative;
      c.close = t.priceUnative;
      c.volume += t.volumeUnative;
      c.n++;
    }
  }
  return [...byKey.values()]
    .sort((a, b) => a.token.localeCompare(b.token) || a.bucket - b.bucket)
    .map((c) => ({
      token: c.token,
      bucket: new Date(c.bucket).toISOString(),
      open: `${c.open}`,
      high: `${c.high}`,
      low: `${c.low}`,
      close: `${c.close}`,
      volume: `${c.volume}`,
      trade_count: c.n,
    }));
}
