// POST /cosmos/tx/v1beta1/txs (broadcast) and POST /cosmos/tx/v1beta1/simulate: a signed
// transaction in the SDK's request JSON, checked here as far as its bytes go, then handed
// to the node (docs/chain-api.md, "Broadcast and simulate"). The routes are data
// (src/api/http/routes.ts), each described beside its handler; the Chain API's route table
// (src/api/chain/route-table.ts) joins them for the server, which mounts it, and for the
// OpenAPI document, which describes it.
import type { IncomingMessage } from 'node:http';
import { fromBase64, toBase64 } from '@cosmjs/encoding';
import { MsgSendResponse } from 'cosmjs-types/cosmos/bank/v1beta1/tx';
import { MsgDelegateResponse } from 'cosmjs-types/cosmos/staking/v1beta1/tx';
import { SimulateRequest, SimulateResponse } from 'cosmjs-types/cosmos/tx/v1beta1/service';
import { MsgExecuteContractResponse, MsgInstantiateContractResponse } from 'cosmjs-types/cosmwasm/wasm/v1/tx';
import type { Any } from 'cosmjs-types/google/protobuf/any';
import { z } from 'zod';
import { MsgBurnForBridgeOutResponse } from '../../../chain/bridge-msg.ts';
import { queryRefusal } from '../../../chain/errors.ts';
import { attributesInBase64, type CometProtocol } from '../../../chain/node-events.ts';
import {
  CommitTimeoutError,
  type CommittedTx,
  commitTx,
  NodeRefusedError,
  type SentTx,
  SignedTxError,
  sendTx,
  signedTxBytes,
  txHashOf,
} from '../../../chain/signed-tx.ts';
import { BODY_LIMIT_BYTES, BodyTooLargeError, readBody } from '../../http/body.ts';
import { HttpError } from '../../http/errors.ts';
import { sendJson } from '../../http/respond.ts';
import type { Route } from '../../http/routes.ts';
import { type ChainApiContext, perContext } from '../context.ts';
import { GatewayError, GRPC, gatewayBody, invalidArgument, nodeFailure } from '../gateway.ts';
import { anyJson, bytes, int64, messageJson } from '../proto-json.ts';
import { answer, gatewayError, TAGS } from '../route-docs.ts';
import { eventsInBase64, logsOf, resultData } from '../tx-json.ts';

type Mode = 'block' | 'sync' | 'async';

const BROADCAST_MODES = new Map<string, Mode>([
  ['BROADCAST_MODE_BLOCK', 'block'],
  ['1', 'block'],
  ['BROADCAST_MODE_SYNC', 'sync'],
  ['2', 'sync'],
  ['BROADCAST_MODE_ASYNC', 'async'],
  ['3', 'async'],
]);
const MODE_NAMES = [
  'BROADCAST_MODE_UNSPECIFIED',
  'BROADCAST_MODE_BLOCK',
  'BROADCAST_MODE_SYNC',
  'BROADCAST_MODE_ASYNC',
];

const txBytesSchema = z.string().describe('base64 of the signed TxRaw');
const tooLarge = { description: 'The body is larger than 2 MiB (code 8)', body: gatewayError };

export const broadcastRoutes: Route<ChainApiContext>[] = [
  {
    method: 'post',
    path: '/cosmos/tx/v1beta1/txs',
    tag: TAGS.broadcast,
    summary:
      'Broadcast a signed transaction (SYNC: after CheckTx; ASYNC: at once; BLOCK, on a Tendermint 0.34 chain: after its block)',
    body: {
      description: 'BroadcastTxRequest as JSON',
      schema: z.object({
        tx_bytes: txBytesSchema,
        mode: z
          .enum(['BROADCAST_MODE_SYNC', 'BROADCAST_MODE_ASYNC', 'BROADCAST_MODE_BLOCK', '2', '3', '1'])
          .describe(
            'BROADCAST_MODE_BLOCK only where the chain has it (SDK 0.45 and 0.46, on Tendermint 0.34); refused on a chain of SDK 0.47+, as its gateway refuses it',
          ),
      }),
    },
    responses: { 200: answer('tx_response'), 413: tooLarge },
    handler: (ctx) => async (req, res) => {
      const body = await requestJson(req, 'cosmos.tx.v1beta1.BroadcastTxRequest', ['tx_bytes', 'mode']);
      const txBytes = signedTx(body.tx_bytes);
      const mode = await broadcastMode(ctx, body.mode);
      sendJson(res, 200, { tx_response: await broadcast(ctx, txBytes, mode) });
    },
  },
  {
    method: 'post',
    path: '/cosmos/tx/v1beta1/simulate',
    tag: TAGS.broadcast,
    summary: "Simulate a signed transaction: the gas it would use and its messages' results",
    body: { description: 'SimulateRequest as JSON', schema: z.object({ tx_bytes: txBytesSchema }) },
    responses: { 200: answer('gas_info, result'), 413: tooLarge },
    handler: (ctx) => async (req, res) => {
      const body = await requestJson(req, 'cosmos.tx.v1beta1.SimulateRequest', ['tx_bytes', 'tx']);
      if (absent(body.tx_bytes) && !absent(body.tx))
        throw invalidArgument(
          'the deprecated tx field is not supported: send the signed transaction as tx_bytes (base64 of its TxRaw bytes)',
        );
      sendJson(res, 200, await simulate(ctx, signedTx(body.tx_bytes)));
    },
  },
];

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

/** `tx_bytes` as the gateway checks it (src/chain/signed-tx.ts), refused in its words. */
function signedTx(value: unknown): Uint8Array {
  try {
    return signedTxBytes(value);
  } catch (error) {
    if (error instanceof SignedTxError) throw invalidArgument(error.message);
    throw error;
  }
}

const SUPPORTED = 'BROADCAST_MODE_SYNC (answers after CheckTx) and BROADCAST_MODE_ASYNC (answers at once)';

/**
 * The mode asked for. BLOCK only on a chain whose SDK has it (0.45 and 0.46: a Tendermint
 * 0.34 node); SDK 0.47 removed it.
 */
async function broadcastMode(ctx: ChainApiContext, value: unknown): Promise<Mode> {
  const mode = typeof value === 'string' || typeof value === 'number' ? BROADCAST_MODES.get(String(value)) : undefined;
  if (mode === 'block') {
    let protocol: CometProtocol;
    try {
      protocol = await ctx.chain.ready();
    } catch (error) {
      throw nodeFailure(error);
    }
    if (protocol === '0.34') return mode;
    throw invalidArgument(
      `unsupported broadcast mode BROADCAST_MODE_BLOCK: removed in SDK 0.47 (CometBFT 0.37), which this chain runs or follows; supported: ${SUPPORTED}`,
    );
  }
  if (mode) return mode;
  const named = absent(value)
    ? MODE_NAMES[0]
    : typeof value === 'number' && MODE_NAMES[value]
      ? MODE_NAMES[value]
      : typeof value === 'string' && MODE_NAMES.includes(value)
        ? value
        : JSON.stringify(value);
  throw invalidArgument(`unsupported broadcast mode ${named}; supported: ${SUPPORTED}`);
}

// ---------------------------------------------------------------------------------------
// Broadcast: the SDK's TxResponse for a broadcast (client/broadcast.go): the hash and
// CheckTx's code, codespace and log on SYNC; nothing of the block, which is not known yet.

const txResponse = (r: SentTx) => ({
  height: '0',
  txhash: r.hash,
  codespace: r.codespace ?? '',
  code: r.code ?? 0,
  data: resultData(r.data),
  raw_log: r.log ?? '',
  logs: [],
  info: '',
  gas_wanted: '0',
  gas_used: '0',
  tx: null,
  timestamp: '',
  events: [],
});

/**
 * BLOCK's TxResponse (SDK 0.45's NewResponseFormatBroadcastTxCommit): the block's height and
 * result, or CheckTx's when it refused the tx (height "0"); events as the node sent them
 * (base64 on Tendermint 0.34; the gateway prints the node's answer with no protobuf round
 * trip, so an empty attribute stays `""` and only an absent one is `null`).
 */
const committedResponse = ({ hash, height, result: r }: CommittedTx) => ({
  height,
  txhash: hash,
  codespace: r.codespace ?? '',
  code: r.code ?? 0,
  data: resultData(r.data ? fromBase64(r.data) : undefined),
  raw_log: r.log ?? '',
  logs: logsOf(r.log ?? ''),
  info: r.info ?? '',
  gas_wanted: r.gas_wanted ?? '0',
  gas_used: r.gas_used ?? '0',
  tx: null,
  timestamp: '',
  events: (r.events ?? []).map((e) => ({
    type: e.type ?? '',
    attributes: (e.attributes ?? []).map((a) => ({
      key: a.key ?? null,
      value: a.value ?? null,
      index: a.index ?? false,
    })),
  })),
});

/**
 * How many BLOCK broadcasts wait for their blocks at once: each holds one of the node
 * client's CHAIN_RPC_CONCURRENCY slots for a block time or more, which the Chain API's
 * other calls to the node share. A quarter of them (4 of the default 16), and at least one.
 */
export const blockWaitLimit = (concurrency: number) => Math.max(1, Math.floor(concurrency / 4));
const blockWaits = perContext(() => ({ waiting: 0 }));

async function waitForBlock(ctx: ChainApiContext, tx: Uint8Array) {
  const waits = blockWaits(ctx);
  const limit = blockWaitLimit(ctx.chain.concurrency);
  if (waits.waiting >= limit)
    throw new GatewayError(
      GRPC.UNAVAILABLE,
      `${limit} BROADCAST_MODE_BLOCK ${limit === 1 ? 'broadcast is' : 'broadcasts are'} waiting for their blocks already (a quarter of CHAIN_RPC_CONCURRENCY, at least one); retry shortly, or use BROADCAST_MODE_SYNC and look the tx up by its hash`,
      { 'Retry-After': '1' },
    );
  waits.waiting++;
  try {
    return committedResponse(await commitTx(ctx.chain, tx));
  } finally {
    waits.waiting--;
  }
}

async function broadcast(ctx: ChainApiContext, tx: Uint8Array, mode: Mode) {
  try {
    if (mode === 'block') return await waitForBlock(ctx, tx);
    return txResponse(await sendTx(ctx.chain, tx, mode));
  } catch (error) {
    if (error instanceof NodeRefusedError) throw new GatewayError(GRPC.UNKNOWN, error.message);
    if (error instanceof CommitTimeoutError)
      throw new GatewayError(
        GRPC.DEADLINE_EXCEEDED,
        `${error.message}: the tx ${txHashOf(tx)} may have been accepted and may still be included; look it up by its hash before sending it again`,
      );
    if (error instanceof GatewayError) throw error;
    throw nodeFailure(error);
  }
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
  let protocol: CometProtocol;
  try {
    protocol = await ctx.chain.ready();
    const request = SimulateRequest.encode(SimulateRequest.fromPartial({ txBytes })).finish();
    ({ value } = await ctx.chain.queries.queryAbci(SIMULATE_PATH, request));
  } catch (error) {
    throw simulationFailure(error);
  }
  const { gasInfo, result } = SimulateResponse.decode(value);
  const events = (result?.events ?? []).map((e) => ({
    type: e.type,
    attributes: e.attributes.map((a) => ({ key: a.key, value: a.value, index: a.index })),
  }));
  return {
    gas_info: { gas_wanted: int64(gasInfo?.gasWanted), gas_used: int64(gasInfo?.gasUsed) },
    result: {
      data: bytes(result?.data),
      log: result?.log ?? '',
      // as the node's protocol prints them: base64 on Tendermint 0.34 (SDK 0.45 and 0.46)
      events: attributesInBase64(protocol) ? eventsInBase64(events) : events,
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
  const refused = queryRefusal(error);
  if (!refused) return nodeFailure(error);
  const grpc = /rpc error: code = \w+ desc = ([\s\S]*?)(?:: unknown request)?$/.exec(refused.log);
  const reason = grpc ? grpc[1]! : refused.log;
  return new HttpError(400, reason, undefined, {}, gatewayBody(GRPC.UNKNOWN, reason));
}
