// POST /cosmos/tx/v1beta1/txs (broadcast) and POST /cosmos/tx/v1beta1/simulate: a signed
// transaction in the SDK's request JSON, checked here as far as its bytes go, then handed
// to the node (docs/chain-api.md, "Broadcast and simulate").
import type { IncomingMessage } from 'node:http';
import { sha256 } from '@cosmjs/crypto';
import { fromBase64, toBase64, toHex } from '@cosmjs/encoding';
import { BinaryReader } from 'cosmjs-types/binary';
import { MsgSendResponse } from 'cosmjs-types/cosmos/bank/v1beta1/tx';
import { MsgDelegateResponse } from 'cosmjs-types/cosmos/staking/v1beta1/tx';
import { SimulateRequest, SimulateResponse } from 'cosmjs-types/cosmos/tx/v1beta1/service';
import { AuthInfo, TxBody, TxRaw } from 'cosmjs-types/cosmos/tx/v1beta1/tx';
import { MsgExecuteContractResponse, MsgInstantiateContractResponse } from 'cosmjs-types/cosmwasm/wasm/v1/tx';
import type { Any } from 'cosmjs-types/google/protobuf/any';
import type { Polka } from 'polka';
import { MsgBurnForBridgeOutResponse } from '../../../chain/bridge-msg.ts';
import { BodyTooLargeError, readBody } from '../../http/body.ts';
import { HttpError } from '../../http/errors.ts';
import { sendJson } from '../../http/respond.ts';
import type { ChainApiContext } from '../context.ts';
import { GatewayError, GRPC, gatewayBody, invalidArgument, nodeFailure } from '../gateway.ts';
import { anyJson, bytes, int64, messageJson } from '../proto-json.ts';

/**
 * The largest request body: CometBFT's default max_tx_bytes (1 MiB) in base64 is 1.4 MB, so
 * every transaction a node with default settings accepts fits, with room for the JSON around it.
 */
export const BODY_LIMIT_BYTES = 2 * 1024 * 1024;

const BROADCAST_MODES: Record<string, 'sync' | 'async' | undefined> = {
  BROADCAST_MODE_SYNC: 'sync',
  '2': 'sync',
  BROADCAST_MODE_ASYNC: 'async',
  '3': 'async',
};
const MODE_NAMES = [
  'BROADCAST_MODE_UNSPECIFIED',
  'BROADCAST_MODE_BLOCK',
  'BROADCAST_MODE_SYNC',
  'BROADCAST_MODE_ASYNC',
];

export function registerBroadcast(app: Polka, ctx: ChainApiContext): void {
  app.post('/cosmos/tx/v1beta1/txs', async (req, res) => {
    const body = await requestJson(req, 'cosmos.tx.v1beta1.BroadcastTxRequest', ['tx_bytes', 'mode']);
    const txBytes = signedTx(body.tx_bytes);
    const mode = broadcastMode(body.mode);
    sendJson(res, 200, { tx_response: await broadcast(ctx, txBytes, mode) });
  });

  app.post('/cosmos/tx/v1beta1/simulate', async (req, res) => {
    const body = await requestJson(req, 'cosmos.tx.v1beta1.SimulateRequest', ['tx_bytes', 'tx']);
    if (absent(body.tx_bytes) && !absent(body.tx))
      throw invalidArgument(
        'the deprecated tx field is not supported: send the signed transaction as tx_bytes (base64 of its TxRaw bytes)',
      );
    sendJson(res, 200, await simulate(ctx, signedTx(body.tx_bytes)));
  });
}

// ---------------------------------------------------------------------------------------
// The request: JSON as grpc-gateway's jsonpb reads it (proto or lowerCamel field names,
// null for unset, unknown fields refused), the bytes a decodable TxRaw.

const absent = (v: unknown) => v === undefined || v === null;
const camel = (name: string) => name.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

async function requestJson(req: IncomingMessage, message: string, fields: string[]): Promise<Record<string, unknown>> {
  let raw: Buffer;
  try {
    raw = await readBody(req, BODY_LIMIT_BYTES);
  } catch (error) {
    if (error instanceof BodyTooLargeError) {
      const text = `the request body is larger than ${error.limitBytes} bytes`;
      throw new HttpError(413, text, undefined, {}, gatewayBody(GRPC.RESOURCE_EXHAUSTED, text));
    }
    throw invalidArgument('the request body could not be read');
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.toString('utf8'));
  } catch (error) {
    throw invalidArgument(`the request body is not JSON: ${(error as Error).message}`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    throw invalidArgument(
      `the request body must be a JSON object with the fields of ${message} (${fields.join(', ')})`,
    );
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(parsed)) {
    const field = fields.find((f) => f === key || camel(f) === key);
    if (!field) throw invalidArgument(`unknown field ${JSON.stringify(key)} in ${message}`);
    out[field] = value;
  }
  return out;
}

/** `tx_bytes`: standard base64 with padding (how the SDK's JSON carries bytes) of a TxRaw. */
function signedTx(value: unknown): Uint8Array {
  if (absent(value) || value === '')
    throw invalidArgument('invalid empty tx: tx_bytes is required (the signed transaction, base64 of its TxRaw bytes)');
  if (typeof value !== 'string') throw invalidArgument('tx_bytes must be a base64 string');
  let txBytes: Uint8Array;
  try {
    if (value.length % 4 !== 0) throw new Error('length not a multiple of 4');
    txBytes = fromBase64(value);
  } catch {
    throw invalidArgument('tx_bytes is not base64 (standard alphabet with padding)');
  }
  checkTxRaw(txBytes);
  return txBytes;
}

function broadcastMode(value: unknown): 'sync' | 'async' {
  const mode = typeof value === 'string' || typeof value === 'number' ? BROADCAST_MODES[String(value)] : undefined;
  if (mode) return mode;
  const named = absent(value)
    ? MODE_NAMES[0]
    : typeof value === 'number' && MODE_NAMES[value]
      ? MODE_NAMES[value]
      : typeof value === 'string' && MODE_NAMES.includes(value)
        ? value
        : JSON.stringify(value);
  throw invalidArgument(
    `unsupported broadcast mode ${named}; supported: BROADCAST_MODE_SYNC (answers after CheckTx) and BROADCAST_MODE_ASYNC (answers at once)`,
  );
}

const WIRE = { VARINT: 0, LEN: 2 } as const;
/** Fields the SDK's decoder knows (number → wire type); an unknown one below 1024 is refused (ADR-020). */
const TX_BODY_FIELDS: Record<number, number> = {
  1: WIRE.LEN,
  2: WIRE.LEN,
  3: WIRE.VARINT,
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
  const refuse = (why: string) => invalidArgument(`tx parse error: tx_bytes is not a TxRaw: ${why}`);
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
// Broadcast: the SDK's TxResponse for a broadcast (client/broadcast.go): the hash and
// CheckTx's code, codespace and log on SYNC; nothing of the block, which is not known yet.

interface BroadcastResult {
  /** absent on ASYNC: CometBFT answers before CheckTx */
  code?: number;
  codespace?: string;
  log?: string;
  data?: Uint8Array;
  hash: Uint8Array | string;
}

const txResponse = (r: BroadcastResult) => ({
  height: '0',
  txhash: typeof r.hash === 'string' ? r.hash : toHex(r.hash).toUpperCase(),
  codespace: r.codespace ?? '',
  code: r.code ?? 0,
  data: r.data && r.data.length > 0 ? toHex(r.data).toUpperCase() : '',
  raw_log: r.log ?? '',
  logs: [],
  info: '',
  gas_wanted: '0',
  gas_used: '0',
  tx: null,
  timestamp: '',
  events: [],
});

/** CometBFT's mempool refusals the SDK answers as a TxResponse with its own code (client.CheckCometError). */
const MEMPOOL_REFUSALS: [text: string, code: number][] = [
  ['tx already exists in cache', 19],
  ['mempool is full', 20],
  ['tx too large', 21],
];

async function broadcast(ctx: ChainApiContext, tx: Uint8Array, mode: 'sync' | 'async') {
  try {
    const result =
      mode === 'sync' ? await ctx.chain.comet.broadcastTxSync({ tx }) : await ctx.chain.comet.broadcastTxAsync({ tx });
    return txResponse(result);
  } catch (error) {
    const refusal = rpcErrorText(error);
    if (refusal === undefined) throw nodeFailure(error);
    const known = MEMPOOL_REFUSALS.find(([text]) => refusal.toLowerCase().includes(text));
    if (known) return txResponse({ code: known[1], codespace: 'sdk', hash: toHex(sha256(tx)).toUpperCase() });
    throw new GatewayError(GRPC.UNKNOWN, refusal);
  }
}

/** The text of a JSON-RPC error the node answered with (cosmjs throws it as JSON), or undefined when it did not answer. */
function rpcErrorText(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const cause = (error as Error & { cause?: { body?: unknown } }).cause;
  for (const text of [error.message, typeof cause?.body === 'string' ? cause.body : '']) {
    try {
      const parsed = JSON.parse(text) as {
        data?: unknown;
        message?: unknown;
        error?: { data?: unknown; message?: unknown };
      };
      const rpc = parsed.error ?? parsed;
      const said = [rpc.message, rpc.data].filter((s) => typeof s === 'string' && s !== '');
      if (said.length > 0) return said.join(': ');
    } catch {}
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------
// Simulate: the tx service's Simulate query over ABCI, printed as the gateway prints a
// SimulateResponse.

const SIMULATE_PATH = '/cosmos.tx.v1beta1.Service/Simulate';

/** Msg responses of the chain's messages, printed with their fields (anyJson knows the messages themselves). */
const MSG_RESPONSES: Record<string, { decode(b: Uint8Array): object }> = {
  [MsgSendResponse.typeUrl]: MsgSendResponse,
  [MsgDelegateResponse.typeUrl]: MsgDelegateResponse,
  [MsgExecuteContractResponse.typeUrl]: MsgExecuteContractResponse,
  [MsgInstantiateContractResponse.typeUrl]: MsgInstantiateContractResponse,
  [MsgBurnForBridgeOutResponse.typeUrl]: MsgBurnForBridgeOutResponse,
};

function msgResponseJson(any: Any): Record<string, unknown> {
  const codec = MSG_RESPONSES[any.typeUrl];
  if (!codec) return anyJson(any);
  try {
    return { '@type': any.typeUrl, ...messageJson(codec.decode(any.value)) };
  } catch {
    return { '@type': any.typeUrl, value: toBase64(any.value) };
  }
}

async function simulate(ctx: ChainApiContext, txBytes: Uint8Array) {
  let value: Uint8Array;
  try {
    const request = SimulateRequest.encode(SimulateRequest.fromPartial({ txBytes })).finish();
    ({ value } = await ctx.chain.queries.queryAbci(SIMULATE_PATH, request));
  } catch (error) {
    throw simulationFailure(error);
  }
  const { gasInfo, result } = SimulateResponse.decode(value);
  return {
    gas_info: { gas_wanted: int64(gasInfo?.gasWanted), gas_used: int64(gasInfo?.gasUsed) },
    result: {
      data: bytes(result?.data),
      log: result?.log ?? '',
      events: (result?.events ?? []).map((e) => ({
        type: e.type,
        attributes: e.attributes.map((a) => ({ key: a.key, value: a.value, index: a.index })),
      })),
      msg_responses: (result?.msgResponses ?? []).map(msgResponseJson),
    },
  };
}

/**
 * The chain refused the simulation (the transaction would fail): the SDK's body, code 2
 * (Unknown) and the chain's reason ("… with gas used: '<n>'" when the node says it), with
 * HTTP 400 rather than grpc-gateway's 500: the request, not the service, is at fault, and
 * clients retry a 5xx (docs/chain-api.md, "Broadcast and simulate").
 */
function simulationFailure(error: unknown): HttpError {
  const message = error instanceof Error ? error.message : String(error);
  const refused = /^Query failed with \(\d+\): ([\s\S]*)$/.exec(message);
  if (!refused) return nodeFailure(error);
  const grpc = /rpc error: code = \w+ desc = ([\s\S]*?)(?:: unknown request)?$/.exec(refused[1]!);
  const reason = grpc ? grpc[1]! : refused[1]!;
  return new HttpError(400, reason, undefined, {}, gatewayBody(GRPC.UNKNOWN, reason));
}
