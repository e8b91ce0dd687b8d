// A byte-level SSE reader for tests: every field line as the server sent it (ids,
// event names, data, comments, retry), so tests see exactly what a client receives.
import http from 'node:http';

export interface SseEvent {
  id?: string;
  event?: string;
  data?: string;
  retry?: string;
  comments: string[];
}

export interface SseStream {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** Every block received so far (events and comment-only blocks). */
  blocks: SseEvent[];
  /** Blocks that carry an event. */
  events(): SseEvent[];
  /** Resolves once `predicate` holds for the blocks received (or rejects after `timeoutMs`). */
  until(predicate: (blocks: SseEvent[]) => boolean, timeoutMs?: number): Promise<void>;
  /** Resolves when the server ends the stream ('end') or the connection closes. */
  ended: Promise<'end' | 'closed'>;
  close(): void;
}

function parseBlock(text: string): SseEvent {
  const block: SseEvent = { comments: [] };
  for (const line of text.split('\n')) {
    if (line.startsWith(':')) block.comments.push(line.slice(1).trim());
    else {
      const at = line.indexOf(':');
      const field = at < 0 ? line : line.slice(0, at);
      const value = at < 0 ? '' : line.slice(at + 1).replace(/^ /, '');
      if (field === 'data') block.data = block.data === undefined ? value : `${block.data}\n${value}`;
      else if (field === 'id' || field === 'event' || field === 'retry') block[field] = value;
    }
  }
  return block;
}

export function openSse(url: string, headers: Record<string, string> = {}): Promise<SseStream> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers: { Accept: 'text/event-stream', ...headers } }, (res) => {
      const blocks: SseEvent[] = [];
      const waiters = new Set<() => void>();
      let buffer = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          blocks.push(parseBlock(buffer.slice(0, end)));
          buffer = buffer.slice(end + 2);
        }
        for (const w of waiters) w();
      });
      res.on('error', () => {});
      const ended = new Promise<'end' | 'closed'>((done) => {
        res.once('end', () => done('end'));
        res.once('close', () => done(res.complete ? 'end' : 'closed'));
      });
      resolve({
        ended,
        status: res.statusCode ?? 0,
        headers: res.headers,
        blocks,
        events: () => blocks.filter((b) => b.event !== undefined),
        until(predicate, timeoutMs = 10_000) {
          if (predicate(blocks)) return Promise.resolve();
          return new Promise((ok, fail) => {
            const timer = setTimeout(() => {
              waiters.delete(check);
              // the events received (not the keepalives) say what the stream got instead
              const got = blocks.filter((b) => b.event !== undefined || b.id !== undefined).slice(-5);
              fail(
                new Error(
                  `SSE condition not met within ${timeoutMs} ms (${blocks.length} blocks received; the last with an event or id: ${JSON.stringify(got)})`,
                ),
              );
            }, timeoutMs);
            const check = () => {
              if (!predicate(blocks)) return;
              clearTimeout(timer);
              waiters.delete(check);
              ok();
            };
            waiters.add(check);
          });
        },
        close: () => req.destroy(),
      });
    });
    req.on('error', reject);
  });
}
