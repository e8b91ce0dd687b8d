// JSON-RPC errors as CometBFT's RPC server writes them (code, message, data).
import { DevnetError } from '../errors.ts';

export class RpcError extends DevnetError {
  constructor(
    readonly code: number,
    readonly rpcMessage: string,
    readonly data: string,
  ) {
    super(data || rpcMessage);
    this.name = 'RpcError';
  }
}

export const rpcErrors = {
  parse: (data: string) => new RpcError(-32700, 'Parse error. Invalid JSON', data),
  invalidRequest: (data: string) => new RpcError(-32600, 'Invalid Request', data),
  methodNotFound: () => new RpcError(-32601, 'Method not found', ''),
  invalidParams: (data: string) => new RpcError(-32602, 'Invalid params', data),
  /** CometBFT answers failures inside a method (bad height, unknown tx…) as internal errors. */
  internal: (data: string) => new RpcError(-32603, 'Internal error', data),
};
