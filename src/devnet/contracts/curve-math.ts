// Integer math of the launchpad's bonding curve (pump.fun style: constant product on
// virtual reserves) and of the AMM's constant-product pools. Every division floors, and the
// results never pay out more than the curve or pool holds.

export const BPS = 10_000n;

/** The fee taken out of `amount` at `feeBps` basis points (floored). */
export const feeOf = (amount: bigint, feeBps: bigint) => (amount * feeBps) / BPS;

/** Tokens out for `nativeIn` entering a constant-product pair (x·y = k), floored. */
export function constantProductOut(reserveIn: bigint, reserveOut: bigint, amountIn: bigint): bigint {
  if (amountIn <= 0n) return 0n;
  return (reserveOut * amountIn) / (reserveIn + amountIn);
}

export interface CurveReserves {
  virtualNative: bigint;
  virtualTokens: bigint;
  realNative: bigint;
  realTokens: bigint;
}

export interface CurveBuy {
  fee: bigint;
  tokensOut: bigint;
  after: CurveReserves;
}

/** A buy: the fee comes out of what the trader sends, the rest enters the curve. */
export function curveBuy(curve: CurveReserves, nativeInput: bigint, feeBps: bigint): CurveBuy {
  const fee = feeOf(nativeInput, feeBps);
  const net = nativeInput - fee;
  // The last buy of a nearly sold-out curve gets what is left; its whole payment stays in reserves.
  const tokensOut = min(constantProductOut(curve.virtualNative, curve.virtualTokens, net), curve.realTokens);
  return {
    fee,
    tokensOut,
    after: {
      virtualNative: curve.virtualNative + net,
      virtualTokens: curve.virtualTokens - tokensOut,
      realNative: curve.realNative + net,
      realTokens: curve.realTokens - tokensOut,
    },
  };
}

export interface CurveSell {
  fee: bigint;
  nativeOut: bigint;
  after: CurveReserves;
}

/** A sell: the curve pays `gross`, the fee comes out of it, the trader gets the rest. */
export function curveSell(curve: CurveReserves, tokensInput: bigint, feeBps: bigint): CurveSell {
  const gross = min(constantProductOut(curve.virtualTokens, curve.virtualNative, tokensInput), curve.realNative);
  const fee = feeOf(gross, feeBps);
  return {
    fee,
    nativeOut: gross - fee,
    after: {
      virtualNative: curve.virtualNative - gross,
      virtualTokens: curve.virtualTokens + tokensInput,
      realNative: curve.realNative - gross,
      realTokens: curve.realTokens + tokensInput,
    },
  };
}

export interface PoolReserves {
  nativeReserves: bigint;
  tokenReserves: bigint;
}

export interface PoolSwap {
  fee: bigint;
  returnAmount: bigint;
  after: PoolReserves;
}

/** native → token: the fee comes out of the offer. */
export function poolSwapNativeIn(pool: PoolReserves, offer: bigint, feeBps: bigint): PoolSwap {
  const fee = feeOf(offer, feeBps);
  const net = offer - fee;
  const returnAmount = constantProductOut(pool.nativeReserves, pool.tokenReserves, net);
  return {
    fee,
    returnAmount,
    after: { nativeReserves: pool.nativeReserves + net, tokenReserves: pool.tokenReserves - returnAmount },
  };
}

/** token → native: the fee comes out of what the pool pays. */
export function poolSwapTokenIn(pool: PoolReserves, offer: bigint, feeBps: bigint): PoolSwap {
  const gross = constantProductOut(pool.tokenReserves, pool.nativeReserves, offer);
  const fee = feeOf(gross, feeBps);
  return {
    fee,
    returnAmount: gross - fee,
    after: { nativeReserves: pool.nativeReserves - gross, tokenReserves: pool.tokenReserves + offer },
  };
}

const min = (a: bigint, b: bigint) => (a < b ? a : b);
