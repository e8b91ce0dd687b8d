// POST /api/sql and GET /api/sql/relations (docs/sql.md): one read-only SELECT over the
// allow-listed relations, checked by PostgreSQL's parser (../sql/check.ts) and run in a
// rolled-back read-only transaction (../sql/run.ts); answered as JSON, or CSV by `Accept`.

import { stringify } from 'csv-stringify/sync';
import Negotiator from 'negotiator';
import { z } from 'zod';
import { BodyTooLargeError, readBody } from '../../http/body.ts';
import { badRequest, HttpError } from '../../http/errors.ts';
import { CORS_HEADERS, sendJson } from '../../http/respond.ts';
import type { Handler } from '../../http/routes.ts';
import { parseOrThrow } from '../../http/validate.ts';
import type { LaunchpadContext, LaunchpadRoute, SqlContext } from '../context.ts';
import { checkSql, MAX_NESTING, SqlRefused, tooDeepAt } from '../sql/check.ts';
import { MAX_PARAMS, type SqlAnswer, SqlFailed } from '../sql/run.ts';

/** The largest query text, in bytes. */
export const SQL_BODY_LIMIT = 64 * 1024;

const requestBody = z.strictObject({
  sql: z.string().describe('One SELECT over the allow-listed relations; `$1`… for parameters'),
  params: z
    .array(
      z.union([
        z
          .string()
          .refine(
            (value) => tooDeepAt(value) === undefined,
            `must nest brackets at most ${MAX_NESTING} deep (a JSON value's too)`,
          ),
        z.number().refine(Number.isFinite, 'must be a finite number'),
        z.boolean(),
        z.null(),
      ]),
    )
    .max(MAX_PARAMS)
    .optional()
    .describe('The values of `$1`, `$2`…: strings, numbers, booleans or null (send large integers as strings)'),
});

const column = z.strictObject({
  name: z.string(),
  type: z.string().describe('PostgreSQL type, as format_type names it'),
});
const answerBody = z.strictObject({
  columns: z.array(column),
  rows: z.array(z.array(z.string().nullable())).describe("each value as PostgreSQL's text for it (what psql prints)"),
  truncated: z.boolean().describe('true when the query had more rows than SQL_MAX_ROWS: only the first are here'),
});
const refusal = z.strictObject({
  error: z.enum(['Query refused', 'Query failed', 'Invalid request body']),
  details: z.array(
    z.looseObject({
      message: z.string(),
      position: z.number().int().optional().describe('where in the query, in characters from 1'),
      code: z.string().optional().describe("PostgreSQL's SQLSTATE, when the database refused it"),
    }),
  ),
});

/** Refuses the request when SQL over HTTP is off here (SQL_API). */
const servedOrThrow = (sql: SqlContext) => {
  if (sql.off) throw new HttpError(403, 'SQL over HTTP is off on this server', [{ message: sql.off }]);
};

async function readQuery(req: Parameters<Handler>[0]): Promise<z.output<typeof requestBody>> {
  let raw: Buffer;
  try {
    raw = await readBody(req, SQL_BODY_LIMIT);
  } catch (error) {
    if (error instanceof BodyTooLargeError)
      throw new HttpError(413, 'Request body too large', [{ message: `a query is at most ${SQL_BODY_LIMIT} bytes` }]);
    throw badRequest('Invalid request body', [{ message: 'the request body could not be read' }]);
  }
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  const text = raw.toString('utf8');
  // curl --data-binary @query.sql -H 'Content-Type: application/sql'
  if (type === 'application/sql') return { sql: text };
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    // the query alone, sent as text (fetch's default type for a string body) or with no type
    if (type === 'text/plain' || type === '') return { sql: text };
    throw badRequest('Invalid request body', [
      { message: 'must be JSON: {"sql": "SELECT …", "params": [...]} (or the query alone as application/sql)' },
    ]);
  }
  return parseOrThrow(requestBody, body, 'Invalid request body');
}

/** Types whose output text is a number, a truth value or a time: never taken for a formula. */
const PLAIN_TYPE = /^(smallint|integer|bigint|numeric|real|double precision|boolean|date|time|timestamp|interval)\b/;
/** How a cell a spreadsheet takes for a formula begins (OWASP's "CSV injection"), full-width forms too. */
const FORMULA_START = /^[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20]/;

/**
 * The answer as CSV records, its column names first: a text value that a spreadsheet would run as a formula (a
 * token named `=HYPERLINK(…)`) is sent with a `'` before it, which spreadsheets show as text.
 * Numbers, truth values and times are sent as they are (a negative number is no formula); the
 * JSON answer is never altered (docs/sql.md).
 */
function csvRows(answer: SqlAnswer): SqlAnswer['rows'] {
  const inert = (text: string) => (FORMULA_START.test(text) ? `'${text}` : text);
  const header = answer.columns.map((c) => inert(c.name));
  const texts = answer.columns.flatMap((c, i) => (PLAIN_TYPE.test(c.type) ? [] : [i]));
  if (texts.length === 0) return [header, ...answer.rows];
  const rows = answer.rows.map((row) => {
    let out = row;
    for (const i of texts) {
      const value = row[i];
      if (typeof value !== 'string' || !FORMULA_START.test(value)) continue;
      if (out === row) out = [...row];
      out[i] = inert(value);
    }
    return out;
  });
  return [header, ...rows];
}

function sendAnswer(req: Parameters<Handler>[0], res: Parameters<Handler>[1], answer: SqlAnswer) {
  const csv = new Negotiator(req).mediaType(['application/json', 'text/csv']) === 'text/csv';
  const headers = { 'X-Truncated': String(answer.truncated), 'Cache-Control': 'no-store' };
  if (!csv) return sendJson(res, 200, answer, headers);
  // an empty text quoted (""), told apart from NULL (an empty field), as COPY … CSV does
  const body = stringify(csvRows(answer), {
    eof: true,
    record_delimiter: 'unix',
    cast: { string: (value) => (value === '' ? { value, quoted_empty: true } : value) },
  });
  res.writeHead(200, {
    ...CORS_HEADERS,
    'Access-Control-Expose-Headers': `${CORS_HEADERS['Access-Control-Expose-Headers']}, X-Truncated`,
    'Content-Type': 'text/csv; charset=utf-8; header=present',
    'Content-Length': Buffer.byteLength(body),
    ...headers,
  });
  res.end(body);
}

function sqlQuery(ctx: LaunchpadContext): Handler {
  const sql = ctx.sql!;
  return async (req, res) => {
    servedOrThrow(sql);
    await sql.limit(req, res, () => {});
    const { sql: text, params = [] } = await readQuery(req);
    try {
      const checked = await checkSql(text, await sql.runner.refusedFields());
      sendAnswer(req, res, await sql.queue(() => sql.runner.run(checked, params)));
    } catch (error) {
      if (error instanceof SqlRefused) {
        const failed = error instanceof SqlFailed;
        throw badRequest(failed ? 'Query failed' : 'Query refused', [
          {
            message: error.message,
            ...(error.position !== undefined && { position: error.position }),
            ...(failed && error.code !== undefined && { code: error.code }),
          },
        ]);
      }
      throw error;
    }
  };
}

function sqlRelations(ctx: LaunchpadContext): Handler {
  const sql = ctx.sql!;
  return async (_req, res) => {
    servedOrThrow(sql);
    sendJson(res, 200, { relations: await sql.runner.relations() }, { 'Cache-Control': 'no-store' });
  };
}

const served = (ctx: LaunchpadContext) => ctx.sql !== undefined;

/** This file's routes (src/api/launchpad/route-table.ts serves and describes them). */
export const sqlRoutes: LaunchpadRoute[] = [
  {
    method: 'post',
    path: '/api/sql',
    tag: 'SQL',
    summary: 'One read-only SELECT over the tables and views made for analysts',
    description:
      'Checked by PostgreSQL’s parser and refused (400, with the reason and its position) unless it is one SELECT naming only allow-listed relations, functions, operators and types (docs/sql.md); run in a read-only transaction that is rolled back. At most SQL_MAX_ROWS rows (`truncated` says when there were more); a time limit (SQL_TIMEOUT_MS on a server, an estimated cost cap, SQL_MAX_COST, embedded). `Accept: text/csv` answers CSV with a header row (`X-Truncated` says whether rows were left out). Its own rate limit: SQL_RATE_LIMIT per client per RATE_LIMIT_WINDOW_S. Served as SQL_API says (default: only when HOST is a loopback address).',
    body: {
      description: 'The query and its parameters (or the query alone, as `application/sql`)',
      schema: requestBody,
    },
    responses: {
      200: { description: 'The rows (JSON, or CSV by Accept)', body: answerBody },
      400: { description: 'The query was refused, or the database could not run it', body: refusal },
      403: { description: 'SQL over HTTP is off on this server (SQL_API)' },
      413: { description: 'The query is longer than 64 KiB' },
      503: { description: 'Too many queries are waiting: retry' },
    },
    served,
    handler: sqlQuery,
  },
  {
    method: 'get',
    path: '/api/sql/relations',
    tag: 'SQL',
    summary: 'The relations POST /api/sql may read, with their columns',
    description: 'What `\\d` shows in `npm run sql`.',
    responses: {
      200: {
        description: 'Each allow-listed relation',
        body: z.strictObject({
          relations: z.array(
            z.strictObject({
              name: z.string(),
              kind: z.enum(['table', 'view', 'continuous aggregate']),
              description: z.string(),
              columns: z.array(column),
            }),
          ),
        }),
      },
      403: { description: 'SQL over HTTP is off on this server (SQL_API)' },
    },
    served,
    handler: sqlRelations,
  },
];
