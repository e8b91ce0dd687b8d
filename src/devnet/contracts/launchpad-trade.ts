// Trading on the launchpad's curves: buy sends unative for tokens (and may graduate the
// token), sell arrives as a CW20 receive hook from the token contract and pays unative back.
import { z } from 'zod';
import { NATIVE_DENOM } from '../constants.ts';
import { ContractError } from '../errors.ts';
import { curveBuy, curveSell } from './curve-math.ts';
import { contractEventAttributes, customEventType } from './custom-events.ts';
import { assign } from './journaled.ts';
import { graduate, graduates } from './launchpad-graduation.ts';
import { curveOf, EXECUTE_TYPE, type Launchpad, RECEIVE_TYPE, tokenRef } from './launchpad-state.ts';
import {
  decodeBinaryJson,
  feeTransfer,
  nativeFunds,
  parseVariant,
  uint128,
  unknownVariant,
  variantOf,
} from './messages.ts';
import { type ContractResponse, emptyResponse, type MessageInfo } from './types.ts';

const buySchema = tokenRef.extend({ min_tokens_out: uint128.optional() });
const receiveSchema = z.object({ sender: z.string(), amount: uint128, msg: z.string() });
const sellSchema = z.object({ min_native_out: uint128.optional() });

export function buy(launchpad: Launchpad, info: MessageInfo, body: unknown): ContractResponse {
  const { token_address: token, min_tokens_out } = parseVariant(buySchema, body, EXECUTE_TYPE, 'buy');
  const curve = curveOf(launchpad, token);
  if (curve.graduated) throw new ContractError('Token has graduated; trade it on the AMM');
  const nativeInput = nativeFunds(info.funds, NATIVE_DENOM);
  if (nativeInput === 0n) throw new ContractError(`No funds sent; send ${NATIVE_DENOM} to buy`);
  const result = curveBuy(curve, nativeInput, launchpad.config.feeBps);
  if (result.tokensOut === 0n) throw new ContractError('Buy too small: zero tokens out');
  if (min_tokens_out !== undefined && result.tokensOut < min_tokens_out) {
    throw new ContractError(`Slippage exceeded: ${result.tokensOut} tokens out is less than ${min_tokens_out}`);
  }
  assign(launchpad.host.journal, curve, result.after);
  const graduating = graduates(launchpad, result.after);
  const event = graduating ? 'buyAndGraduate' : 'buy';
  const action = customEventType(event);
  const response = emptyResponse();
  response.attributes.push(['action', action], ['token_address', token], ['buyer', info.sender]);
  response.events.push({
    type: action,
    attributes: contractEventAttributes(event, {
      token_address: token,
      buyer: info.sender,
      native_input: nativeInput,
      tokens_out: result.tokensOut,
      fee: result.fee,
      native_reserves: result.after.realNative,
    }),
    ledger: {
      kind: 'trade',
      source: 'launchpad',
      action,
      direction: 'native_to_token',
      token,
      trader: info.sender,
      inputAmount: nativeInput,
      outputAmount: result.tokensOut,
      feeUnative: result.fee,
      nativeReservesAfter: result.after.realNative,
    },
  });
  response.messages.push({
    kind: 'execute',
    contract: token,
    msg: { transfer: { recipient: info.sender, amount: result.tokensOut.toString() } },
    funds: [],
  });
  if (result.fee > 0n) response.messages.push(feeTransfer(result.fee));
  if (graduating) graduate(launchpad, curve, response);
  return response;
}

/** The CW20 receive hook: `info.sender` is the token contract, `sender` in the hook the seller. */
export function sell(launchpad: Launchpad, info: MessageInfo, body: unknown): ContractResponse {
  const hook = parseVariant(receiveSchema, body, EXECUTE_TYPE, 'receive');
  const [variant, hookBody] = variantOf(decodeBinaryJson(hook.msg), RECEIVE_TYPE);
  if (variant !== 'sell') return unknownVariant(RECEIVE_TYPE, variant);
  const { min_native_out } = parseVariant(sellSchema, hookBody, RECEIVE_TYPE, variant);
  const token = info.sender;
  const curve = curveOf(launchpad, token);
  if (curve.graduated) throw new ContractError('Token has graduated; trade it on the AMM');
  const result = curveSell(curve, hook.amount, launchpad.config.feeBps);
  if (result.nativeOut === 0n) throw new ContractError('Sell too small: zero native out');
  if (min_native_out !== undefined && result.nativeOut < min_native_out) {
    throw new ContractError(`Slippage exceeded: ${result.nativeOut} native out is less than ${min_native_out}`);
  }
  assign(launchpad.host.journal, curve, result.after);
  const response = emptyResponse();
  response.attributes.push(['action', 'sell'], ['token_address', token], ['seller', hook.sender]);
  response.events.push({
    type: customEventType('sell'),
    attributes: contractEventAttributes('sell', {
      token_address: token,
      seller: hook.sender,
      tokens_input: hook.amount,
      native_out: result.nativeOut,
      fee: result.fee,
      native_reserves: result.after.realNative,
    }),
    ledger: {
      kind: 'trade',
      source: 'launchpad',
      action: 'sell',
      direction: 'token_to_native',
      token,
      trader: hook.sender,
      inputAmount: hook.amount,
      outputAmount: result.nativeOut,
      feeUnative: result.fee,
      nativeReservesAfter: result.after.realNative,
    },
  });
  response.messages.push({
    kind: 'bank_send',
    to: hook.sender,
    amount: [{ denom: NATIVE_DENOM, amount: result.nativeOut.toString() }],
  });
  if (result.fee > 0n) response.messages.push(feeTransfer(result.fee));
  return response;
}
