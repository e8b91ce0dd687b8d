// Address derivation the way the Cosmos SDK and wasmd do it: module accounts, contract
// addresses (deterministic, 32 bytes) and bech32 rendering with the chain's prefixes.
import { sha256 } from '@cosmjs/crypto';
import { fromBech32, toAscii, toBech32 } from '@cosmjs/encoding';
import { ACCOUNT_PREFIX, VALOPER_PREFIX } from '../constants.ts';

export const toAccountAddress = (bytes: Uint8Array) => toBech32(ACCOUNT_PREFIX, bytes);
export const toValoperAddress = (bytes: Uint8Array) => toBech32(VALOPER_PREFIX, bytes);

/** SDK `authtypes.NewModuleAddress`: the first 20 bytes of sha256(module name). */
export function moduleAddress(name: string): string {
  return toAccountAddress(sha256(toAscii(name)).slice(0, 20));
}

/** SDK `address.Module(name, key)`: sha256(sha256("module") || name || 0x00 || key). */
function derivedModuleAddress(module: string, key: Uint8Array): Uint8Array {
  const typeHash = sha256(toAscii('module'));
  const name = toAscii(module);
  const input = new Uint8Array(typeHash.length + name.length + 1 + key.length);
  input.set(typeHash, 0);
  input.set(name, typeHash.length);
  input.set(key, typeHash.length + name.length + 1);
  return sha256(input);
}

/** wasmd's classic contract address: derived from the code id and the global instance id. */
export function contractAddress(codeId: number, instanceId: number): string {
  const key = new Uint8Array(16);
  const view = new DataView(key.buffer);
  view.setBigUint64(0, BigInt(codeId));
  view.setBigUint64(8, BigInt(instanceId));
  return toAccountAddress(derivedModuleAddress('wasm', key));
}

/** Checks a bech32 account address with this chain's prefix; returns null when it is not one. */
export function parseAccountAddress(address: string): Uint8Array | null {
  try {
    const { prefix, data } = fromBech32(address, 256);
    return prefix === ACCOUNT_PREFIX && (data.length === 20 || data.length === 32) ? data : null;
  } catch {
    return null;
  }
}

export function parseValoperAddress(address: string): Uint8Array | null {
  try {
    const { prefix, data } = fromBech32(address, 256);
    return prefix === VALOPER_PREFIX && data.length === 20 ? data : null;
  } catch {
    return null;
  }
}

export const MODULE_ACCOUNTS = {
  feeCollector: moduleAddress('fee_collector'),
  bondedPool: moduleAddress('bonded_tokens_pool'),
  notBondedPool: moduleAddress('not_bonded_tokens_pool'),
  distribution: moduleAddress('distribution'),
  bridge: moduleAddress('bridge'),
  /** Receives the launchpad's and the AMM's trading fees. */
  treasury: moduleAddress('launchpad_treasury'),
} as const;
