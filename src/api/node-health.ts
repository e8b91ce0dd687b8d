// The node health port (SPEC 4.5, RPC_PORT): `GET /health` answers in CometBFT's
// JSON-RPC envelope, an empty result when the chain node this service reads answers its
// own health check, a JSON-RPC error (HTTP 503) when it does not.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ChainClient } from '../chain/client.ts';
import { JSON_TYPE } from './http/respond.ts';

export async function startNodeHealth({ chain, host, port }: { chain: ChainClient; host: string; port: number }) {
  const send = (res: http.ServerResponse, status: number, body: unknown) => {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'Content-Type': JSON_TYPE, 'Content-Length': Buffer.byteLength(text), 'Access-Control-Allow-Origin': '*' });
    res.end(text);
  };
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' || path !== '/health') {
      return send(res, 404, { jsonrpc: '2.0', id: -1, error: { code: -32601, message: 'Method not found', data: `only GET /health is served here` } });
    }
    chain.comet.health().then(
      () => send(res, 200, { jsonrpc: '2.0', id: -1, result: {} }),
      (error: Error) => send(res, 503, { jsonrpc: '2.0', id: -1, error: { code: -32603, message: 'Internal error', data: `chain node unreachable: ${error.message}` } }),
    );
  });
  server.listen(port, host);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${address.port}/health`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
