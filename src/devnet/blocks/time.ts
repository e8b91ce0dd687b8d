// Block time: wall-clock nanoseconds, strictly increasing, printed as CometBFT prints
// time.Time (RFC 3339 with up to nine fraction digits, trailing zeros dropped).

/** Nanoseconds since the epoch; the sub-millisecond part comes from the monotonic clock. */
export function nowNs(): bigint {
  const ms = BigInt(Date.now());
  const subMs = process.hrtime.bigint() % 1_000_000n;
  return ms * 1_000_000n + subMs;
}

/** A clock that never repeats or goes back, even if the wall clock does. */
export function createBlockClock(lastNs: bigint) {
  let last = lastNs;
  return {
    next(): bigint {
      const now = nowNs();
      last = now > last ? now : last + 1n;
      return last;
    },
  };
}

export function formatRfc3339Nano(ns: bigint): string {
  const seconds = ns / 1_000_000_000n;
  const nanos = ns % 1_000_000_000n;
  const base = new Date(Number(seconds) * 1000).toISOString().slice(0, 19);
  if (nanos === 0n) return `${base}Z`;
  return `${base}.${nanos.toString().padStart(9, '0').replace(/0+$/, '')}Z`;
}

export function toTimestamp(ns: bigint) {
  return { seconds: ns / 1_000_000_000n, nanos: Number(ns % 1_000_000_000n) };
}
