// Wakes the indexer on every new block: a CometBFT `subscribe` to NewBlockHeader over the
// node's websocket (the header is enough to wake on; NewBlock would carry every tx and its
// results, which the indexer reads anyway). Optional: many providers refuse websockets, and
// the indexer polls meanwhile; a refused socket is tried again less and less often. It
// carries no CHAIN_RPC_HEADERS (cosmjs's socket cannot send headers). Built on cosmjs's
// StreamingSocket rather than its WebsocketClient, whose reconnecting socket keeps
// reconnecting after disconnect(); reconnecting is done here.
import { makeJsonRpcId } from '@cosmjs/json-rpc';
import { StreamingSocket } from '@cosmjs/socket';

export interface NewBlockSubscription {
  close(): void;
}

export interface NewBlockOptions {
  onBlock: () => void;
  /** The subscription failed or ended; it is retried after `retryMs`, doubling while it keeps failing. */
  onDown?: (error: unknown) => void;
  /** Called when (re)subscribed. */
  onUp?: () => void;
  retryMs?: number;
  /** The longest wait between tries (a provider that refuses websockets is asked rarely). Default 5 minutes. */
  maxRetryMs?: number;
}

export function websocketUrlOf(rpcUrl: string): string {
  const u = new URL(rpcUrl);
  u.protocol = u.protocol === 'https:' ? 'wss:' : 'ws:';
  u.pathname = `${u.pathname.replace(/\/$/, '')}/websocket`;
  return u.toString();
}

export function subscribeNewBlocks(
  rpcUrl: string,
  { onBlock, onDown, onUp, retryMs = 5000, maxRetryMs = 300_000 }: NewBlockOptions,
): NewBlockSubscription {
  const url = websocketUrlOf(rpcUrl);
  let closed = false;
  let socket: StreamingSocket | undefined;
  let retry: NodeJS.Timeout | undefined;
  let failures = 0; // in a row: each doubles the wait before the next try

  const down = (error: unknown) => {
    if (closed) return;
    try {
      socket?.disconnect();
    } catch {
      // already closed
    }
    socket = undefined;
    onDown?.(error);
    clearTimeout(retry);
    retry = setTimeout(connect, Math.min(maxRetryMs, retryMs * 2 ** failures++));
  };

  function connect() {
    if (closed) return;
    const s = new StreamingSocket(url, 10_000);
    socket = s;
    // events of a socket that has been replaced must not act on its successor
    const current = (fn: (arg?: unknown) => void) => (arg?: unknown) => void (socket === s && fn(arg));
    const subscribeId = makeJsonRpcId();
    s.events.subscribe({
      next: current((message) => {
        let data: { id?: unknown; result?: { data?: unknown }; error?: { message?: string } };
        try {
          data = JSON.parse(String((message as { data: unknown }).data));
        } catch {
          return down(new Error('unreadable websocket message'));
        }
        if (data.error) down(new Error(`subscribe refused: ${data.error.message}`));
        else if (data.result?.data) onBlock();
        else if (data.id === subscribeId && data.result) {
          // the node took the subscription: only now is the socket up (one that opens and
          // refuses it, or closes at once, keeps slowing the retries down)
          failures = 0;
          onUp?.();
        }
      }),
      error: current(down),
      complete: current(() => down(new Error('websocket closed'))),
    });
    s.connect();
    s.connected
      .then(() =>
        s.send(
          JSON.stringify({
            jsonrpc: '2.0',
            id: subscribeId,
            method: 'subscribe',
            params: { query: "tm.event='NewBlockHeader'" },
          }),
        ),
      )
      .catch(down);
  }

  connect();
  return {
    close() {
      closed = true;
      clearTimeout(retry);
      try {
        socket?.disconnect();
      } catch {
        // already closed
      }
    },
  };
}
