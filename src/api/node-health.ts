// The node health port (RPC_PORT): `GET /health` answers in CometBFT's
// JSON-RPC envelope, an empty result when the chain node this service reads answers its
// own health check, a JSON-RPC error (HTTP 503) when it does not.
import http from 'node:http';
import type { ChainClient } from '../chain/client.ts';
import { listenOn } from './http/listen.ts';
import { sendJson } from './http/respond.ts';

export async function startNodeHealth({ chain, host, port }: { chain: ChainClient; host: string; port: number }) {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' || path !== '/health') {
      return sendJson(res, 404, {
        jsonrpc: '2.0',
        id: -1,
        error: { code: -32601, message: 'Method not found', data: 'only GET /health is served here' },
      });
    }
    chain.comet.health().then(
      () => sendJson(res, 200, { jsonrpc: '2.0', id: -1, result: {} }),
      (error: Error) =>
        sendJson(res, 503, {
          jsonrpc: '2.0',
          id: -1,
          error: { code: -32603, message: 'Internal error', data: `chain node unreachable: ${error.message}` },
        }),
    );
  });
  const url = await listenOn(server, host, port);
  return {
    url: `${url}/health`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
