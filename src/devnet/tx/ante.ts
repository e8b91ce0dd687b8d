// The ante handler: what the SDK checks and charges before a transaction's messages run —
// signer count, gas for size and signature, minimum fee (CheckTx only), account, public key,
// sequence, SIGN_MODE_DIRECT signature, fee deduction and sequence increment.

import { rawSecp256k1PubkeyToRawAddress } from '@cosmjs/amino';
import { Secp256k1, Secp256k1Signature, sha256 } from '@cosmjs/crypto';
import { toBase64 } from '@cosmjs/encoding';
import { makeSignBytes } from '@cosmjs/proto-signing';
import type { Coin } from 'cosmjs-types/cosmos/base/v1beta1/coin';
import { PubKey } from 'cosmjs-types/cosmos/crypto/secp256k1/keys';
import { SignMode } from 'cosmjs-types/cosmos/tx/signing/v1beta1/signing';
import { MIN_GAS_PRICE, NATIVE_DENOM } from '../constants.ts';
import { type ChainEvent, coinsToString, event } from '../core/events.ts';
import { GAS_COSTS, type GasMeter } from '../core/gas.ts';
import { SdkErrors } from '../errors.ts';
import type { Accounts } from '../state/accounts.ts';
import { MODULE_ACCOUNTS, toAccountAddress } from '../state/addresses.ts';
import type { Bank } from '../state/bank.ts';
import type { DecodedTx } from './decode.ts';

/**
 * check: CheckTx (mempool admission, nothing written; the minimum fee applies);
 * deliver: block execution; trusted: block execution of a transaction whose signature the
 * node made itself or verified before (generator fast path, replay); simulate: no signature.
 */
export type AnteMode = 'check' | 'deliver' | 'trusted' | 'simulate';

/** Sequences and fees of transactions admitted to the mempool but not yet in a block. */
export interface PendingState {
  sequence(address: string, committed: bigint): bigint;
  feesOwed(address: string): bigint;
  admit(address: string, fee: bigint): void;
}

export interface AnteContext {
  chainId: string;
  accounts: Accounts;
  bank: Bank;
  pending: PendingState;
}

const SECP256K1_PUBKEY = '/cosmos.crypto.secp256k1.PubKey';

export function runAnte(ctx: AnteContext, tx: DecodedTx, mode: AnteMode, gas: GasMeter): ChainEvent[] {
  const { authInfo, raw } = tx;
  if (raw.signatures.length === 0) throw SdkErrors.noSignatures();
  if (authInfo.signerInfos.length !== 1 || raw.signatures.length !== 1) {
    throw SdkErrors.unauthorized(`wrong number of signers; expected 1, got ${authInfo.signerInfos.length}`);
  }
  const fee = authInfo.fee?.amount ?? [];
  const gasLimit = authInfo.fee?.gasLimit ?? 0n;
  for (const coin of fee) {
    if (coin.denom !== NATIVE_DENOM)
      throw SdkErrors.insufficientFee(`fee must be paid in ${NATIVE_DENOM}, got ${coinsToString(fee)}`);
  }
  const feeAmount = fee.reduce((sum, c) => sum + BigInt(c.amount), 0n);

  gas.consume(GAS_COSTS.anteBase + GAS_COSTS.perBodyByte * raw.bodyBytes.length, 'txSize');
  if (mode === 'check') {
    const required = (gasLimit * MIN_GAS_PRICE.numerator + MIN_GAS_PRICE.denominator - 1n) / MIN_GAS_PRICE.denominator;
    if (feeAmount < required) {
      throw SdkErrors.insufficientFee(
        `insufficient fees; got: ${coinsToString(fee) || `0${NATIVE_DENOM}`} required: ${required}${NATIVE_DENOM}`,
      );
    }
  }

  const signerInfo = authInfo.signerInfos[0]!;
  const account = ctx.accounts.get(tx.signer);
  if (!account) throw SdkErrors.unknownAddress(`account ${tx.signer} does not exist`);

  const pubkey = signerPubkey(signerInfo.publicKey, account.pubkey);
  if (toAccountAddress(rawSecp256k1PubkeyToRawAddress(pubkey)) !== tx.signer) {
    throw SdkErrors.invalidPubKey(`pubKey does not match signer address ${tx.signer} with signer index: 0`);
  }

  const expected = mode === 'check' ? ctx.pending.sequence(tx.signer, account.sequence) : account.sequence;
  if (signerInfo.sequence !== expected) {
    throw SdkErrors.wrongSequence(`account sequence mismatch, expected ${expected}, got ${signerInfo.sequence}`);
  }

  gas.consume(GAS_COSTS.signatureVerify, 'ante verify: secp256k1');
  if (mode === 'check' || mode === 'deliver') {
    const mode = signerInfo.modeInfo?.single?.mode;
    if (mode !== SignMode.SIGN_MODE_DIRECT)
      throw SdkErrors.unauthorized(`unsupported sign mode ${mode}; this node verifies SIGN_MODE_DIRECT`);
    const signBytes = makeSignBytes({
      bodyBytes: raw.bodyBytes,
      authInfoBytes: raw.authInfoBytes,
      chainId: ctx.chainId,
      accountNumber: account.accountNumber,
    });
    if (!verifySignature(raw.signatures[0]!, signBytes, pubkey)) {
      throw SdkErrors.unauthorized(
        `signature verification failed; please verify account number (${account.accountNumber}), sequence (${account.sequence}) and chain-id (${ctx.chainId})`,
      );
    }
  }

  if (mode === 'check') {
    const spendable = ctx.bank.balance(tx.signer, NATIVE_DENOM) - ctx.pending.feesOwed(tx.signer);
    if (spendable < feeAmount) {
      throw SdkErrors.insufficientFunds(
        `spendable balance ${spendable}${NATIVE_DENOM} is smaller than ${feeAmount}${NATIVE_DENOM}`,
      );
    }
    ctx.pending.admit(tx.signer, feeAmount);
    return [];
  }

  const events: ChainEvent[] = [];
  const nonZeroFee: Coin[] = fee.filter((c) => BigInt(c.amount) > 0n);
  if (nonZeroFee.length) {
    events.push(
      ...ctx.bank.send(tx.signer, MODULE_ACCOUNTS.feeCollector, nonZeroFee),
      event('message', ['sender', tx.signer]),
    );
  }
  events.push(event('tx', ['fee', coinsToString(nonZeroFee)], ['fee_payer', tx.signer]));
  if (!account.pubkey) ctx.accounts.setPubkey(account, pubkey);
  events.push(event('tx', ['acc_seq', `${tx.signer}/${account.sequence}`]));
  events.push(event('tx', ['signature', toBase64(raw.signatures[0]!)]));
  ctx.accounts.incrementSequence(account);
  return events;
}

function signerPubkey(any: { typeUrl: string; value: Uint8Array } | undefined, stored: Uint8Array | null): Uint8Array {
  if (!any) {
    if (stored) return stored;
    throw SdkErrors.invalidPubKey('pubkey on the account is not set and the tx carries none');
  }
  if (any.typeUrl !== SECP256K1_PUBKEY) throw SdkErrors.invalidPubKey(`unsupported public key type ${any.typeUrl}`);
  const key = PubKey.decode(any.value).key;
  if (key.length !== 33) throw SdkErrors.invalidPubKey(`secp256k1 public key must be 33 bytes, got ${key.length}`);
  if (stored && !equalBytes(stored, key)) throw SdkErrors.invalidPubKey('pubkey does not match the account pubkey');
  return key;
}

function verifySignature(signature: Uint8Array, signBytes: Uint8Array, pubkey: Uint8Array): boolean {
  if (signature.length !== 64) return false;
  try {
    return Secp256k1.verifySignature(Secp256k1Signature.fromFixedLength(signature), sha256(signBytes), pubkey);
  } catch {
    return false;
  }
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}
