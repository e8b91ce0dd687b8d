// Timestamp text as the Cosmos SDK's REST gateway prints protobuf Timestamps
// (gogoproto jsonpb): RFC 3339 in UTC with 0, 3, 6 or 9 fractional digits.

/** `nanos` are the nanoseconds within the second (0..999999999). */
export function protoTimestamp(date: Date, nanosWithinSecond = (date.getTime() % 1000) * 1_000_000): string {
  const seconds = date.toISOString().slice(0, 19);
  if (nanosWithinSecond === 0) return `${seconds}Z`;
  let frac = String(nanosWithinSecond).padStart(9, '0');
  if (frac.endsWith('000000')) frac = frac.slice(0, 3);
  else if (frac.endsWith('000')) frac = frac.slice(0, 6);
  return `${seconds}.${frac}Z`;
}

/** Nanoseconds within the second of a cosmjs date (Date + `nanoseconds` beyond the millisecond). */
export function nanosOf(date: Date & { nanoseconds?: number }): number {
  return (date.getTime() % 1000) * 1_000_000 + (date.nanoseconds ?? 0);
}
