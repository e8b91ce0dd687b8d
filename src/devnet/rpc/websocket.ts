// The `/websocket` endpoint: JSON-RPC over a websocket, with `subscribe` to
// tm.event='NewBlock', 'NewBlockHeader' or 'Tx' (optionally narrowed by event conditions),
// `unsubscribe`, `unsubscribe_all`, and every other method as over HTTP. Event payloads take
// the node version's shape: 0.34 and 0.37 carry the block's begin and end block results,
// 0.38 its finalize block result; attributes are base64 in 0.34.
import type { Logger } from 'pino';
import { type WebSocket, WebSocketServer } from 'ws';
import type { CommittedBlock } from '../blocks/block.ts';
import { consensusParamsOf } from '../blocks/consensus.ts';
import type { DevnetNode } from '../node/node.ts';
import { rpcErrors } from './errors.ts';
import { callMethod, errorResponse, methodResponse, type RequestId, resultResponse, toRpcError } from './json-rpc.ts';
import type { Method } from './method-context.ts';
import { eventTxResult, renderBlock, renderBlockEvents, renderHeader, renderTx } from './render.ts';
import { type Condition, matchesEvents, parseQuery } from './tx-search.ts';

const MAX_SUBSCRIPTIONS_PER_CLIENT = 5;

interface Subscription {
  id: RequestId;
  query: string;
  eventType: 'NewBlock' | 'NewBlockHeader' | 'Tx';
  conditions: Condition[];
}

export function createWebsocketServer(node: DevnetNode, methods: Record<string, Method>, logger: Logger) {
  const wss = new WebSocketServer({ noServer: true });
  const clients = new Map<WebSocket, Subscription[]>();

  wss.on('connection', (socket: WebSocket) => {
    clients.set(socket, []);
    socket.on('close', () => clients.delete(socket));
    socket.on('error', () => clients.delete(socket));
    socket.on('message', (raw) => void onMessage(socket, raw.toString()));
  });

  async function onMessage(socket: WebSocket, text: string) {
    let request: { id?: RequestId; method?: string; params?: unknown };
    try {
      request = JSON.parse(text);
    } catch (error) {
      return socket.send(errorResponse(null, rpcErrors.parse((error as Error).message)));
    }
    const id = request.id ?? null;
    try {
      const subscriptions = clients.get(socket);
      if (!subscriptions) return;
      if (request.method === 'subscribe') {
        subscriptions.push(parseSubscription(id, request.params, subscriptions.length));
        return socket.send(resultResponse(id, {}));
      }
      if (request.method === 'unsubscribe') {
        const query = paramQuery(request.params);
        const index = subscriptions.findIndex((s) => s.query === query);
        if (index === -1) throw rpcErrors.internal('subscription not found');
        subscriptions.splice(index, 1);
        return socket.send(resultResponse(id, {}));
      }
      if (request.method === 'unsubscribe_all') {
        subscriptions.length = 0;
        return socket.send(resultResponse(id, {}));
      }
      const answer = methodResponse(
        id,
        await callMethod(methods, String(request.method ?? ''), request.params, 'json'),
      );
      // a text frame, as CometBFT sends
      socket.send(typeof answer === 'string' ? answer : answer.toBuffer(), { binary: false });
    } catch (error) {
      socket.send(errorResponse(id, toRpcError(error, logger)));
    }
  }

  const { protocol } = node;
  const paramUpdates = consensusParamsOf(protocol.comet, 'updates');

  /** ResponseBeginBlock and ResponseEndBlock as 0.34 and 0.37 publish them (empty fields left out). */
  function beginEndResults(block: CommittedBlock) {
    const own = renderBlockEvents(node, block.blockEvents);
    return {
      result_begin_block: own.begin.length ? { events: own.begin } : {},
      result_end_block: {
        validator_updates: null,
        consensus_param_updates: paramUpdates,
        ...(own.end.length ? { events: own.end } : {}),
      },
    };
  }

  function newBlockEvent(block: CommittedBlock): string {
    const { block_id, block: body } = renderBlock(block, node.store, node.consensus);
    if (protocol.blockEvents === 'begin-end') {
      return JSON.stringify({ type: 'tendermint/event/NewBlock', value: { block: body, ...beginEndResults(block) } });
    }
    const own = renderBlockEvents(node, block.blockEvents);
    return JSON.stringify({
      type: 'tendermint/event/NewBlock',
      value: {
        block_id,
        block: body,
        result_finalize_block: {
          events: [...own.begin, ...own.end],
          txs_results: block.txCount ? node.store.wireResults(block.header.height) : null,
          validator_updates: null,
          app_hash: '',
        },
      },
    });
  }

  function newBlockHeaderEvent(block: CommittedBlock): string {
    const header = renderHeader(block);
    const value =
      protocol.blockEvents === 'begin-end'
        ? { header, num_txs: String(block.txCount), ...beginEndResults(block) }
        : { header, result_finalize_block: { events: [] } };
    return JSON.stringify({ type: 'tendermint/event/NewBlockHeader', value });
  }

  function publish(block: CommittedBlock) {
    if (clients.size === 0) return;
    let blockEvent: string | undefined;
    let headerEvent: string | undefined;
    for (const [socket, subscriptions] of clients) {
      for (const sub of subscriptions) {
        if (sub.eventType === 'NewBlock') {
          blockEvent ??= newBlockEvent(block);
          socket.send(eventMessage(sub, blockEvent, 'NewBlock'));
        } else if (sub.eventType === 'NewBlockHeader') {
          headerEvent ??= newBlockHeaderEvent(block);
          socket.send(eventMessage(sub, headerEvent, 'NewBlockHeader'));
        } else {
          const height = block.header.height;
          const results = block.txCount ? node.store.results(height) : [];
          results.forEach((result, index) => {
            if (!sub.conditions.every((c) => matchesEvents(result, c))) return;
            const tx = renderTx(node.store, height, index);
            const data = JSON.stringify({
              type: 'tendermint/event/Tx',
              value: { TxResult: { height: tx.height, index, tx: tx.tx, result: eventTxResult(tx.tx_result) } },
            });
            socket.send(eventMessage(sub, data, 'Tx'));
          });
        }
      }
    }
  }

  return {
    wss,
    publish,
    /** How many subscriptions the connected clients hold now. */
    subscriptions: () => [...clients.values()].reduce((n, subs) => n + subs.length, 0),
    disconnectAll() {
      for (const socket of clients.keys()) socket.terminate();
      clients.clear();
    },
    close() {
      for (const socket of clients.keys()) socket.terminate();
      clients.clear();
      wss.close();
    },
  };
}

function eventMessage(sub: Subscription, data: string, type: string): string {
  return resultResponse(
    sub.id,
    `{"query":${JSON.stringify(sub.query)},"data":${data},"events":{"tm.event":[${JSON.stringify(type)}]}}`,
  );
}

function paramQuery(params: unknown): string {
  const query = Array.isArray(params) ? params[0] : (params as { query?: unknown } | undefined)?.query;
  if (typeof query !== 'string' || !query)
    throw rpcErrors.invalidParams('error converting json params to arguments: query: missing');
  return query;
}

function parseSubscription(id: RequestId, params: unknown, existing: number): Subscription {
  if (existing >= MAX_SUBSCRIPTIONS_PER_CLIENT)
    throw rpcErrors.internal(`max_subscriptions_per_client ${MAX_SUBSCRIPTIONS_PER_CLIENT} reached`);
  const query = paramQuery(params);
  const conditions = parseQuery(query);
  const eventCondition = conditions.find((c) => c.key === 'tm.event');
  const eventType = eventCondition?.value;
  if (eventType !== 'NewBlock' && eventType !== 'NewBlockHeader' && eventType !== 'Tx') {
    throw rpcErrors.internal(
      `this node publishes tm.event='NewBlock', 'NewBlockHeader' and 'Tx'; got ${JSON.stringify(query)}`,
    );
  }
  return { id, query, eventType, conditions: conditions.filter((c) => c !== eventCondition) };
}
