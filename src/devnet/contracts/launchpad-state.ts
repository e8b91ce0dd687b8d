// The launchpad's parameters and state: the token economics, the configuration (admin, AMM,
// fees, oracle price), and one bonding curve per token in creation order.
import { z } from 'zod';
import { ContractError } from '../errors.ts';
import type { CurveReserves } from './curve-math.ts';
import type { ContractHost } from './types.ts';

/** 1,000,000,000 tokens of 6 decimals: 800M are sold on the curve, 200M seed the AMM pool. */
export const TOKEN_TOTAL_SUPPLY = 1_000_000_000_000_000n;
export const CURVE_TOKENS = 800_000_000_000_000n;
export const VIRTUAL_NATIVE = 30_000_000_000n;
export const VIRTUAL_TOKENS = 1_073_000_000_000_000n;
export const TOKEN_DECIMALS = 6;

export const LAUNCHPAD_DEFAULTS = {
  creationFee: 1_000_000n,
  feeBps: 100n,
  /** NATIVE at $0.50 (micro-USD per NATIVE). */
  nativeUsdMicro: 500_000n,
  /** Graduation when the curve's reserves are worth $12,000. */
  graduationUsdMicro: 12_000_000_000n,
};

export const EXECUTE_TYPE = 'launchpad::msg::ExecuteMsg';
export const QUERY_TYPE = 'launchpad::msg::QueryMsg';
export const RECEIVE_TYPE = 'launchpad::msg::ReceiveMsg';
export const tokenRef = z.object({ token_address: z.string().min(1) });

export interface Curve extends CurveReserves {
  token: string;
  creator: string;
  graduated: boolean;
  /** Reserves at the moment of graduation (the curve is empty afterwards). */
  finalNativeReserves: bigint;
}

export interface LaunchpadConfig {
  admin: string;
  amm: string;
  creationFee: bigint;
  feeBps: bigint;
  nativeUsdMicro: bigint;
  graduationUsdMicro: bigint;
}

/** One launchpad instance: its host, its own address, its configuration and its curves. */
export interface Launchpad {
  readonly host: ContractHost;
  readonly self: string;
  readonly config: LaunchpadConfig;
  readonly curves: Map<string, Curve>;
  /** Token addresses in creation order. */
  readonly order: string[];
}

export function createLaunchpad(host: ContractHost, self: string, init: { admin: string; amm: string }): Launchpad {
  return {
    host,
    self,
    config: { admin: init.admin, amm: init.amm, ...LAUNCHPAD_DEFAULTS },
    curves: new Map(),
    order: [],
  };
}

/** Graduation threshold in unative: the USD target divided by the USD price of one unative. */
export function graduationThreshold(graduationUsdMicro: bigint, nativeUsdMicro: bigint): bigint {
  return (graduationUsdMicro * 1_000_000n + nativeUsdMicro - 1n) / nativeUsdMicro;
}

export const thresholdOf = ({ config }: Launchpad) =>
  graduationThreshold(config.graduationUsdMicro, config.nativeUsdMicro);

export function curveOf(launchpad: Launchpad, token: string): Curve {
  const curve = launchpad.curves.get(token);
  if (!curve) throw new ContractError(`Unknown token ${token}`);
  return curve;
}
