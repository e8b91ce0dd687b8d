// CosmWasm smart queries through the node (docs/chain-api.md, "Contracts"):
// `GET /cosmwasm/wasm/v1/contract/{contract_address}/smart/{query_data}`. The query is the
// base64 of a JSON value (standard or URL-safe alphabet, padding optional); its bytes go to
// the node unchanged and the contract's JSON answer comes back unchanged under `data`
// (never re-serialized, so 64-bit numbers in it keep their digits). Never cached. The route
// is data (src/api/http/routes.ts), described beside its handler; the Chain API's route
// table (src/api/chain/route-table.ts) joins it with the others for the server, which mounts
// it, and for the OpenAPI document, which describes it.
import { fromBase64, fromUtf8 } from '@cosmjs/encoding';
import { createProtobufRpcClient } from '@cosmjs/stargate';
import { QueryClientImpl as WasmQuery } from 'cosmjs-types/cosmwasm/wasm/v1/query';
import { z } from 'zod';
import { HttpError } from '../../http/errors.ts';
import { sendJsonText } from '../../http/respond.ts';
import type { Route } from '../../http/routes.ts';
import { type ChainApiContext, perContext } from '../context.ts';
import { fromQuery, GatewayError, GRPC, gatewayBody, invalidArgument, NODE_STATE_HEADERS } from '../gateway.ts';
import { addressParam } from '../params.ts';
import { answer, bech32, TAGS } from '../route-docs.ts';

/**
 * A bytes path parameter as grpc-gateway's runtime.Bytes reads it (standard base64, else
 * URL-safe), also without padding; refused with its "type mismatch … illegal base64 data
 * at input byte N" (400, code 3).
 */
export function base64PathParam(name: string, value: string): Uint8Array {
  const body = value.replace(/={1,2}$/, '');
  const fail = (at: number) =>
    invalidArgument(`type mismatch, parameter: ${name}, error: illegal base64 data at input byte ${at}`);
  // Neither alphabet: the error is the URL-safe decoding's (the last one tried), at its
  // first byte outside that alphabet.
  if (!/^[A-Za-z0-9+/]*$/.test(body) && !/^[A-Za-z0-9_-]*$/.test(body)) throw fail(body.search(/[^A-Za-z0-9_-]/));
  if (body.length % 4 === 1) throw fail(body.length - 1);
  if (body.length !== value.length && value.length % 4 !== 0) throw fail(body.length);
  const padded = body.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (body.length % 4)) % 4);
  return fromBase64(padded);
}

/** wasmd's check of a query (RawContractMessage.ValidateBasic: valid JSON), 400 code 3 "invalid query data". */
function jsonQuery(bytes: Uint8Array): Uint8Array {
  try {
    JSON.parse(fromUtf8(bytes));
  } catch {
    throw invalidArgument('invalid query data');
  }
  return bytes;
}

/**
 * The contract refused the query, or there is no contract at the address: the node's body,
 * code 2 (Unknown) with wasmd's text ("Generic error: …: query wasm contract failed",
 * "address <a>: no such contract"), with HTTP 400 rather than grpc-gateway's 500: the
 * query, not the service, is at fault, and clients retry a 5xx (docs/chain-api.md,
 * "Contracts"; the same choice as a refused simulation).
 */
function refused(error: unknown): never {
  if (error instanceof GatewayError && error.code === GRPC.UNKNOWN)
    throw new HttpError(400, error.message, undefined, {}, gatewayBody(GRPC.UNKNOWN, error.message));
  throw error;
}

/** The wasm module's query client, one per server. */
const wasmOf = perContext((ctx) => new WasmQuery(createProtobufRpcClient(ctx.chain.queries)));

export const wasmRoutes: Route<ChainApiContext>[] = [
  {
    method: 'get',
    path: '/cosmwasm/wasm/v1/contract/:contract_address/smart/:query_data',
    tag: TAGS.contracts,
    summary: "A contract's answer to a JSON query (CW20 `token_info`, `balance`, …)",
    params: z.object({
      contract_address: bech32('contract'),
      query_data: z
        .string()
        .describe('base64 (standard or URL-safe) of the JSON query, e.g. `eyJ0b2tlbl9pbmZvIjp7fX0=`'),
    }),
    responses: { 200: answer('data') },
    handler: (ctx) => async (req, res) => {
      const queryData = jsonQuery(base64PathParam('query_data', req.params.query_data ?? ''));
      const address = addressParam(req.params.contract_address ?? '', ctx.prefixes.account, 'contract address');
      const { data } = await fromQuery(() => wasmOf(ctx).SmartContractState({ address, queryData })).catch(refused);
      let text: string;
      try {
        text = fromUtf8(data);
        JSON.parse(text);
      } catch {
        throw new GatewayError(GRPC.INTERNAL, 'the contract answered with bytes that are not JSON');
      }
      sendJsonText(res, 200, `{"data":${text}}`, NODE_STATE_HEADERS);
    },
  },
];
