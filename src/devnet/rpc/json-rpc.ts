// JSON-RPC 2.0 envelopes: dispatches one request (or a batch) to the method table and
// writes the response text, turning every failure into a JSON-RPC error (never a crash).
import type { Logger } from 'pino';
import { RpcError, rpcErrors } from './errors.ts';
import { type Answer, JsonBytes, joinAnswers } from './json-bytes.ts';
import type { Method, MethodResult } from './method-context.ts';
import { POSITIONAL } from './methods.ts';
import { readParams } from './params.ts';

export type RequestId = string | number | null;

export function errorResponse(id: RequestId, error: RpcError): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id,
    error: { code: error.code, message: error.rpcMessage, data: error.data },
  });
}

export function resultResponse(id: RequestId, result: object | string): string {
  const text = typeof result === 'string' ? result : JSON.stringify(result);
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${text}}`;
}

/** The response to a method's result, which may be JSON bytes (a block's stored results). */
export function methodResponse(id: RequestId, result: MethodResult): Answer {
  if (!(result instanceof JsonBytes)) return resultResponse(id, result);
  return joinAnswers(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":`, [result], '', '}');
}

export function toRpcError(error: unknown, logger: Logger): RpcError {
  if (error instanceof RpcError) return error;
  logger.error({ err: error }, 'Failed to answer an RPC request');
  return rpcErrors.internal(error instanceof Error ? error.message : String(error));
}

export async function callMethod(
  methods: Record<string, Method>,
  method: string,
  rawParams: unknown,
  source: 'http' | 'json',
): Promise<MethodResult> {
  const handler = Object.hasOwn(methods, method) ? methods[method] : undefined;
  if (!handler) throw rpcErrors.methodNotFound();
  return handler(readParams(rawParams, POSITIONAL[method] ?? [], source));
}

/** Handles a JSON-RPC request body (object or batch array); returns the response. */
export async function handleJsonRpcBody(
  methods: Record<string, Method>,
  body: string,
  logger: Logger,
): Promise<Answer> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch (error) {
    return errorResponse(null, rpcErrors.parse((error as Error).message));
  }
  if (Array.isArray(parsed)) {
    if (parsed.length === 0) return errorResponse(null, rpcErrors.invalidRequest('empty batch'));
    const responses = await Promise.all(parsed.map((request) => handleOne(methods, request, logger)));
    return joinAnswers('[', responses, ',', ']');
  }
  return handleOne(methods, parsed, logger);
}

async function handleOne(methods: Record<string, Method>, request: unknown, logger: Logger): Promise<Answer> {
  if (!request || typeof request !== 'object' || Array.isArray(request)) {
    return errorResponse(null, rpcErrors.invalidRequest('request must be a JSON object'));
  }
  const {
    jsonrpc,
    id = null,
    method,
    params,
  } = request as { jsonrpc?: unknown; id?: RequestId; method?: unknown; params?: unknown };
  if (jsonrpc !== '2.0')
    return errorResponse(id, rpcErrors.invalidRequest(`jsonrpc must be "2.0", got ${JSON.stringify(jsonrpc ?? '')}`));
  if (typeof method !== 'string' || !method)
    return errorResponse(id, rpcErrors.invalidRequest('method must be a non-empty string'));
  try {
    return methodResponse(id, await callMethod(methods, method, params, 'json'));
  } catch (error) {
    return errorResponse(id, toRpcError(error, logger));
  }
}
