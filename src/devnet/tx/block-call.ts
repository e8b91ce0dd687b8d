// A contract call a block makes outside any tx, as a cron or clock module or governance
// does: a CosmWasm execute in the block's BeginBlock or EndBlock. The block log records the
// calls with the block, so a restart replays them where they ran.
import type { Coin } from 'cosmjs-types/cosmos/base/v1beta1/coin';
import type { BlockPhase } from '../core/events.ts';
import { SdkErrors } from '../errors.ts';
import { parseAccountAddress } from '../state/addresses.ts';

export interface BlockCall {
  phase: BlockPhase;
  /** Whose funds go with the call and who the contract sees as the sender (a module or any account). */
  sender: string;
  contract: string;
  /** The execute message (JSON). */
  msg: unknown;
  funds: Coin[];
}

/** A block call as the caller describes it, checked: valid addresses, a JSON message, whole-number funds. */
export function blockCallOf(input: {
  sender: string;
  contract: string;
  msg: unknown;
  funds?: readonly Coin[];
  phase?: BlockPhase;
}): BlockCall {
  const phase = input.phase ?? 'end';
  if (phase !== 'begin' && phase !== 'end') throw new RangeError(`phase must be 'begin' or 'end', got ${phase}`);
  for (const address of [input.sender, input.contract]) {
    if (!parseAccountAddress(address)) throw SdkErrors.invalidAddress(`invalid address ${address}`);
  }
  const msg = JSON.parse(JSON.stringify(input.msg ?? null)) as unknown;
  if (msg === null || typeof msg !== 'object') throw new TypeError('msg must be a JSON object');
  const funds = (input.funds ?? []).map(({ denom, amount }) => {
    if (!denom || !/^\d+$/.test(amount)) throw SdkErrors.invalidCoins(`${amount}${denom}`);
    return { denom, amount };
  });
  return { phase, sender: input.sender, contract: input.contract, msg, funds };
}
