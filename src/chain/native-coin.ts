// The chain's native coin, as the chain itself says (docs/real-chains.md "The native
// coin"): its denom is the staking module's `bond_denom`, its display name and decimals
// come from the bank module's denom metadata; configuration (NATIVE_DENOM,
// NATIVE_DECIMALS, NATIVE_DISPLAY) overrides either. Nothing here assumes the devnet's coin.
import type { ChainClient } from './client.ts';

export interface NativeCoin {
  /** The base denom amounts are counted in (e.g. uatom, inj). */
  denom: string;
  /** Its display name (e.g. ATOM). */
  display: string;
  /** 10^decimals base units make one display unit. */
  decimals: number;
}

export interface NativeCoinOverrides {
  denom?: string;
  decimals?: number;
  display?: string;
}

/** SI prefixes of a base denom without metadata: `uatom` is 10^-6 ATOM, `aevmos` 10^-18 EVMOS. */
const SI_PREFIXES: Record<string, number> = { u: 6, n: 9, a: 18, m: 3 };

/**
 * Decimals and display name when the chain has no metadata for the denom: by its SI prefix
 * (`u…` 6, `n…` 9, `a…` 18, `m…` 3) when the rest is a plain name, else 0 and the denom as it is.
 */
export function guessFromDenom(denom: string): { display: string; decimals: number } {
  const prefix = denom[0] ?? '';
  const rest = denom.slice(1);
  const decimals = SI_PREFIXES[prefix];
  if (decimals !== undefined && /^[a-z]{2,}$/.test(rest)) return { display: rest.toUpperCase(), decimals };
  return { display: denom.toUpperCase(), decimals: 0 };
}

/** Reads the native coin from the chain, configuration first; throws when the node cannot say. */
export async function readNativeCoin(chain: ChainClient, overrides: NativeCoinOverrides = {}): Promise<NativeCoin> {
  const denom = overrides.denom ?? (await chain.queries.staking.params()).params?.bondDenom;
  if (!denom) throw new Error('the node reports no staking bond_denom: set NATIVE_DENOM');
  let display = overrides.display;
  let decimals = overrides.decimals;
  if (display === undefined || decimals === undefined) {
    const metadata = await chain.queries.bank.denomMetadata(denom).catch(() => undefined);
    const unit = metadata?.denomUnits.find((u) => u.denom === metadata.display);
    const guess = guessFromDenom(denom);
    decimals ??= unit ? unit.exponent : guess.decimals;
    display ??= metadata?.symbol || (unit ? metadata!.display.toUpperCase() : guess.display);
  }
  return { denom, display, decimals };
}
