// cosmjs's CometBFT client for each protocol version, and a block decoded by it from an
// answer already read (src/indexer/shape-block.ts reads a block's answer off the thread
// that fetched it; cosmjs decodes it there as it would have here).
import type { JsonRpcRequest } from '@cosmjs/json-rpc';
import {
  Comet1Client,
  Comet38Client,
  type CometClient,
  type RpcClient,
  Tendermint37Client,
} from '@cosmjs/tendermint-rpc';
import type { CometProtocol } from './node-events.ts';
import type { CometBlock } from './rest-block.ts';

export function cometFor(protocol: CometProtocol, rpc: RpcClient): CometClient {
  if (protocol === '0.38') return Comet38Client.create(rpc);
  if (protocol === '1') return Comet1Client.create(rpc);
  // 0.34's block and status are 0.37's shapes (its event encoding is read in node-events.ts)
  return Tendermint37Client.create(rpc);
}

/** A `block` answer's result as cosmjs's client for the protocol decodes it (throws what cosmjs throws). */
export function decodeBlock(protocol: CometProtocol, height: number, result: unknown): Promise<CometBlock> {
  const answered: RpcClient = {
    execute: async (request: JsonRpcRequest) => ({ jsonrpc: '2.0', id: request.id, result: result as never }),
    disconnect: () => {},
  };
  return cometFor(protocol, answered).block(height) as Promise<CometBlock>;
}
