// The node health port (RPC_PORT): `GET /health` answers in CometBFT's
// JSON-RPC envelope, an empty result when the chain node this service reads answers its
// own health check, a JSON-RPC error (HTTP 503) when it does not (docs/chain-api.md,
// "Node health"). The error never names the node: its address is not the caller's business.
import http from 'node:http';
import type { ChainClient } from '../chain/client.ts';
import { type Logger, silentLogger } from '../internal/logger.ts';
import { answerClientError, type ErrorStyle } from './http/errors.ts';
import { listenOn } from './http/listen.ts';
import { sendJson } from './http/respond.ts';

/** A probe waits at most this long for the node (load balancers time out their checks too). */
export const HEALTH_TIMEOUT_MS = 5_000;

const rpcError = (code: number, message: string, data: string) => ({
  jsonrpc: '2.0',
  id: -1,
  error: { code, message, data },
});

/** Requests the HTTP parser refuses, answered as CometBFT's invalid-request error. */
const RPC_ERRORS: ErrorStyle = { body: (_status, message) => rpcError(-32600, 'Invalid Request', message) };

function healthWithin(chain: ChainClient, ms: number): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([chain.comet.health(), timeout]).finally(() => clearTimeout(timer));
}

export async function startNodeHealth({
  chain,
  host,
  port,
  logger = silentLogger,
  timeoutMs = HEALTH_TIMEOUT_MS,
}: {
  chain: ChainClient;
  host: string;
  port: number;
  logger?: Logger;
  timeoutMs?: number;
}) {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' || path !== '/health') {
      return sendJson(res, 404, rpcError(-32601, 'Method not found', 'only GET /health is served here'));
    }
    healthWithin(chain, timeoutMs).then(
      () => sendJson(res, 200, { jsonrpc: '2.0', id: -1, result: {} }),
      (error: Error) => {
        logger.warn({ err: error.message }, 'Node health check failed: the chain node did not answer');
        sendJson(res, 503, rpcError(-32603, 'Internal error', 'the chain node is unreachable'));
      },
    );
  });
  server.on('clientError', (err, socket) => answerClientError(err, socket, RPC_ERRORS));
  const url = await listenOn(server, host, port);
  return {
    url: `${url}/health`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
