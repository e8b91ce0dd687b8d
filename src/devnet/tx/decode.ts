// Decoding of transaction bytes (TxRaw → body, auth info, messages) with the SDK's
// `tx parse error` for anything malformed; the tx hash is the upper-case hex SHA-256.
import { sha256 } from '@cosmjs/crypto';
import { toHex } from '@cosmjs/encoding';
import { MsgSend } from 'cosmjs-types/cosmos/bank/v1beta1/tx';
import { MsgDelegate } from 'cosmjs-types/cosmos/staking/v1beta1/tx';
import { AuthInfo, TxBody, TxRaw } from 'cosmjs-types/cosmos/tx/v1beta1/tx';
import { MsgExecuteContract, MsgInstantiateContract } from 'cosmjs-types/cosmwasm/wasm/v1/tx';
import { SdkErrors } from '../errors.ts';
import { MsgBurnForBridgeOut } from './bridge-msg.ts';

export type DecodedMsg =
  | { typeUrl: '/cosmos.bank.v1beta1.MsgSend'; value: MsgSend }
  | { typeUrl: '/cosmos.staking.v1beta1.MsgDelegate'; value: MsgDelegate }
  | { typeUrl: '/cosmwasm.wasm.v1.MsgInstantiateContract'; value: MsgInstantiateContract }
  | { typeUrl: '/cosmwasm.wasm.v1.MsgExecuteContract'; value: MsgExecuteContract }
  | { typeUrl: '/native.bridge.v1.MsgBurnForBridgeOut'; value: MsgBurnForBridgeOut };

export interface DecodedTx {
  hash: string;
  raw: TxRaw;
  body: TxBody;
  authInfo: AuthInfo;
  messages: DecodedMsg[];
  /** The one signer every message names (the devnet supports single-signer transactions). */
  signer: string;
}

const codecs = {
  [MsgSend.typeUrl]: { codec: MsgSend, signer: (m: MsgSend) => m.fromAddress },
  [MsgDelegate.typeUrl]: { codec: MsgDelegate, signer: (m: MsgDelegate) => m.delegatorAddress },
  [MsgInstantiateContract.typeUrl]: { codec: MsgInstantiateContract, signer: (m: MsgInstantiateContract) => m.sender },
  [MsgExecuteContract.typeUrl]: { codec: MsgExecuteContract, signer: (m: MsgExecuteContract) => m.sender },
  [MsgBurnForBridgeOut.typeUrl]: { codec: MsgBurnForBridgeOut, signer: (m: MsgBurnForBridgeOut) => m.sender },
} as Record<string, { codec: { decode(b: Uint8Array): unknown }; signer(m: unknown): string }>;

export const txHash = (bytes: Uint8Array) => toHex(sha256(bytes)).toUpperCase();

export function decodeTx(bytes: Uint8Array, hash = txHash(bytes)): DecodedTx {
  let raw: TxRaw, body: TxBody, authInfo: AuthInfo;
  try {
    raw = TxRaw.decode(bytes);
    body = TxBody.decode(raw.bodyBytes);
    authInfo = AuthInfo.decode(raw.authInfoBytes);
  } catch (error) {
    throw SdkErrors.txDecode(`failed to decode tx: ${(error as Error).message}`);
  }
  if (body.messages.length === 0) throw SdkErrors.invalidRequest('must contain at least one message');
  const signers = new Set<string>();
  const messages = body.messages.map((any) => {
    const entry = codecs[any.typeUrl];
    if (!entry) throw SdkErrors.txDecode(`unable to resolve type URL ${any.typeUrl}`);
    let value: unknown;
    try {
      value = entry.codec.decode(any.value);
    } catch (error) {
      throw SdkErrors.txDecode(`failed to decode ${any.typeUrl}: ${(error as Error).message}`);
    }
    signers.add(entry.signer(value));
    return { typeUrl: any.typeUrl, value } as DecodedMsg;
  });
  if (signers.size !== 1) throw SdkErrors.unauthorized(`expected one signer, got ${signers.size}`);
  return { hash, raw, body, authInfo, messages, signer: [...signers][0]! };
}
