// Graduation: when a buy fills the curve's threshold (or its last token), the curve closes
// and its reserves plus the tokens held back for the pool go to the AMM, which opens a pool.
import { NATIVE_DENOM } from '../constants.ts';
import { contractEventAttributes, customEventType } from './custom-events.ts';
import { cw20SendMsg } from './cw20.ts';
import { assign } from './journaled.ts';
import { CURVE_TOKENS, type Curve, type Launchpad, TOKEN_TOTAL_SUPPLY, thresholdOf } from './launchpad-state.ts';
import type { ContractResponse } from './types.ts';

/** Whether a curve with these reserves graduates. */
export const graduates = (launchpad: Launchpad, after: { realNative: bigint; realTokens: bigint }) =>
  after.realNative >= thresholdOf(launchpad) || after.realTokens === 0n;

/** Closes the curve and adds the graduation event and the messages that seed the AMM pool. */
export function graduate(launchpad: Launchpad, curve: Curve, response: ContractResponse): void {
  const { config } = launchpad;
  const nativeForPool = curve.realNative;
  const tokensForPool = curve.realTokens + (TOKEN_TOTAL_SUPPLY - CURVE_TOKENS);
  assign(launchpad.host.journal, curve, {
    graduated: true,
    finalNativeReserves: nativeForPool,
    realNative: 0n,
    realTokens: 0n,
  });
  response.events.push({
    type: customEventType('graduate'),
    attributes: contractEventAttributes('graduate', {
      token_address: curve.token,
      native_for_pool: nativeForPool,
      tokens_for_pool: tokensForPool,
      creator: curve.creator,
    }),
    ledger: { kind: 'graduation', token: curve.token, nativeForPool, tokensForPool, creator: curve.creator },
  });
  response.messages.push(
    { kind: 'bank_send', to: config.amm, amount: [{ denom: NATIVE_DENOM, amount: nativeForPool.toString() }] },
    {
      kind: 'execute',
      contract: curve.token,
      msg: cw20SendMsg(config.amm, tokensForPool, { create_pool: { native_amount: nativeForPool.toString() } }),
      funds: [],
    },
  );
}
