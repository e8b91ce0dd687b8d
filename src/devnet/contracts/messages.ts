// Parsing of contract JSON messages: the one-key enum convention of CosmWasm
// (`{"buy":{...}}`), amounts as integer strings, and zod for each variant's fields.

import { fromBase64, fromUtf8 } from '@cosmjs/encoding';
import { z } from 'zod';
import { NATIVE_DENOM } from '../constants.ts';
import { ContractError } from '../errors.ts';
import { MODULE_ACCOUNTS } from '../state/addresses.ts';
import type { CosmosMsg } from './types.ts';

/** An unsigned integer carried as a decimal string (cosmwasm_std::Uint128). */
export const uint128 = z
  .string()
  .regex(/^\d+$/, 'expected an integer string')
  .transform((v) => BigInt(v));

export function variantOf(msg: unknown, typeName: string): [string, unknown] {
  if (typeof msg !== 'object' || msg === null || Array.isArray(msg) || Object.keys(msg).length !== 1) {
    throw new ContractError(`Error parsing into type ${typeName}: expected an object with exactly one key`);
  }
  const [name, body] = Object.entries(msg)[0]!;
  return [name, body];
}

export function parseVariant<T extends z.ZodType>(
  schema: T,
  body: unknown,
  typeName: string,
  variant: string,
): z.output<T> {
  const parsed = schema.safeParse(body ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ContractError(
      `Error parsing into type ${typeName}::${variant}: ${issue.path.join('.') || 'message'}: ${issue.message}`,
    );
  }
  return parsed.data;
}

export function unknownVariant(typeName: string, variant: string): never {
  throw new ContractError(`Error parsing into type ${typeName}: unknown variant \`${variant}\``);
}

/** Decodes a cosmwasm_std::Binary carrying a JSON message (the CW20 receive hook). */
export function decodeBinaryJson(base64: string): unknown {
  try {
    return JSON.parse(fromUtf8(fromBase64(base64)));
  } catch {
    throw new ContractError('Invalid hook message: expected base64-encoded JSON');
  }
}

export function nativeFunds(funds: readonly { denom: string; amount: string }[], denom: string): bigint {
  let total = 0n;
  for (const coin of funds) {
    if (coin.denom !== denom) throw new ContractError(`Unsupported funds denom ${coin.denom}; send ${denom}`);
    total += BigInt(coin.amount);
  }
  return total;
}

/** Trading fees of the launchpad and the AMM go to the treasury account. */
export function feeTransfer(fee: bigint): CosmosMsg {
  return { kind: 'bank_send', to: MODULE_ACCOUNTS.treasury, amount: [{ denom: NATIVE_DENOM, amount: fee.toString() }] };
}
