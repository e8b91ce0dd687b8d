// Transactions as the Cosmos SDK gateway prints them (docs/chain-api.md, "Transactions"):
// the `tx` decoded from its bytes (messages with "@type", signer infos, fee, signatures)
// and the `tx_response` of its result (`raw_log` as the node wrote it, `logs` parsed from
// it as SDKs before 0.50 do, events with `msg_index`).
import { toHex, toUtf8 } from '@cosmjs/encoding';
import type { CompactBitArray } from 'cosmjs-types/cosmos/crypto/multisig/v1beta1/multisig';
import { signModeToJSON } from 'cosmjs-types/cosmos/tx/signing/v1beta1/signing';
import type { ModeInfo } from 'cosmjs-types/cosmos/tx/v1beta1/tx';
import type { RestEvent } from '../../chain/stored-events.ts';
import { decodeTxParts } from '../../chain/tx-decode.ts';
import { anyJson, base64, bytes, coins, timestamp } from './proto-json.ts';

/** How a TxResponse prints its events' keys and values (node-events.ts attributesInBase64). */
export type AttributeForm = 'text' | 'base64';

/**
 * Events as the gateway of an SDK on Tendermint 0.34 (0.45, 0.46) prints them: each key and
 * value the base64 of its bytes, `null` when empty (jsonpb's nil slice); `index` as given.
 */
export function eventsInBase64(events: readonly RestEvent[] | string) {
  const list: RestEvent[] = typeof events === 'string' ? JSON.parse(events) : events;
  return list.map((e) => ({
    type: e.type,
    attributes: e.attributes.map((a) => ({ key: bytes(toUtf8(a.key)), value: bytes(toUtf8(a.value)), index: a.index })),
  }));
}

/** One transaction and its result, from the index or from the node. */
export interface TxRecord {
  hash: string; // upper-case hex
  height: number;
  index: number;
  time: Date;
  code: number;
  codespace: string;
  log: string;
  /** The result's data (TxMsgData) as the SDK prints it: upper-case hex; '' when unknown. */
  data: string;
  gasWanted: string;
  gasUsed: string;
  bytes: Uint8Array;
  /** The result's events: as the node's answer gave them, or, from the index, their JSON text (unpackEventsJson). */
  events: RestEvent[] | string;
  /** Read through from the node (the index does not hold it, or not yet). */
  fromNode?: boolean;
}

function bitArrayJson(b: CompactBitArray | undefined) {
  return b ? { extra_bits_stored: b.extraBitsStored, elems: bytes(b.elems) } : null;
}

/** A ModeInfo oneof: only the member that is set, the sign mode by name. */
function modeInfoJson(m: ModeInfo | undefined): Record<string, unknown> | null {
  if (m?.single) return { single: { mode: signModeToJSON(m.single.mode) } };
  if (m?.multi)
    return { multi: { bitarray: bitArrayJson(m.multi.bitarray), mode_infos: m.multi.modeInfos.map(modeInfoJson) } };
  return null;
}

export type TxJson = ReturnType<typeof decodeTx>;

function decodeTx(txBytes: Uint8Array) {
  const { raw, body, authInfo: auth } = decodeTxParts(txBytes);
  return {
    body: {
      messages: body.messages.map(anyJson),
      memo: body.memo,
      timeout_height: body.timeoutHeight.toString(),
      // SDK 0.53's unordered txs: printed when set (a tx of an older SDK's chain has neither)
      ...(body.unordered || body.timeoutTimestamp
        ? {
            unordered: body.unordered,
            timeout_timestamp: body.timeoutTimestamp ? timestamp(body.timeoutTimestamp) : null,
          }
        : {}),
      extension_options: body.extensionOptions.map(anyJson),
      non_critical_extension_options: body.nonCriticalExtensionOptions.map(anyJson),
    },
    auth_info: {
      signer_infos: auth.signerInfos.map((s) => ({
        public_key: s.publicKey ? anyJson(s.publicKey) : null,
        mode_info: modeInfoJson(s.modeInfo),
        sequence: s.sequence.toString(),
      })),
      fee: auth.fee
        ? {
            amount: coins(auth.fee.amount),
            gas_limit: auth.fee.gasLimit.toString(),
            payer: auth.fee.payer,
            granter: auth.fee.granter,
          }
        : null,
      tip: auth.tip ? { amount: coins(auth.tip.amount), tipper: auth.tip.tipper } : null,
    },
    signatures: raw.signatures.map((s) => base64(s)),
  };
}

/**
 * A `cosmos.tx.v1beta1.Tx` decoded from its bytes, or null when they do not decode (a
 * block may carry bytes its chain refused to run; the SDK has no JSON for them either).
 */
export function txJson(txBytes: Uint8Array): TxJson | null {
  try {
    return decodeTx(txBytes);
  } catch {
    return null;
  }
}

export interface AbciMessageLog {
  msg_index: number;
  log: string;
  events: { type: string; attributes: { key: string; value: string }[] }[];
}

const isString = (v: unknown) => typeof v === 'string';
const optional = (v: unknown, check: (v: unknown) => boolean) => v === undefined || v === null || check(v);
const isIndex = (v: unknown) => typeof v === 'number' && Number.isInteger(v) && v >= 0;

/**
 * `tx_response.logs`: a result log that is the JSON of ABCIMessageLogs (what SDKs before
 * 0.50 write, `[{"msg_index":0,"events":[{"type":…,"attributes":[{"key":…,"value":…}]}]}]`)
 * parsed as the SDK's ParseABCILogs does, with defaults for what it leaves out; `[]` for
 * any other log (0.50+ writes an empty one; a failed tx's is its error text).
 */
export function logsOf(log: string): AbciMessageLog[] {
  if (!log.startsWith('[')) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(log);
  } catch {
    return [];
  }
  if (!Array.isArray(parsed)) return [];
  const logs: AbciMessageLog[] = [];
  for (const entry of parsed as Record<string, unknown>[]) {
    // Go's decoder refuses the whole log when one value has the wrong type
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) return [];
    if (!optional(entry.msg_index, isIndex) || !optional(entry.log, isString)) return [];
    if (!optional(entry.events, Array.isArray)) return [];
    const events: AbciMessageLog['events'] = [];
    for (const e of (entry.events ?? []) as Record<string, unknown>[]) {
      if (typeof e !== 'object' || e === null || !optional(e.type, isString)) return [];
      if (!optional(e.attributes, Array.isArray)) return [];
      const attributes: AbciMessageLog['events'][number]['attributes'] = [];
      for (const a of (e.attributes ?? []) as Record<string, unknown>[]) {
        if (typeof a !== 'object' || a === null || !optional(a.key, isString) || !optional(a.value, isString))
          return [];
        attributes.push({ key: (a.key as string) ?? '', value: (a.value as string) ?? '' });
      }
      events.push({ type: (e.type as string) ?? '', attributes });
    }
    logs.push({ msg_index: (entry.msg_index as number) ?? 0, log: (entry.log as string) ?? '', events });
  }
  return logs;
}

/** `tx_response.timestamp`: the block time in RFC 3339 without fraction, as the SDK formats it. */
export const txTimestamp = (time: Date) => `${time.toISOString().slice(0, 19)}Z`;

function txResponseObject(r: TxRecord, tx: TxJson | null, events: unknown) {
  return {
    height: String(r.height),
    txhash: r.hash,
    codespace: r.codespace,
    code: r.code,
    data: r.data,
    raw_log: r.log,
    logs: logsOf(r.log),
    info: '',
    gas_wanted: r.gasWanted,
    gas_used: r.gasUsed,
    tx: tx ? { '@type': '/cosmos.tx.v1beta1.Tx', ...tx } : null,
    timestamp: txTimestamp(r.time),
    // the last member: txResponseText writes events kept as text in place of an empty list
    events,
  };
}

/** The SDK's TxResponse of a transaction whose `tx` is already decoded. */
export function txResponseJson(r: TxRecord, tx: TxJson | null, form: AttributeForm = 'text') {
  if (form === 'base64') return txResponseObject(r, tx, eventsInBase64(r.events));
  return txResponseObject(r, tx, typeof r.events === 'string' ? JSON.parse(r.events) : r.events);
}

const EMPTY_LIST = '[]';
const EMPTY_EVENTS = `"events":${EMPTY_LIST}}`;

/** The TxResponse's JSON text: txResponseJson printed, events kept as text written in as they are. */
export function txResponseText(r: TxRecord, tx: TxJson | null, form: AttributeForm = 'text'): string {
  if (form === 'base64' || typeof r.events !== 'string') return JSON.stringify(txResponseJson(r, tx, form));
  const json = JSON.stringify(txResponseObject(r, tx, []));
  if (!json.endsWith(EMPTY_EVENTS)) throw new Error('tx_response: events is not its last member');
  return `${json.slice(0, -(EMPTY_LIST.length + 1))}${r.events}}`;
}

/** `{tx, tx_response}` as `GET /cosmos/tx/v1beta1/txs/{hash}` answers: the decoded tx, and the answer's JSON text. */
export function txWithResponse(r: TxRecord, form: AttributeForm = 'text'): { tx: TxJson | null; text: string } {
  const tx = txJson(r.bytes);
  return { tx, text: `{"tx":${JSON.stringify(tx)},"tx_response":${txResponseText(r, tx, form)}}` };
}

/** A result's data bytes as the SDK prints `tx_response.data`. */
export const resultData = (data: Uint8Array | undefined) => (data && data.length > 0 ? toHex(data).toUpperCase() : '');
