// The devnet's fixed contract code ids and the addresses of the launchpad and AMM, which
// are the same on every devnet (like wasmd's classic addresses from code id + instance id).
import { contractAddress } from '../state/addresses.ts';

export const CODE_IDS = { cw20: 1, launchpad: 2, amm: 3 } as const;

/** Instance 1 is the launchpad and instance 2 the AMM; tokens take the ids after them. */
export const FIRST_TOKEN_INSTANCE_ID = 3;

export const DEVNET_CONTRACTS = {
  launchpad: contractAddress(CODE_IDS.launchpad, 1),
  amm: contractAddress(CODE_IDS.amm, 2),
} as const;
