// The NewBlockHeader subscription against a provider whose websocket opens but refuses the
// subscription (src/chain/new-blocks.ts): it is not taken for up, and is tried again less and
// less often, as a refused connection is.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { WebSocketServer } from 'ws';
import { subscribeNewBlocks } from '../../src/chain/new-blocks.ts';
import { waitFor } from '../helpers/wait.ts';

test('a websocket that opens and refuses the subscription is not up, and is asked again less and less often', async () => {
  const server = http.createServer();
  const wss = new WebSocketServer({ server, path: '/websocket' });
  const tries: number[] = [];
  wss.on('connection', (socket) => {
    tries.push(Date.now());
    socket.on('message', (text) => {
      const { id } = JSON.parse(String(text));
      // what a provider that allows no subscriptions answers
      socket.send(
        JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32603, message: 'subscriptions are disabled' } }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  let up = 0;
  let down = 0;
  const subscription = subscribeNewBlocks(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, {
    onBlock: () => {},
    onUp: () => up++,
    onDown: () => down++,
    retryMs: 50,
    maxRetryMs: 10_000,
  });
  try {
    assert.ok(await waitFor(() => tries.length >= 6, 20_000, 10), 'six tries');
    assert.is(up, 0, 'never up');
    assert.ok(down >= 5);
    // waits of 50, 100, 200, 400 and 800 ms between them at the least: 1.55 s
    assert.ok(tries[5]! - tries[0]! >= 1500, `the sixth try ${tries[5]! - tries[0]!} ms after the first`);
  } finally {
    subscription.close();
    for (const client of wss.clients) client.terminate();
    wss.close();
    server.close();
  }
});

test.run();
