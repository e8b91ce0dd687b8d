// The Chain API's part of the OpenAPI document the Launchpad API serves at
// /api/openapi.json: its route table (src/api/chain/route-table.ts, each route described
// beside its handler in its route file), its tags, its port and the answers every route may
// give in the gateway's error body (src/api/chain/route-docs.ts).
import type { ApiGroup } from '../http/openapi.ts';
import { gatewayError, TAGS } from './route-docs.ts';
import { CHAIN_ROUTES } from './route-table.ts';

/** The Chain API's part of the document: its routes, its port, its error body. */
export const chainApiGroup = {
  tags: [TAGS.blocks, TAGS.broadcast, TAGS.bank, TAGS.contracts, TAGS.staking, TAGS.network].map((name) => ({
    name,
    description: "The Chain API, on its own port (CHAIN_API_PORT): the Cosmos SDK's REST gateway",
  })),
  group: {
    routes: CHAIN_ROUTES,
    servers: [
      {
        url: 'http://{host}:{port}',
        description: 'the Chain API',
        variables: {
          host: { default: '127.0.0.1', description: 'the host the service runs on (HOST)' },
          port: { default: '1317', description: 'CHAIN_API_PORT' },
        },
      },
    ],
    invalid: { description: 'A parameter is invalid (code 3), in grpc-gateway’s words', body: gatewayError },
    common: {
      429: { description: 'Rate limit exceeded (code 8)', body: gatewayError, headers: { 'Retry-After': 'seconds' } },
      500: { description: 'An unexpected failure, or the node’s own (code 2 or 13)', body: gatewayError },
      503: { description: 'The chain node cannot be reached (code 14)', body: gatewayError },
    },
  } satisfies ApiGroup,
};
