// abci_query: routes a gRPC path to its query and answers like baseapp (code, codespace, log
// on failure; the encoded response as value on success), never throwing at the caller. The
// reflection service is there from SDK 0.47 on (CometBFT 0.37 and 0.38 modes).

import type { ChainState } from '../app/chain-state.ts';
import type { Protocol } from '../core/protocol.ts';
import { asChainError } from '../errors.ts';
import type { TxRunner } from '../tx/run-tx.ts';
import { authBankRoutes } from './auth-bank.ts';
import { paramsRoutes } from './params.ts';
import { queryErrors } from './query-errors.ts';
import { reflectionRoutes } from './reflection.ts';
import type { QueryRoute } from './route.ts';
import { stakingRoutes } from './staking.ts';
import { type NodeIdentity, nodeInfoRoutes, txServiceRoutes, wasmRoutes } from './wasm-tx-node.ts';

export interface AbciQueryResult {
  code: number;
  codespace: string;
  log: string;
  value: Uint8Array;
}

export type AbciQuery = (path: string, data: Uint8Array) => AbciQueryResult;

export function createAbciQuery(
  state: ChainState,
  runner: TxRunner,
  identity: NodeIdentity,
  protocol: Protocol,
): AbciQuery {
  const routes: Record<string, QueryRoute> = {
    ...authBankRoutes(state),
    ...stakingRoutes(state),
    ...paramsRoutes(),
    ...wasmRoutes(state),
    ...txServiceRoutes(runner),
    ...nodeInfoRoutes(identity, protocol),
    ...(protocol.reflection ? reflectionRoutes() : {}),
  };
  return (path, data) => {
    try {
      const handler = Object.hasOwn(routes, path) ? routes[path] : undefined;
      if (!handler) throw queryErrors.unknownPath(path);
      return { code: 0, codespace: '', log: '', value: handler(data) };
    } catch (error) {
      const chainError = asChainError(error);
      return {
        code: chainError.code,
        codespace: chainError.codespace,
        log: chainError.message,
        value: new Uint8Array(),
      };
    }
  };
}
