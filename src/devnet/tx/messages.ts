// Execution of each supported message type: bank send, delegate, wasm instantiate and
// execute, and the bridge-out burn. Returns the message's events and its protobuf response.
import { fromUtf8, toUtf8 } from '@cosmjs/encoding';
import { MsgSendResponse } from 'cosmjs-types/cosmos/bank/v1beta1/tx';
import type { Coin } from 'cosmjs-types/cosmos/base/v1beta1/coin';
import { MsgDelegateResponse } from 'cosmjs-types/cosmos/staking/v1beta1/tx';
import { MsgExecuteContractResponse, MsgInstantiateContractResponse } from 'cosmjs-types/cosmwasm/wasm/v1/tx';
import type { Any } from 'cosmjs-types/google/protobuf/any';
import { NATIVE_DENOM } from '../constants.ts';
import type { CallScope, Wasm } from '../contracts/wasm.ts';
import { type ChainEvent, coinsToString, event } from '../core/events.ts';
import { GAS_COSTS } from '../core/gas.ts';
import { SdkErrors, WasmErrors } from '../errors.ts';
import { parseAccountAddress, parseValoperAddress } from '../state/addresses.ts';
import type { Bank } from '../state/bank.ts';
import type { Staking } from '../state/staking.ts';
import { MsgBurnForBridgeOutResponse } from './bridge-msg.ts';
import type { DecodedMsg } from './decode.ts';

export interface MessageModules {
  bank: Bank;
  staking: Staking;
  wasm: Wasm;
}

export const moduleOf = (typeUrl: string) => (typeUrl.split('.')[1] === 'wasm' ? 'wasm' : typeUrl.split('.')[1]!);

export function executeMessage(
  modules: MessageModules,
  scope: CallScope,
  msg: DecodedMsg,
): { events: ChainEvent[]; response: Any } {
  switch (msg.typeUrl) {
    case '/cosmos.bank.v1beta1.MsgSend': {
      const { fromAddress, toAddress, amount } = msg.value;
      requireAddress(toAddress);
      const coins = validCoins(amount);
      scope.gas.consume(GAS_COSTS.bankSend + GAS_COSTS.bankSendPerCoin * coins.length, 'bank send');
      const events = [...modules.bank.send(fromAddress, toAddress, coins), event('message', ['sender', fromAddress])];
      return { events, response: anyOf(MsgSendResponse.typeUrl, MsgSendResponse.encode({}).finish()) };
    }
    case '/cosmos.staking.v1beta1.MsgDelegate': {
      const { delegatorAddress, validatorAddress, amount } = msg.value;
      if (!parseValoperAddress(validatorAddress))
        throw SdkErrors.invalidAddress(`invalid validator address ${validatorAddress}`);
      if (!amount || amount.denom !== NATIVE_DENOM)
        throw SdkErrors.invalidRequest(
          `invalid coin denomination: got ${amount?.denom ?? ''}, expected ${NATIVE_DENOM}`,
        );
      scope.gas.consume(GAS_COSTS.delegate, 'staking delegate');
      const events = modules.staking.delegate(delegatorAddress, validatorAddress, BigInt(amount.amount));
      return { events, response: anyOf(MsgDelegateResponse.typeUrl, MsgDelegateResponse.encode({ amount }).finish()) };
    }
    case '/cosmwasm.wasm.v1.MsgInstantiateContract': {
      const { sender, codeId, msg: json, funds, label, admin } = msg.value;
      const result = modules.wasm.instantiate(
        scope,
        sender,
        Number(codeId),
        parseJson(json, 'instantiate'),
        validCoins(funds, true),
        label,
        admin || null,
      );
      const response = MsgInstantiateContractResponse.encode({
        address: result.address,
        data: dataBytes(result.data),
      }).finish();
      return { events: result.events, response: anyOf(MsgInstantiateContractResponse.typeUrl, response) };
    }
    case '/cosmwasm.wasm.v1.MsgExecuteContract': {
      const { sender, contract, msg: json, funds } = msg.value;
      const result = modules.wasm.execute(scope, sender, contract, parseJson(json, 'execute'), validCoins(funds, true));
      const response =
        result.data === undefined
          ? EMPTY_BYTES
          : MsgExecuteContractResponse.encode({ data: dataBytes(result.data) }).finish();
      return { events: result.events, response: anyOf(MsgExecuteContractResponse.typeUrl, response) };
    }
    case '/native.bridge.v1.MsgBurnForBridgeOut': {
      const { sender, amount, destinationChain, destinationAddress } = msg.value;
      if (!amount || amount.denom !== NATIVE_DENOM)
        throw SdkErrors.invalidCoins(`bridge-out burns ${NATIVE_DENOM} only`);
      if (!destinationChain || !destinationAddress)
        throw SdkErrors.invalidRequest('destination chain and address are required');
      const coins = validCoins([amount]);
      scope.gas.consume(GAS_COSTS.bridgeBurn, 'bridge burn');
      const events = [
        ...modules.bank.burn(sender, coins),
        event(
          'bridge_out',
          ['sender', sender],
          ['amount', coinsToString(coins)],
          ['destination_chain', destinationChain],
          ['destination_address', destinationAddress],
        ),
      ];
      return { events, response: anyOf(MsgBurnForBridgeOutResponse.typeUrl, new Uint8Array()) };
    }
  }
}

function requireAddress(address: string) {
  if (!parseAccountAddress(address)) throw SdkErrors.invalidAddress(`invalid address ${address}`);
}

function validCoins(coins: readonly Coin[], allowEmpty = false): Coin[] {
  if (!allowEmpty && coins.length === 0) throw SdkErrors.invalidCoins('empty amount');
  for (const coin of coins) {
    if (!/^\d+$/.test(coin.amount) || (!allowEmpty && BigInt(coin.amount) === 0n))
      throw SdkErrors.invalidCoins(coinsToString(coins));
  }
  return [...coins];
}

function parseJson(bytes: Uint8Array, what: string): unknown {
  try {
    return JSON.parse(fromUtf8(bytes));
  } catch {
    throw (what === 'instantiate' ? WasmErrors.instantiateFailed : WasmErrors.executeFailed)(
      'Error parsing into type: invalid JSON message',
    );
  }
}

/** MsgExecuteContractResponse without data encodes to no bytes. */
const EMPTY_BYTES = new Uint8Array();
const dataBytes = (data: unknown) => (data === undefined ? new Uint8Array() : toUtf8(JSON.stringify(data)));
const anyOf = (typeUrl: string, value: Uint8Array): Any => ({ typeUrl, value });
