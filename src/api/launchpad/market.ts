// The market figures of a token (docs/launchpad-api.md "Token"), computed exactly from the
// index's integers: market cap, price change, and the USD figures from the native coin's
// USD price (a decimal the price source gives, taken at its written value).

/** A price is native base units per 10^6 token base units. */
const PRICE_SCALE = 10n ** 6n;

/** Native base units of the whole supply at `price`: supply × price ÷ 10^6, floored. */
export function marketCap(totalSupply: string, price: string): string {
  return ((BigInt(totalSupply) * BigInt(price)) / PRICE_SCALE).toString();
}

/**
 * The change from `before` to `now` in percent, truncated toward zero to 2 decimals
 * ("12.34", "-3.00"); null when there is no price before (or it was 0).
 */
export function percentChange(now: string, before: string | null): string | null {
  if (before === null || BigInt(before) === 0n) return null;
  const hundredths = ((BigInt(now) - BigInt(before)) * 10_000n) / BigInt(before);
  const sign = hundredths < 0n ? '-' : '';
  const abs = hundredths < 0n ? -hundredths : hundredths;
  return `${sign}${abs / 100n}.${(abs % 100n).toString().padStart(2, '0')}`;
}

/** A non-negative number as an exact fraction of integers: its shortest decimal writing. */
export function fraction(n: number): { num: bigint; den: bigint } {
  if (!Number.isFinite(n) || n < 0) throw new RangeError(`not a price: ${n}`);
  const [mantissa = '0', exponent = '0'] = n.toString().toLowerCase().split('e');
  const [whole = '0', decimals = ''] = mantissa.split('.');
  let num = BigInt(whole + decimals);
  let den = 10n ** BigInt(decimals.length);
  const e = Number(exponent);
  if (e > 0) num *= 10n ** BigInt(e);
  else den *= 10n ** BigInt(-e);
  return { num, den };
}

/** USD figures keep this many significant digits. */
export const USD_DIGITS = 12;

/**
 * num ÷ den written as a plain decimal (no exponent) of at most `digits` significant digits,
 * rounded half up, trailing zeros dropped: "0.000001234", "1234.5", "0".
 */
export function significant(num: bigint, den: bigint, digits = USD_DIGITS): string {
  if (num === 0n) return '0';
  // the power of ten of the first digit: 10^p <= num/den < 10^(p+1)
  let p = num.toString().length - den.toString().length;
  if (num * 10n ** BigInt(Math.max(0, -p)) < den * 10n ** BigInt(Math.max(0, p))) p--;
  // scaled = round(num/den × 10^(digits-1-p))
  const shift = digits - 1 - p;
  const n = shift >= 0 ? num * 10n ** BigInt(shift) : num;
  const d = shift >= 0 ? den : den * 10n ** BigInt(-shift);
  let scaled = (2n * n + d) / (2n * d);
  let exp = -shift; // value = scaled × 10^exp
  while (scaled > 0n && scaled % 10n === 0n) {
    scaled /= 10n;
    exp++;
  }
  const s = scaled.toString();
  if (exp >= 0) return s + '0'.repeat(exp);
  const point = s.length + exp;
  return point > 0 ? `${s.slice(0, point)}.${s.slice(point)}` : `0.${'0'.repeat(-point)}${s}`;
}

/** What turns native base units into USD: the native coin's decimals and its USD price (0: unknown). */
export interface UsdRate {
  nativeDecimals: number;
  nativeUsd: number;
}

/** `amount` native base units in USD (USD_DIGITS significant digits); null while no USD price is known. */
export function nativeToUsd(amount: string, rate: UsdRate | undefined): string | null {
  if (!rate || !(rate.nativeUsd > 0)) return null;
  const usd = fraction(rate.nativeUsd);
  return significant(BigInt(amount) * usd.num, usd.den * 10n ** BigInt(rate.nativeDecimals));
}

/**
 * The USD price of one whole token (10^decimals base units) at `price` (native base units per
 * 10^6 token base units); null while no USD price or the token's decimals are unknown.
 */
export function tokenUsd(price: string, decimals: number | null, rate: UsdRate | undefined): string | null {
  if (!rate || !(rate.nativeUsd > 0) || decimals === null) return null;
  const usd = fraction(rate.nativeUsd);
  return significant(
    BigInt(price) * 10n ** BigInt(decimals) * usd.num,
    PRICE_SCALE * usd.den * 10n ** BigInt(rate.nativeDecimals),
  );
}
