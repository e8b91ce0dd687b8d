// Builds transaction bytes for the generator's traders: a real SIGN_MODE_DIRECT signature at
// demo rates, or (fast path, at benchmark rates) a placeholder signature on otherwise
// identical, well-formed TxRaw bytes, written in one pass, that the node executes as trusted.
import { Secp256k1, sha256 } from '@cosmjs/crypto';
import { toAscii, toUtf8 } from '@cosmjs/encoding';
import { makeSignBytes } from '@cosmjs/proto-signing';
import { BinaryWriter } from 'cosmjs-types/binary';
import type { Coin } from 'cosmjs-types/cosmos/base/v1beta1/coin';
import { PubKey } from 'cosmjs-types/cosmos/crypto/secp256k1/keys';
import { SignMode } from 'cosmjs-types/cosmos/tx/signing/v1beta1/signing';
import { AuthInfo, TxBody, TxRaw } from 'cosmjs-types/cosmos/tx/v1beta1/tx';
import { MsgExecuteContract } from 'cosmjs-types/cosmwasm/wasm/v1/tx';
import { concatBytes } from '../blocks/hashes.ts';
import { NATIVE_DENOM } from '../constants.ts';
import type { AccountKey } from '../state/keys.ts';

/** Enough for the most expensive generator tx (a buy that graduates); the fee is 0.01unative per gas. */
export const GENERATOR_GAS_LIMIT = 500_000n;
export const GENERATOR_FEE = 5_000n;

export interface ContractCall {
  contract: string;
  msg: unknown;
  funds: Coin[];
}

export interface SignerState {
  key: AccountKey;
  accountNumber: bigint;
  sequence: bigint;
}

const executeMsg = (signer: SignerState, call: ContractCall) =>
  MsgExecuteContract.fromPartial({
    sender: signer.key.address,
    contract: call.contract,
    msg: toUtf8(JSON.stringify(call.msg)),
    funds: call.funds,
  });

const authInfoOf = (signer: SignerState) =>
  AuthInfo.fromPartial({
    signerInfos: [
      {
        publicKey: pubkeyAny(signer.key.pubkey),
        modeInfo: { single: { mode: SignMode.SIGN_MODE_DIRECT } },
        sequence: signer.sequence,
      },
    ],
    fee: { amount: [{ denom: NATIVE_DENOM, amount: GENERATOR_FEE.toString() }], gasLimit: GENERATOR_GAS_LIMIT },
  });

/** A real signature, verified by the node like any user's transaction. */
export function buildSignedExecuteTx(chainId: string, signer: SignerState, call: ContractCall): Uint8Array {
  const any = {
    typeUrl: MsgExecuteContract.typeUrl,
    value: MsgExecuteContract.encode(executeMsg(signer, call)).finish(),
  };
  const bodyBytes = TxBody.encode(TxBody.fromPartial({ messages: [any] })).finish();
  const authInfoBytes = AuthInfo.encode(authInfoOf(signer)).finish();
  const signBytes = makeSignBytes({ bodyBytes, authInfoBytes, chainId, accountNumber: signer.accountNumber });
  const signature = Secp256k1.createSignature(sha256(signBytes), signer.key.privkey);
  return TxRaw.encode({
    bodyBytes,
    authInfoBytes,
    signatures: [concatBytes(signature.r(32), signature.s(32))],
  }).finish();
}

/**
 * The fast path: the same TxRaw, written into one buffer (cosmjs-types allocates a fresh 8 kB
 * slab per encode, which dominates at thousands of txs per block), with a 64-byte placeholder
 * signature unique to (signer, sequence). Only the node that built it executes it, as trusted.
 */
export function buildFastExecuteTx(signer: SignerState, call: ContractCall): Uint8Array {
  const placeholder = sha256(toAscii(`${signer.key.address}/${signer.sequence}`));
  const writer = BinaryWriter.create();
  // TxRaw.body_bytes = TxBody { messages: [Any { type_url, value: MsgExecuteContract }] }, byte for byte as TxBody.encode writes it.
  writer.uint32(10).fork().uint32(10).fork().uint32(10).string(MsgExecuteContract.typeUrl);
  MsgExecuteContract.encode(executeMsg(signer, call), writer.uint32(18).fork()).ldelim();
  writer.ldelim().ldelim();
  AuthInfo.encode(authInfoOf(signer), writer.uint32(18).fork()).ldelim();
  writer.uint32(26).bytes(concatBytes(placeholder, placeholder));
  return writer.finish();
}

const pubkeyAnys = new WeakMap<Uint8Array, { typeUrl: string; value: Uint8Array }>();
/** The signer's public key as an Any, encoded once per key. */
function pubkeyAny(key: Uint8Array) {
  let any = pubkeyAnys.get(key);
  if (!any) {
    any = { typeUrl: '/cosmos.crypto.secp256k1.PubKey', value: PubKey.encode({ key }).finish() };
    pubkeyAnys.set(key, any);
  }
  return any;
}
