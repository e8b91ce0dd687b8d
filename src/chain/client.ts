// Chain access through cosmjs: a CometBFT RPC client for blocks, results, status and
// broadcast, and ABCI queries (cosmjs QueryClient extensions) for contract state.

import { setupWasmExtension } from '@cosmjs/cosmwasm-stargate';
import {
  QueryClient,
  setupAuthExtension,
  setupBankExtension,
  setupStakingExtension,
  setupTxExtension,
} from '@cosmjs/stargate';
import { Comet38Client, HttpClient } from '@cosmjs/tendermint-rpc';

export type ChainQueries = ReturnType<typeof createQueries>;

function createQueries(comet: Comet38Client) {
  return QueryClient.withExtensions(
    comet,
    setupAuthExtension,
    setupBankExtension,
    setupStakingExtension,
    setupTxExtension,
    setupWasmExtension,
  );
}

export interface ChainClient {
  readonly rpcUrl: string;
  readonly comet: Comet38Client;
  /** cosmjs's JSON-RPC client under `comet`, for calls whose raw result is wanted. */
  rawCall<T = unknown>(method: string, params: Record<string, string | number | boolean>): Promise<T>;
  readonly queries: ChainQueries;
  /** Runs a smart query and returns the contract's JSON answer. */
  smartQuery<T = unknown>(contract: string, query: object): Promise<T>;
  disconnect(): void;
}

export function createChainClient(rpcUrl: string, { timeoutMs = 15_000 } = {}): ChainClient {
  const rpc = new HttpClient(rpcUrl, timeoutMs);
  const comet = Comet38Client.create(rpc);
  const queries = createQueries(comet);
  let id = 0;
  return {
    rpcUrl,
    comet,
    rawCall: async <T>(method: string, params: Record<string, string | number | boolean>) =>
      (await rpc.execute({ jsonrpc: '2.0', id: ++id, method, params })).result as T,
    queries,
    smartQuery: (contract, query) => queries.wasm.queryContractSmart(contract, query),
    disconnect: () => comet.disconnect(),
  };
}
