// The Cosmos SDK gateway's error contract, which every Chain API answer follows:
// `{"code": <gRPC code>, "message": "…", "details": []}` with the HTTP status grpc-gateway
// derives from the code (docs/chain-api.md, "Errors").
import type { Request } from 'polka';
import { queryRefusal } from '../../chain/errors.ts';
import { type ErrorStyle, HttpError, type NoRoute } from '../http/errors.ts';
import { sendJson } from '../http/respond.ts';
import type { Handler } from '../http/routes.ts';

/** gRPC status codes the Chain API answers with. */
export const GRPC = {
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  OUT_OF_RANGE: 11,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
} as const;

/** grpc-gateway's HTTPStatusFromCode. */
const HTTP_STATUS: Record<number, number> = {
  0: 200,
  1: 499,
  2: 500,
  3: 400,
  4: 504,
  5: 404,
  6: 409,
  7: 403,
  8: 429,
  9: 400,
  10: 409,
  11: 400,
  12: 501,
  13: 500,
  14: 503,
  15: 500,
  16: 401,
};

/** The gRPC code grpc-gateway would answer an HTTP status with (for errors raised below the routes). */
function codeOfStatus(status: number): number {
  if (status === 429) return GRPC.RESOURCE_EXHAUSTED;
  if (status === 503) return GRPC.UNAVAILABLE;
  if (status === 404) return GRPC.NOT_FOUND;
  if (status >= 500) return GRPC.INTERNAL;
  return GRPC.INVALID_ARGUMENT;
}

export const gatewayBody = (code: number, message: string) => ({ code, message, details: [] as never[] });

/** An answer in the gateway's shape; the HTTP status follows from the gRPC code. */
export class GatewayError extends HttpError {
  override name = 'GatewayError';
  constructor(
    readonly code: number,
    message: string,
    headers: Record<string, string | number> = {},
  ) {
    super(HTTP_STATUS[code] ?? 500, message, undefined, headers, gatewayBody(code, message));
  }
}

export const invalidArgument = (message: string) => new GatewayError(GRPC.INVALID_ARGUMENT, message);
export const notFound = (message: string) => new GatewayError(GRPC.NOT_FOUND, message);

/**
 * Errors the Chain API did not raise itself (database down, a bug), in the gateway's shape.
 * The id of the log line with the cause travels as gRPC's own error detail for it,
 * `google.rpc.RequestInfo`, so the body keeps exactly the gateway's three keys.
 */
export const CHAIN_ERRORS: ErrorStyle = {
  body: (status, message, requestId) => ({
    ...gatewayBody(codeOfStatus(status), message),
    details: requestId ? [{ '@type': REQUEST_INFO, request_id: requestId, serving_data: '' }] : [],
  }),
};
const REQUEST_INFO = 'type.googleapis.com/google.rpc.RequestInfo';

/** A route the gateway does not have: 501 `Not Implemented`, as a node without the module answers. */
export const chainNoRoute: NoRoute = () => ({ status: 501, body: gatewayBody(GRPC.UNIMPLEMENTED, 'Not Implemented') });

const GRPC_NAMES: Record<string, number> = {
  Canceled: 1,
  Unknown: 2,
  InvalidArgument: 3,
  DeadlineExceeded: 4,
  NotFound: 5,
  AlreadyExists: 6,
  PermissionDenied: 7,
  ResourceExhausted: 8,
  FailedPrecondition: 9,
  Aborted: 10,
  OutOfRange: 11,
  Unimplemented: 12,
  Internal: 13,
  Unavailable: 14,
  DataLoss: 15,
  Unauthenticated: 16,
};

/**
 * A node's failure as the gateway answers it. A query the node refused comes back from
 * cosmjs as "Query failed with (<abci code>): rpc error: code = <Name> desc = <text>"
 * (baseapp's gRPC-over-ABCI); that gRPC code and text are the answer. Anything else
 * (no answer, a timeout) means the node is unreachable: 503, code 14.
 */
export function nodeFailure(error: unknown): GatewayError {
  const message = error instanceof Error ? error.message : String(error);
  const grpc = /rpc error: code = (\w+) desc = ([\s\S]*)$/.exec(message);
  if (grpc)
    return new GatewayError(Object.hasOwn(GRPC_NAMES, grpc[1]!) ? GRPC_NAMES[grpc[1]!]! : GRPC.UNKNOWN, grpc[2]!);
  const abci = queryRefusal(error);
  // a module the chain does not have (Osmosis's own mint, staking on a consumer chain): what
  // a node's gateway answers for a route it does not register, 501 (clients read it as "absent")
  if (abci?.code === 6 && abci.log.startsWith('unknown query path'))
    return new GatewayError(GRPC.UNIMPLEMENTED, 'Not Implemented');
  if (abci) return new GatewayError(GRPC.UNKNOWN, abci.log);
  return new GatewayError(GRPC.UNAVAILABLE, 'the chain node cannot be reached');
}

/** Runs a call to the node; its failure becomes the gateway's answer (see nodeFailure). */
export async function fromNode<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof GatewayError) throw error;
    throw nodeFailure(error);
  }
}

/**
 * baseapp's gRPC-over-ABCI wraps a query's gRPC status in an SDK error, appending that
 * error's text (NotFound → ": key not found", InvalidArgument and FailedPrecondition →
 * ": invalid request", Unauthenticated → ": unauthorized", others → ": unknown request").
 * A node's own gateway calls the query in-process and answers the status text alone.
 */
const ABCI_WRAP_SUFFIX: Record<number, string> = {
  [GRPC.NOT_FOUND]: ': key not found',
  [GRPC.INVALID_ARGUMENT]: ': invalid request',
  [GRPC.FAILED_PRECONDITION]: ': invalid request',
  16: ': unauthorized',
};

/**
 * Like fromNode, for a gRPC query the node answered over ABCI: a refusal is worded as the
 * node's gateway words it ("account <a> not found", not "… not found: key not found").
 */
export async function fromQuery<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await fromNode(call);
  } catch (error) {
    if (!(error instanceof GatewayError) || error.code === GRPC.UNAVAILABLE) throw error;
    const suffix = ABCI_WRAP_SUFFIX[error.code] ?? ': unknown request';
    if (!error.message.endsWith(suffix)) throw error;
    throw new GatewayError(error.code, error.message.slice(0, -suffix.length), error.headers);
  }
}

/**
 * What an answer read from the node's state as it is now says to HTTP caches: keep nothing.
 * An account's sequence or a balance changes with the next block, and a CDN in front
 * (docs/chain-api.md, "HTTP caching") keeps an answer without cache headers for its default
 * time: a wallet that signs with a sequence kept there has its next broadcast refused.
 */
export const NODE_STATE_HEADERS = { 'Cache-Control': 'no-store' } as const;

/** A handler answering 200 with `answer`'s JSON, read from the node's state now (NODE_STATE_HEADERS). */
export const nodeStateJson =
  (answer: (req: Request) => Promise<object>): Handler =>
  async (req, res) =>
    sendJson(res, 200, await answer(req), NODE_STATE_HEADERS);
