// Builds signed transaction bytes for the generator's traders: a real SIGN_MODE_DIRECT
// signature at demo rates, or (fast path, at benchmark rates) a placeholder signature over
// otherwise identical, well-formed TxRaw bytes that the node executes as trusted.
import { Secp256k1, sha256 } from '@cosmjs/crypto';
import { toUtf8 } from '@cosmjs/encoding';
import { makeSignBytes } from '@cosmjs/proto-signing';
import type { Coin } from 'cosmjs-types/cosmos/base/v1beta1/coin';
import { PubKey } from 'cosmjs-types/cosmos/crypto/secp256k1/keys';
import { SignMode } from 'cosmjs-types/cosmos/tx/signing/v1beta1/signing';
import { AuthInfo, TxBody, TxRaw } from 'cosmjs-types/cosmos/tx/v1beta1/tx';
import { MsgExecuteContract } from 'cosmjs-types/cosmwasm/wasm/v1/tx';
import { NATIVE_DENOM } from '../constants.ts';
import { concatBytes } from '../blocks/hashes.ts';
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

export function buildExecuteTx(chainId: string, signer: SignerState, call: ContractCall, sign: boolean): Uint8Array {
  const execute = MsgExecuteContract.fromPartial({
    sender: signer.key.address,
    contract: call.contract,
    msg: toUtf8(JSON.stringify(call.msg)),
    funds: call.funds,
  });
  const bodyBytes = TxBody.encode(
    TxBody.fromPartial({ messages: [{ typeUrl: MsgExecuteContract.typeUrl, value: MsgExecuteContract.encode(execute).finish() }], memo: '' }),
  ).finish();
  const authInfoBytes = AuthInfo.encode(
    AuthInfo.fromPartial({
      signerInfos: [
        {
          publicKey: pubkeyAny(signer.key.pubkey),
          modeInfo: { single: { mode: SignMode.SIGN_MODE_DIRECT } },
          sequence: signer.sequence,
        },
      ],
      fee: { amount: [{ denom: NATIVE_DENOM, amount: GENERATOR_FEE.toString() }], gasLimit: GENERATOR_GAS_LIMIT },
    }),
  ).finish();
  const signature = sign
    ? signDirect(chainId, signer, bodyBytes, authInfoBytes)
    : concatBytes(sha256(bodyBytes), sha256(authInfoBytes));
  return TxRaw.encode({ bodyBytes, authInfoBytes, signatures: [signature] }).finish();
}

function signDirect(chainId: string, signer: SignerState, bodyBytes: Uint8Array, authInfoBytes: Uint8Array): Uint8Array {
  const signBytes = makeSignBytes({ bodyBytes, authInfoBytes, chainId, accountNumber: signer.accountNumber });
  const signature = Secp256k1.createSignature(sha256(signBytes), signer.key.privkey);
  return concatBytes(signature.r(32), signature.s(32));
}

const pubkeyAnys = new WeakMap<Uint8Array, { typeUrl: string; value: Uint8Array }>();
/** The signer's public key as an Any, encoded once per key. */
function pubkeyAny(key: Uint8Array) {
  let any = pubkeyAnys.get(key);
  if (!any) pubkeyAnys.set(key, (any = { typeUrl: '/cosmos.crypto.secp256k1.PubKey', value: PubKey.encode({ key }).finish() }));
  return any;
}
