// Chain access through cosmjs: a CometBFT RPC client for blocks, results, status and
// broadcast, and ABCI queries (cosmjs QueryClient extensions) for contract state.
import { Comet38Client, HttpClient, WebsocketClient } from '@cosmjs/tendermint-rpc';
import { QueryClient, setupBankExtension, setupAuthExtension, setupStakingExtension, setupTxExtension } from '@cosmjs/stargate';
import { setupWasmExtension } from '@cosmjs/cosmwasm-stargate';

export type ChainQueries = ReturnType<typeof createQueries>;

function createQueries(comet: Comet38Client) {
  return QueryClient.withExtensions(comet, setupAuthExtension, setupBankExtension, setupStakingExtension, setupTxExtension, setupWasmExtension);
}

export interface ChainClient {
  readonly rpcUrl: string;
  readonly comet: Comet38Client;
  readonly queries: ChainQueries;
  /** Runs a smart query and returns the contract's JSON answer. */
  smartQuery<T = unknown>(contract: string, query: object): Promise<T>;
  /** The websocket endpoint of the same node, for NewBlock subscriptions. */
  readonly websocketUrl: string;
  disconnect(): void;
}

export function websocketUrlOf(rpcUrl: string): string {
  const u = new URL(rpcUrl);
  u.protocol = u.protocol === 'https:' ? 'wss:' : 'ws:';
  u.pathname = `${u.pathname.replace(/\/$/, '')}/websocket`;
  return u.toString();
}

export function createChainClient(rpcUrl: string, { timeoutMs = 15_000 } = {}): ChainClient {
  const comet = Comet38Client.create(new HttpClient(rpcUrl, timeoutMs));
  const queries = createQueries(comet);
  return {
    rpcUrl,
    comet,
    queries,
    websocketUrl: websocketUrlOf(rpcUrl),
    smartQuery: (contract, query) => queries.wasm.queryContractSmart(contract, query),
    disconnect: () => comet.disconnect(),
  };
}

/** A websocket CometBFT client; cosmjs reconnects nothing by itself, so callers handle errors. */
export function createWebsocketClient(url: string, onError: (error: unknown) => void): Comet38Client {
  return Comet38Client.create(new WebsocketClient(url, onError));
}
