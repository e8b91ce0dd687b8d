// The launchpad's queries: its configuration, one token's curve progress, and the tokens in
// creation order (paged).
import { z } from 'zod';
import { curveOf, type Launchpad, QUERY_TYPE, thresholdOf, tokenRef } from './launchpad-state.ts';
import { parseVariant, unknownVariant, variantOf } from './messages.ts';

const tokensQuery = z.object({
  start_after: z.string().optional(),
  limit: z.number().int().min(1).max(100).default(30),
});

export function queryLaunchpad(launchpad: Launchpad, rawQuery: unknown): unknown {
  const [variant, body] = variantOf(rawQuery, QUERY_TYPE);
  switch (variant) {
    case 'config':
      return configOf(launchpad);
    case 'progress':
      return progressOf(launchpad, parseVariant(tokenRef, body, QUERY_TYPE, variant).token_address);
    case 'tokens': {
      const { start_after, limit } = parseVariant(tokensQuery, body, QUERY_TYPE, variant);
      const { order } = launchpad;
      const start = start_after ? order.indexOf(start_after) + 1 : 0;
      return { tokens: order.slice(start, start + limit).map((token) => progressOf(launchpad, token)) };
    }
    default:
      return unknownVariant(QUERY_TYPE, variant);
  }
}

function configOf(launchpad: Launchpad) {
  const { config } = launchpad;
  return {
    admin: config.admin,
    amm: config.amm,
    creation_fee: config.creationFee.toString(),
    fee_bps: Number(config.feeBps),
    native_usd_micro: config.nativeUsdMicro.toString(),
    graduation_usd_micro: config.graduationUsdMicro.toString(),
    graduation_threshold: thresholdOf(launchpad).toString(),
  };
}

function progressOf(launchpad: Launchpad, token: string) {
  const curve = curveOf(launchpad, token);
  const limit = thresholdOf(launchpad);
  const reserves = curve.graduated ? curve.finalNativeReserves : curve.realNative;
  const bps = curve.graduated ? 10_000n : (reserves * 10_000n) / limit;
  const capped = bps > 10_000n ? 10_000n : bps;
  return {
    token_address: token,
    creator: curve.creator,
    graduated: curve.graduated,
    native_reserves: reserves.toString(),
    token_reserves: curve.realTokens.toString(),
    virtual_native_reserves: curve.virtualNative.toString(),
    virtual_token_reserves: curve.virtualTokens.toString(),
    graduation_threshold: limit.toString(),
    progress_bps: Number(capped),
    progress: `${capped / 10_000n}.${(capped % 10_000n).toString().padStart(4, '0')}`,
    spot_price_unative: ((curve.virtualNative * 1_000_000n) / curve.virtualTokens).toString(),
  };
}
