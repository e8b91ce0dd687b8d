// The Launchpad API's OpenAPI document (GET /api/openapi.json), made from its route table and
// the Chain API's (docs/architecture.md, "Describing a route"), and what every route of the
// API may answer besides its own answers: the error body, the rate limit's headers.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { chainApiGroup } from '../chain/openapi.ts';
import { type ApiGroup, openApiDocument, type ResponseDoc, type RouteDoc } from '../http/openapi.ts';

/** The Launchpad API's error body (src/api/http/errors.ts). */
export const errorBody = z
  .object({
    error: z.string().describe('what went wrong, in words'),
    details: z
      .array(
        z.looseObject({
          parameter: z.string().optional().describe('the query or path parameter at fault'),
          message: z.string(),
        }),
      )
      .optional()
      .describe('one entry per problem: the parameter and what it must be'),
    request_id: z.string().optional().describe('on a 500 or 503: the id of the log line with the cause'),
  })
  .meta({ id: 'Error' });

const RATE_HEADERS = {
  'X-RateLimit-Limit': 'requests allowed per client per window (LAUNCHPAD_RATE_LIMIT)',
  'X-RateLimit-Remaining': 'requests left in the window',
  'X-RateLimit-Reset': 'Unix time in seconds at which the window ends',
};

export const notFoundResponse = (what: string): ResponseDoc => ({
  description: `${what}: \`{"error":"Token not found"}\``,
  body: errorBody,
});

const launchpadGroup = (routes: readonly RouteDoc[]): ApiGroup => ({
  routes,
  invalid: {
    description: 'A parameter is invalid: one detail per parameter, saying what it must be',
    body: errorBody,
    headers: RATE_HEADERS,
  },
  common: {
    429: {
      description: 'Rate limit exceeded (the page and its static files are not counted; an SSE connection counts once)',
      body: errorBody,
      headers: { ...RATE_HEADERS, 'Retry-After': 'seconds until the window ends' },
    },
    500: { description: 'An unexpected failure, logged with `request_id`', body: errorBody },
    503: {
      description: 'The database cannot be reached',
      body: errorBody,
      headers: { 'Retry-After': 'seconds to wait' },
    },
  },
});

const packageVersion = (): string => {
  const file = path.join(import.meta.dirname, '..', '..', '..', 'package.json');
  return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
};

/** The whole document: the Launchpad API (`routes`) at this server, the Chain API at its own port. */
export function launchpadOpenApi(routes: readonly RouteDoc[]): Record<string, unknown> {
  return openApiDocument(
    {
      title: 'Launchpad index service',
      version: packageVersion(),
      description:
        'The Launchpad API (tokens, trades, OHLCV candles, the live SSE feed) served at this address, and the Chain API ' +
        "(the Cosmos SDK's REST gateway) on its own port. Amounts are decimal integer strings of base units: of " +
        "the chain's native coin (its denom, display name and decimals: `GET /api/chain`; fields named `*_unative` " +
        'hold it whatever its denom) or of the token; prices are native base units per 10^6 token base units.',
      tags: [
        { name: 'Launchpad', description: 'Tokens, trades, candles and the index’s health' },
        { name: 'Live feed', description: 'Server-Sent Events of trades, launches and graduations' },
        { name: 'Wallet', description: 'Balances, holdings, history, prices and broadcast for a wallet' },
        { name: 'Service', description: 'Metrics and this description' },
        ...chainApiGroup.tags,
      ],
    },
    [launchpadGroup(routes), chainApiGroup.group],
  );
}
