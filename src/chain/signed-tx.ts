// A signed transaction sent to the service for broadcast, as both APIs take it: base64 of
// its TxRaw bytes, checked as far as the SDK's decoder checks them, then handed to the node
// with BROADCAST_MODE_SYNC or ASYNC through cosmjs. Each API words the problems in its own
// error style (SignedTxError carries the text).

import { sha256 } from '@cosmjs/crypto';
import { fromBase64, toBase64, toHex } from '@cosmjs/encoding';
import { BinaryReader } from 'cosmjs-types/binary';
import { AuthInfo, TxBody, TxRaw } from 'cosmjs-types/cosmos/tx/v1beta1/tx';
import { ServiceError } from '../internal/errors.ts';
import type { ChainClient } from './client.ts';
import { NodeError, NodeUnreachableError } from './errors.ts';
import type { WireTxResult } from './node-events.ts';

/** What is wrong with a `tx_bytes` value, in words for the client. */
export class SignedTxError extends ServiceError {
  override name = 'SignedTxError';
}

/** The hash CometBFT and the SDK give a transaction: upper-case hex SHA-256 of its bytes. */
export const txHashOf = (txBytes: Uint8Array) => toHex(sha256(txBytes)).toUpperCase();

const absent = (v: unknown) => v === undefined || v === null;

/** `tx_bytes`: standard base64 with padding (how the SDK's JSON carries bytes) of a TxRaw; throws SignedTxError. */
export function signedTxBytes(value: unknown): Uint8Array {
  if (absent(value) || value === '')
    throw new SignedTxError(
      'invalid empty tx: tx_bytes is required (the signed transaction, base64 of its TxRaw bytes)',
    );
  if (typeof value !== 'string') throw new SignedTxError('tx_bytes must be a base64 string');
  let txBytes: Uint8Array;
  try {
    if (value.length % 4 !== 0) throw new Error('length not a multiple of 4');
    txBytes = fromBase64(value);
  } catch {
    throw new SignedTxError('tx_bytes is not base64 (standard alphabet with padding)');
  }
  checkTxRaw(txBytes);
  return txBytes;
}

const WIRE = { VARINT: 0, LEN: 2 } as const;
/**
 * Fields the SDK's decoder knows (number → wire type); an unknown one below 1024 is refused
 * (ADR-020). 4 and 5 are SDK 0.53's `unordered` and `timeout_timestamp`: a node of an older
 * SDK refuses them itself.
 */
const TX_BODY_FIELDS: Record<number, number> = {
  1: WIRE.LEN,
  2: WIRE.LEN,
  3: WIRE.VARINT,
  4: WIRE.VARINT,
  5: WIRE.LEN,
  1023: WIRE.LEN,
  2047: WIRE.LEN,
};
const AUTH_INFO_FIELDS: Record<number, number> = { 1: WIRE.LEN, 2: WIRE.LEN, 3: WIRE.LEN };

/**
 * The bytes must be what the SDK's tx decoder accepts: a TxRaw in canonical encoding
 * (ADR-027: fields in order, nothing unknown, nothing after them) whose body and auth info
 * decode. What the node checks beyond that (messages, signatures, fees) is its answer.
 */
function checkTxRaw(txBytes: Uint8Array): void {
  const refuse = (why: string) => new SignedTxError(`tx parse error: tx_bytes is not a TxRaw: ${why}`);
  let raw: TxRaw;
  try {
    raw = TxRaw.decode(txBytes);
  } catch (error) {
    throw refuse((error as Error).message);
  }
  if (!sameBytes(TxRaw.encode(raw).finish(), txBytes))
    throw refuse('its encoding is not canonical (unknown or repeated fields, fields out of order, or trailing bytes)');
  for (const [what, part, known, codec] of [
    ['body', raw.bodyBytes, TX_BODY_FIELDS, TxBody],
    ['auth info', raw.authInfoBytes, AUTH_INFO_FIELDS, AuthInfo],
  ] as const) {
    try {
      checkFields(part, known);
      codec.decode(part);
    } catch (error) {
      throw refuse(`its ${what} does not decode: ${(error as Error).message}`);
    }
  }
}

/** Walks the top-level fields: each must be known with its wire type, or non-critical (≥ 1024), and complete. */
function checkFields(message: Uint8Array, known: Record<number, number>): void {
  const reader = new BinaryReader(message);
  while (reader.pos < reader.len) {
    const tag = reader.uint32();
    const [field, wireType] = [tag >>> 3, tag & 7];
    if (field === 0) throw new Error(`field number 0 at offset ${reader.pos}`);
    const expected = known[field];
    if (expected === undefined && field < 1024) throw new Error(`unknown field ${field}`);
    if (expected !== undefined && expected !== wireType)
      throw new Error(`field ${field} has wire type ${wireType}, expected ${expected}`);
    reader.skipType(wireType);
    if (reader.pos > reader.len) throw new Error(`field ${field} runs past the end`);
  }
}

const sameBytes = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((x, i) => x === b[i]);

// ---------------------------------------------------------------------------------------
// Sending: the node's answer, or why it gave none.

/** The node's verdict on a broadcast (CheckTx's on SYNC; nothing checked yet on ASYNC). */
export interface SentTx {
  /** upper-case hex */
  hash: string;
  /** absent on ASYNC: CometBFT answers before CheckTx */
  code?: number;
  codespace?: string;
  log?: string;
  data?: Uint8Array;
}

/** The node answered the broadcast with a JSON-RPC error the SDK has no code for; `message` is its text. */
export class NodeRefusedError extends ServiceError {
  override name = 'NodeRefusedError';
}

/** CometBFT's mempool refusals the SDK answers as a TxResponse with its own code (client.CheckCometError). */
const MEMPOOL_REFUSALS: [text: string, code: number][] = [
  ['tx already exists in cache', 19],
  ['mempool is full', 20],
  ['tx too large', 21],
];

/** The SDK's code for the node's refusal when it is a mempool's (MEMPOOL_REFUSALS). */
const mempoolCode = (refusal: string): number | undefined =>
  MEMPOOL_REFUSALS.find(([text]) => refusal.toLowerCase().includes(text))?.[1];

/** The SDK's codes for a mempool that is full right now: the same bytes may be accepted later. */
export const MEMPOOL_FULL_CODE = 20;

/**
 * Broadcasts `tx`. Resolves to the node's verdict (a mempool refusal as the SDK's code,
 * codespace `sdk`); rejects with NodeRefusedError for another refusal, or with the
 * client's own error when the node gave no answer (unreachable, timed out).
 */
export async function sendTx(chain: ChainClient, tx: Uint8Array, mode: 'sync' | 'async'): Promise<SentTx> {
  try {
    const result =
      mode === 'sync' ? await chain.comet.broadcastTxSync({ tx }) : await chain.comet.broadcastTxAsync({ tx });
    const sync = result as Partial<{ code: number; codespace: string; log: string; data: Uint8Array }>;
    return {
      hash: toHex(result.hash).toUpperCase(),
      code: sync.code,
      codespace: sync.codespace,
      log: sync.log,
      data: sync.data,
    };
  } catch (error) {
    const refusal = rpcErrorText(error);
    if (refusal === undefined) throw error;
    const code = mempoolCode(refusal);
    // as the SDK answers them: its code and codespace, no log
    if (code !== undefined) return { code, codespace: 'sdk', hash: txHashOf(tx) };
    throw new NodeRefusedError(refusal);
  }
}

/** What `broadcast_tx_commit` answered (Tendermint 0.34's JSON, attributes in base64). */
export interface CommittedTx {
  /** upper-case hex */
  hash: string;
  /** the block's height; "0" when CheckTx refused the tx */
  height: string;
  /** CheckTx's result when it refused the tx (as the SDK then answers), else the block's (DeliverTx) */
  result: WireTxResult;
}

/**
 * No verdict on a tx sent to wait for its block: the node gave up waiting (its
 * `timeout_broadcast_tx_commit`), or its answer did not come (CHAIN_RPC_TIMEOUT_MS, a proxy's
 * timeout, a dropped connection). The tx may have been accepted and may still land.
 */
export class CommitTimeoutError extends ServiceError {
  override name = 'CommitTimeoutError';
}

/**
 * Failures after the request was sent and before its answer came: the first byte or the body
 * late (CHAIN_RPC_TIMEOUT_MS), the connection dropped mid-answer, a proxy's 502 or 504 (it
 * gave up waiting on the node), an answer that is not JSON-RPC. Any other failure (refused or
 * unreachable, a 429, a 401, a 503) means the node never took the tx.
 */
const SENT_UNANSWERED =
  /no answer within \d+ ms|ECONNRESET|UND_ERR_SOCKET|other side closed|answered HTTP 50[24]\b|not JSON-RPC/;

/**
 * Broadcasts `tx` and waits for its block (`broadcast_tx_commit`), as SDK 0.45 and 0.46 do
 * for BROADCAST_MODE_BLOCK on Tendermint 0.34. Rejects as `sendTx` does, and with
 * CommitTimeoutError when the node stopped waiting or its answer did not come. `chain` is a
 * client of one attempt (the APIs'): a retried commit would wait for the block again.
 */
export async function commitTx(chain: ChainClient, tx: Uint8Array): Promise<CommittedTx> {
  let answer: {
    hash?: string;
    height?: string;
    check_tx?: WireTxResult;
    deliver_tx?: WireTxResult;
    tx_result?: WireTxResult;
  };
  try {
    answer = await chain.rawCall('broadcast_tx_commit', { tx: toBase64(tx) });
  } catch (error) {
    const refusal = rpcErrorText(error);
    if (refusal === undefined) {
      // sent and no answer: it may be in the mempool (answered as such, never "not sent")
      if (error instanceof NodeUnreachableError && SENT_UNANSWERED.test(error.message))
        throw new CommitTimeoutError(`no answer from the node while it waited for the tx's block (${error.message})`);
      throw error;
    }
    const code = mempoolCode(refusal);
    if (code !== undefined) return { hash: txHashOf(tx), height: '0', result: { code, codespace: 'sdk' } };
    if (/timed out waiting for tx to be included/i.test(refusal))
      throw new CommitTimeoutError('timed out waiting for tx to be included in a block');
    throw new NodeRefusedError(refusal);
  }
  const check = answer.check_tx ?? {};
  return {
    hash: (answer.hash ?? txHashOf(tx)).toUpperCase(),
    height: answer.height ?? '0',
    // 0.34's deliver_tx (0.38's tx_result, should a node have just been upgraded)
    result: (check.code ?? 0) !== 0 ? check : (answer.deliver_tx ?? answer.tx_result ?? {}),
  };
}

/** The text of a JSON-RPC error the node answered with ("Internal error: tx already exists in cache"), or undefined when it did not answer. */
function rpcErrorText(error: unknown): string | undefined {
  if (!(error instanceof NodeError) || error.said === undefined) return undefined;
  return [...new Set([error.rpcMessage, error.said].filter((s) => s !== undefined && s !== ''))].join(': ');
}
