// The Chain API's route table: every route it serves, in the order the router tries them
// (`blocks/latest` before `blocks/:height`), each written once in its route file as data
// (src/api/http/routes.ts). The server (src/api/chain/server.ts) mounts it and the OpenAPI
// document (src/api/chain/openapi.ts) describes it.
import type { Route } from '../http/routes.ts';
import type { ChainApiContext } from './context.ts';
import { bankRoutes } from './routes/bank.ts';
import { blocksRoutes } from './routes/blocks.ts';
import { broadcastRoutes } from './routes/broadcast.ts';
import { networkRoutes } from './routes/network.ts';
import { stakingRoutes } from './routes/staking.ts';
import { txsRoutes } from './routes/txs.ts';
import { wasmRoutes } from './routes/wasm.ts';

export const CHAIN_ROUTES: readonly Route<ChainApiContext>[] = [
  ...blocksRoutes,
  ...txsRoutes,
  ...broadcastRoutes,
  ...bankRoutes,
  ...stakingRoutes,
  ...networkRoutes,
  ...wasmRoutes,
];
