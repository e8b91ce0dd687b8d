// Chain access through cosmjs: a CometBFT RPC client for blocks, results, status and
// broadcast, and ABCI queries (cosmjs QueryClient extensions) for contract state, over
// the provider-grade transport of rpc-client.ts. The node's protocol version (0.34, 0.37,
// 0.38 or 1.x) is read from its `status` (`detect()`), and the cosmjs client for it used.

import { setupWasmExtension } from '@cosmjs/cosmwasm-stargate';
import {
  QueryClient,
  setupAuthExtension,
  setupBankExtension,
  setupStakingExtension,
  setupTxExtension,
} from '@cosmjs/stargate';
import type { CometClient } from '@cosmjs/tendermint-rpc';
import { cometFor } from './comet-clients.ts';
import { type CometProtocol, protocolOf } from './node-events.ts';
import { createRpcClient, type ProviderRpcClient, type RpcClientOptions } from './rpc-client.ts';

export type ChainQueries = ReturnType<typeof createQueries>;

function createQueries(comet: CometClient) {
  return QueryClient.withExtensions(
    comet,
    setupAuthExtension,
    setupBankExtension,
    setupStakingExtension,
    setupTxExtension,
    setupWasmExtension,
  );
}

export interface ChainClientOptions extends RpcClientOptions {
  /** The protocol when known beforehand (tests, a recorded chain); otherwise `detect()` reads it. */
  protocol?: CometProtocol;
  /**
   * How long a detected protocol stands before `ready()` reads `status` again (in the
   * background, answering with the one it holds meanwhile): for a client whose caller does
   * not follow the node's upgrades itself (the APIs'; the indexer detects them in its rounds).
   * Unset: read once.
   */
  protocolRecheckMs?: number;
}

/** How long a client that re-reads the protocol (protocolRecheckMs) waits after a failed first read before the next. */
export const FIRST_READ_RETRY_MS = 1_000;

export interface ChainClient {
  readonly rpcUrl: string;
  /** The cosmjs client for the node's protocol (0.38's until `detect()` has read it). */
  readonly comet: CometClient;
  /** The node's protocol: what `detect()` read, or 0.38 before. */
  readonly protocol: CometProtocol;
  /** Reads the node's version from its `status` and picks the cosmjs client for it; resolves to the protocol. */
  detect(): Promise<CometProtocol>;
  /**
   * The node's protocol, read once when first asked (or as configured): what reading events
   * waits for, so that no event is read in another version's form.
   */
  ready(): Promise<CometProtocol>;
  /**
   * What `ready()` holds now, without waiting for the node: undefined until the protocol is
   * first read (a read is started then, and a due re-read as `ready()` starts one).
   */
  heldProtocol(): CometProtocol | undefined;
  /** One JSON-RPC call through the client's transport, for calls whose raw result is wanted. */
  rawCall<T = unknown>(method: string, params: Record<string, string | number | boolean>): Promise<T>;
  /** The same call's 2xx answer body, unparsed, for answers of megabytes read elsewhere (rpc-client.ts `callBody`). */
  rawCallBody(method: string, params: Record<string, string | number | boolean>, signal?: AbortSignal): Promise<Buffer>;
  readonly queries: ChainQueries;
  /** Runs a smart query and returns the contract's JSON answer. */
  smartQuery<T = unknown>(contract: string, query: object): Promise<T>;
  /** Requests, retries and 429s so far. */
  readonly stats: ProviderRpcClient['stats'];
  /** Calls to the node in flight at once, at most (CHAIN_RPC_CONCURRENCY for the service's clients). */
  readonly concurrency: number;
  disconnect(): void;
}

export function createChainClient(rpcUrl: string, options: ChainClientOptions = {}): ChainClient {
  const rpc = createRpcClient(rpcUrl, options);
  let protocol: CometProtocol = options.protocol ?? '0.38';
  let comet = cometFor(protocol, rpc);
  let known: Promise<CometProtocol> | undefined = options.protocol ? Promise.resolve(protocol) : undefined;
  const recheckMs = options.protocol ? undefined : options.protocolRecheckMs;
  let held: CometProtocol | undefined = options.protocol;
  let detectedAt = Number.NEGATIVE_INFINITY;
  let rechecking = false;
  let failed: { at: number; error: unknown } | undefined;
  // ABCI queries have one shape in every version: one QueryClient serves them all
  const queries = createQueries(comet);
  return {
    rpcUrl,
    get comet() {
      return comet;
    },
    get protocol() {
      return protocol;
    },
    async detect() {
      const status = await rpc.call<{ node_info?: { version?: string } }>('status');
      const detected = protocolOf(String(status.node_info?.version ?? ''));
      if (detected !== protocol) {
        protocol = detected;
        comet = cometFor(protocol, rpc);
      }
      known = Promise.resolve(protocol);
      held = protocol;
      detectedAt = performance.now();
      return protocol;
    },
    ready() {
      // a re-read once a protocol is held (not while the first read is on its way)
      if (held !== undefined && recheckMs !== undefined && !rechecking && performance.now() - detectedAt > recheckMs) {
        rechecking = true;
        // a failed re-read keeps the protocol held, and is tried again at the next call after the wait
        detectedAt = performance.now();
        this.detect()
          .catch(() => {})
          .finally(() => {
            rechecking = false;
          });
      }
      // a client that re-reads does not ask a node that failed the first read again at once
      if (!known && failed && performance.now() - failed.at < FIRST_READ_RETRY_MS) return Promise.reject(failed.error);
      known ??= this.detect().catch((error) => {
        known = undefined; // asked again next time
        if (recheckMs !== undefined) failed = { at: performance.now(), error };
        throw error;
      });
      return known;
    },
    heldProtocol() {
      this.ready().catch(() => {}); // the caller goes on with what is held; a failed read is retried next time
      return held;
    },
    rawCall: <T>(method: string, params: Record<string, string | number | boolean>) => rpc.call<T>(method, params),
    rawCallBody: (method, params, signal) => rpc.callBody(method, params, signal),
    queries,
    smartQuery: (contract, query) => queries.wasm.queryContractSmart(contract, query),
    stats: rpc.stats,
    concurrency: rpc.concurrency,
    disconnect: () => rpc.disconnect(),
  };
}
