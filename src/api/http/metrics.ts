// Prometheus metrics of an API process (GET /metrics): request counts and durations by
// route and status, the indexer's position and lag, and the SSE feed's subscribers.
import type { IncomingMessage, ServerResponse } from 'node:http';
import client from 'prom-client';
import type { IndexStatus } from './index-status.ts';

export interface MetricsOptions {
  /** Routes by pattern, for the `route` label (anything else is `other`). */
  routes: readonly [RegExp, string][];
  indexerStatus?: () => IndexStatus;
  feed?: () => { subscribers: number; lastEventId: number; dropped: number };
}

export function createMetrics({ routes, indexerStatus, feed }: MetricsOptions) {
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry });
  /** A route's name for labels: one of the served routes, else `other`, so label values stay few whatever clients ask for. */
  const routeLabel = (path: string) => routes.find(([pattern]) => pattern.test(path))?.[1] ?? 'other';
  const duration = new client.Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP requests by route and status (SSE streams are counted when they end)',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  if (indexerStatus) {
    const gauge = (name: string, help: string, value: (s: IndexStatus) => number | null) =>
      new client.Gauge({
        name,
        help,
        registers: [registry],
        collect() {
          const v = value(indexerStatus());
          if (v === null) this.reset();
          else this.set(v);
        },
      });
    gauge('indexer_indexed_height', 'Last block height committed to the database', (s) => s.indexedHeight);
    gauge('indexer_tip_height', 'Latest block height the node reported', (s) => s.tipHeight);
    gauge('indexer_lag_blocks', 'Blocks the index is behind the node', (s) => s.lagBlocks);
    gauge('indexer_lag_seconds', 'Seconds between now and the last indexed block time', (s) => s.lagSeconds);
    gauge('indexer_up', '1 while the indexer is syncing or live, 0 while standing by, retrying or stopped', (s) =>
      s.state === 'live' || s.state === 'syncing' ? 1 : 0,
    );
  }
  if (feed) {
    new client.Gauge({
      name: 'sse_subscribers',
      help: 'Open SSE feed connections',
      registers: [registry],
      collect() {
        this.set(feed().subscribers);
      },
    });
    new client.Gauge({
      name: 'sse_last_event_id',
      help: 'Newest outbox id this process has sent',
      registers: [registry],
      collect() {
        this.set(feed().lastEventId);
      },
    });
    new client.Gauge({
      name: 'sse_dropped_subscribers',
      help: 'Subscribers dropped for not reading (since start)',
      registers: [registry],
      collect() {
        this.set(feed().dropped);
      },
    });
  }

  return {
    registry,
    middleware(req: IncomingMessage & { path?: string }, res: ServerResponse, next: () => void) {
      const end = duration.startTimer({ method: req.method, route: routeLabel(req.path ?? '') });
      res.once('close', () => end({ status: res.statusCode }));
      next();
    },
    async handler(_req: IncomingMessage, res: ServerResponse) {
      const body = await registry.metrics();
      res.writeHead(200, { 'Content-Type': registry.contentType });
      res.end(body);
    },
  };
}
