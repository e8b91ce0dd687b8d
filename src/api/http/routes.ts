// A route written once, as data: its OpenAPI description (method, path, the zod schemas of
// its input and answers, summary) and how it answers, given its API's context. Each route
// file exports an array of these; the API's route table joins them, and the server (mount),
// the metrics' route labels (routeLabels) and the OpenAPI document (openapi.ts) all read
// that one table (docs/architecture.md, "The path of a Launchpad API request").
import type { ServerResponse } from 'node:http';
import type { Polka, Request } from 'polka';
import type { RouteDoc } from './openapi.ts';

/** A route handler: polka's request, Node's response; errors are thrown (src/api/http/errors.ts). */
export type Handler = (req: Request, res: ServerResponse) => Promise<void>;

export interface Route<Context> extends RouteDoc {
  /** The handler, made once when the server starts. */
  handler: (ctx: Context) => Handler;
  /** Whether this server serves the route (default: always); a route not served is still described. */
  served?: (ctx: Context) => boolean;
}

/** Registers the served routes of `table` on `app`, in the table's order (the first match answers). */
export function mount<Context>(app: Polka, table: readonly Route<Context>[], ctx: Context): void {
  for (const route of table) {
    if (route.served && !route.served(ctx)) continue;
    app[route.method](route.path, route.handler(ctx));
  }
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The metrics' `route` label of each path of `table`: `/api/tokens/:address` is the label of
 * every `/api/tokens/<segment>`. A static path is tried before a parameter at its place
 * (`blocks/latest` before `blocks/:height`), as the router does.
 */
export function routeLabels(table: readonly RouteDoc[]): [RegExp, string][] {
  const paths = [...new Set(table.map((r) => r.path))];
  return paths.map((path): [RegExp, string] => [
    new RegExp(
      `^${path
        .split('/')
        .map((segment) => (segment.startsWith(':') ? '[^/]+' : escapeRegExp(segment)))
        .join('/')}$`,
    ),
    path,
  ]);
}
