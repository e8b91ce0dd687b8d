// The devnet's RPC endpoint: JSON-RPC over HTTP POST, URI-style GET (`/status`,
// `/block?height=5`), and the websocket at `/websocket`. `pause()` closes the listening
// socket and drops connections so callers see the node go away; `resume()` listens again.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Logger } from 'pino';
import polka from 'polka';
import type { DevnetNode } from '../node/node.ts';
import { rpcErrors } from './errors.ts';
import type { Answer } from './json-bytes.ts';
import { callMethod, errorResponse, handleJsonRpcBody, methodResponse, toRpcError } from './json-rpc.ts';
import type { Method } from './method-context.ts';
import { createWebsocketServer } from './websocket.ts';

const MAX_BODY_BYTES = 8 * 1024 * 1024;

export interface RpcServer {
  readonly port: number;
  publishBlock: ReturnType<typeof createWebsocketServer>['publish'];
  /** How many websocket subscriptions are held now. */
  subscriptions(): number;
  pause(): Promise<void>;
  resume(): Promise<void>;
  readonly paused: boolean;
  close(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(rpcErrors.invalidRequest(`request body exceeds ${MAX_BODY_BYTES} bytes`));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export async function startRpcServer(options: {
  node: DevnetNode;
  methods: Record<string, Method>;
  host: string;
  port: number;
  logger: Logger;
}): Promise<RpcServer> {
  const { methods, logger, host } = options;
  const server: Server = createServer();
  // Longer than any client's idle keep-alive (undici's is 4 s), so a connection is never
  // closed here just as a client reuses it.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  const sockets = new Set<Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  const websocket = createWebsocketServer(options.node, methods, logger);

  const send = (res: import('node:http').ServerResponse, status: number, answer: Answer) => {
    if (typeof answer === 'string') {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(answer);
      return;
    }
    // the parts written as they are (no copy of megabytes into one buffer), in one writev
    const parts = answer.buffers();
    const length = parts.reduce((n, p) => n + p.length, 0);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(length) });
    res.cork();
    for (const p of parts) res.write(p);
    res.end();
  };

  const app = polka()
    .post('/', async (req, res) => {
      try {
        send(res, 200, await handleJsonRpcBody(methods, await readBody(req), logger));
      } catch (error) {
        send(res, 200, errorResponse(null, toRpcError(error, logger)));
      }
    })
    .get('/', (_req, res) => send(res, 200, JSON.stringify({ methods: Object.keys(methods).sort() })))
    .get('/:method', async (req, res) => {
      // CometBFT's URI form answers with id -1.
      try {
        send(res, 200, methodResponse(-1, await callMethod(methods, req.params.method!, req.query, 'http')));
      } catch (error) {
        const rpcError = toRpcError(error, logger);
        send(res, rpcError.code === -32601 ? 404 : 500, errorResponse(-1, rpcError));
      }
    });

  server.on('request', app.handler);

  server.on('upgrade', (req, socket, head) => {
    if (new URL(req.url ?? '/', 'http://devnet').pathname !== '/websocket') return socket.destroy();
    websocket.wss.handleUpgrade(req, socket, head, (ws) => websocket.wss.emit('connection', ws, req));
  });

  const listen = (port: number) =>
    new Promise<number>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve((server.address() as AddressInfo).port);
      });
    });
  const stopListening = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      websocket.disconnectAll();
      for (const socket of sockets) socket.destroy();
    });

  const port = await listen(options.port);
  let paused = false;
  return {
    port,
    publishBlock: (block) => {
      if (!paused) websocket.publish(block);
    },
    subscriptions: () => websocket.subscriptions(),
    get paused() {
      return paused;
    },
    async pause() {
      if (paused) return;
      paused = true;
      await stopListening();
    },
    async resume() {
      if (!paused) return;
      await listen(port);
      paused = false;
    },
    async close() {
      if (!paused) await stopListening();
      websocket.close();
      paused = true;
    },
  };
}
