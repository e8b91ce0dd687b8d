// Runs a checked query (check.ts) in a read-only transaction that is always rolled back, as the
// analyst role where the database has it, and returns every value as PostgreSQL's own text for
// it (what psql prints): exact for numeric and int8, the same on both databases
// (docs/sql.md "Answers"). The time limit: statement_timeout on a server; embedded, where no
// statement can be interrupted, the plan's estimated cost, checked before running.
import { type Database, DatabaseError, type ReadOnlyQueryable } from '../../../db/types.ts';
import { ALLOWED_FUNCTIONS, ALLOWED_RELATIONS, ALLOWED_TYPES, ANALYST_ROLE } from './allow-list.ts';
import { type CheckedSql, SqlRefused } from './check.ts';

const EXPLAIN = 'EXPLAIN (FORMAT JSON) ';

export interface SqlLimits {
  /** Rows returned at most; `truncated` says when there were more. */
  maxRows: number;
  /** A server's statement_timeout, in ms. */
  timeoutMs: number;
  /** The largest estimated plan cost run (EXPLAIN's total cost); none when undefined. */
  maxCost: number | undefined;
}

export interface SqlAnswer {
  columns: { name: string; type: string }[];
  /** Each value as PostgreSQL's text for it; null for SQL NULL. */
  rows: (string | null)[][];
  truncated: boolean;
}

/** A query the database refused or could not finish: its message, SQLSTATE and position in the query. */
export class SqlFailed extends SqlRefused {
  override name = 'SqlFailed';
  constructor(
    message: string,
    position: number | undefined,
    readonly code: string | undefined,
  ) {
    super(message, position);
  }
}

/** The most bytes of values an answer holds (their text, as counted by the database); a query past it fails. */
export const MAX_ANSWER_BYTES = 16 * 1024 * 1024;

/** Parameters: JSON scalars, at most this many. */
export const MAX_PARAMS = 100;
export type SqlParam = string | number | boolean | null;

export interface SqlRunner {
  run(checked: CheckedSql, params: readonly SqlParam[]): Promise<SqlAnswer>;
  /** The allow-listed relations that exist, with their columns (for `\d`). */
  relations(): Promise<RelationInfo[]>;
  /** Whether the analyst role bounds what queries read (else the allow-list alone does). */
  usesRole(): Promise<boolean>;
  /** The names a query may not write as a field (check.ts `refusedFields`), read once from the catalog. */
  refusedFields(): Promise<ReadonlySet<string>>;
}

/**
 * Every function that can be called with one argument and every type, on the analyst's search
 * path (pg_catalog and the service's schema), but the columns of the allow-listed relations:
 * PostgreSQL reads a field `x.f` (or `(x).f`) that is no column of `x` as the call `f(x)`, or a
 * cast to `f`, whatever `x` is (a table's row, a number, a function's result in FROM).
 */
const FIELD_CALLS = `
  SELECT DISTINCT f.name FROM (
    SELECT p.proname::text AS name FROM pg_proc p
    WHERE p.pronamespace IN ('pg_catalog'::regnamespace, to_regnamespace(current_schema()))
      AND p.pronargs >= 1 AND p.pronargs - p.pronargdefaults <= 1
    UNION ALL
    SELECT t.typname::text FROM pg_type t
    WHERE t.typnamespace IN ('pg_catalog'::regnamespace, to_regnamespace(current_schema()))
  ) f
  WHERE f.name NOT IN (
    SELECT a.attname::text FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
    WHERE c.relname = ANY($1::text[]) AND c.relnamespace = to_regnamespace(current_schema())::oid
      AND a.attnum > 0 AND NOT a.attisdropped)`;

export interface RelationInfo {
  name: string;
  kind: 'table' | 'view' | 'continuous aggregate';
  description: string;
  columns: { name: string; type: string }[];
}

export function createSqlRunner(db: Database, limits: SqlLimits): SqlRunner {
  const typeNames = new Map<number, string>();
  let role: Promise<string | undefined> | undefined;
  /** The analyst role, when it exists and this service's user may act as it. */
  const analystRole = () =>
    (role ??= db
      .query<{ ok: boolean }>(
        `SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $1) AND pg_has_role(current_user, $1, 'MEMBER') AS ok`,
        [ANALYST_ROLE],
      )
      .then(([row]) => (row?.ok ? ANALYST_ROLE : undefined))
      .catch((error) => {
        role = undefined;
        throw error;
      }));

  let fields: Promise<ReadonlySet<string>> | undefined;
  /** FIELD_CALLS but what the allow-list lets a query call or cast to anyway. */
  const refusedFields = () =>
    (fields ??= db
      .query<{ name: string }>(FIELD_CALLS, [Object.keys(ALLOWED_RELATIONS)])
      .then(
        (rows) =>
          new Set(rows.map((r) => r.name).filter((name) => !ALLOWED_FUNCTIONS.has(name) && !ALLOWED_TYPES.has(name))),
      )
      .catch((error) => {
        fields = undefined;
        throw error;
      }));

  const namesOf = async (types: number[]) => {
    const unknown = [...new Set(types.filter((t) => !typeNames.has(t)))];
    if (unknown.length > 0) {
      const rows = await db.query<{ oid: number; name: string }>(
        `SELECT oid::int AS oid, format_type(oid, NULL) AS name FROM pg_type WHERE oid = ANY($1::oid[])`,
        [unknown],
      );
      for (const r of rows) typeNames.set(r.oid, r.name);
    }
    return types.map((t) => typeNames.get(t) ?? String(t));
  };

  const run = async (checked: CheckedSql, params: readonly SqlParam[]): Promise<SqlAnswer> => {
    const asRole = await analystRole();
    // What the database saw before the user's statement at each step (nothing when describing
    // it): a database error's position is in that text.
    let sentBefore = '';
    const answer = await db
      .readOnly(
        async (tx: ReadOnlyQueryable) => {
          const described = await tx.describe(checked.statement);
          // the statement inside a SELECT that names its columns by position (its own names may
          // repeat), gives each value as its type's output text, and takes one row past the cap;
          // around it, the answer's bytes so far, which end the query once over MAX_ANSWER_BYTES
          // (sql/0024_sql_answer_guard.sql)
          const aliases = described.map((_, i) => `c${i}`);
          const values = aliases.map(
            (c) => `CASE WHEN num_nulls(q.${c}) = 1 THEN NULL ELSE format('%s', q.${c}) END AS ${c}`,
          );
          const rowBytes = aliases.map((c) => `coalesce(octet_length(w.${c}), 0)`).join(' + ') || '0';
          const before = `SELECT ${[...aliases.map((c) => `w.${c}`), `sql_answer_guard(sum(${rowBytes}) OVER (ROWS UNBOUNDED PRECEDING), ${MAX_ANSWER_BYTES}) AS answer_bytes`].join(', ')} FROM (SELECT ${values.join(', ')} FROM (\n`;
          const text = `${before}${checked.statement}\n) AS q${aliases.length > 0 ? `(${aliases.join(', ')})` : ''} LIMIT ${limits.maxRows + 1}) AS w`;
          if (limits.maxCost !== undefined) {
            sentBefore = `${EXPLAIN}${before}`;
            const [plan] = await tx.query<{ 'QUERY PLAN': [{ Plan: { 'Total Cost': number } }] }>(
              `${EXPLAIN}${text}`,
              params,
            );
            const cost = plan?.['QUERY PLAN']?.[0]?.Plan?.['Total Cost'] ?? 0;
            if (cost > limits.maxCost)
              throw new SqlRefused(
                `the query's estimated cost ${Math.round(cost)} is over this server's limit of ${limits.maxCost} (SQL_MAX_COST): narrow it (a time range, a token, a coarser candle view) or add a LIMIT`,
              );
          }
          sentBefore = before;
          const rows = await tx.query<Record<string, string | null>>(text, params);
          return { described, rows: rows.map((r) => aliases.map((c) => r[c] ?? null)) };
        },
        { role: asRole, timeoutMs: limits.timeoutMs },
      )
      .catch((error: unknown) => {
        // unreachable, or given up for a conflict with a compression (the query is not at fault): 503
        if (!(error instanceof DatabaseError) || error.unavailable || error.conflict) throw error;
        throw new SqlFailed(
          error.code === '57014'
            ? `canceled: the query ran longer than this server's limit of ${limits.timeoutMs} ms (SQL_TIMEOUT_MS)`
            : error.message,
          positionInQuery(error.position, sentBefore, checked),
          error.code,
        );
      });
    const types = await namesOf(answer.described.map((c) => c.type));
    const truncated = answer.rows.length > limits.maxRows;
    return {
      columns: answer.described.map((c, i) => ({ name: c.name, type: types[i]! })),
      rows: truncated ? answer.rows.slice(0, limits.maxRows) : answer.rows,
      truncated,
    };
  };

  const relations = async (): Promise<RelationInfo[]> => {
    const rows = await db.query<{
      name: string;
      kind: string;
      cagg: boolean;
      columns: { name: string; type: string }[];
    }>(
      `SELECT c.relname AS name, c.relkind::text AS kind,
              EXISTS (SELECT 1 FROM timescaledb_information.continuous_aggregates a WHERE a.view_name = c.relname) AS cagg,
              json_agg(json_build_object('name', a.attname, 'type', format_type(a.atttypid, a.atttypmod)) ORDER BY a.attnum) AS columns
       FROM pg_class c
       JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
       WHERE c.relname = ANY($1::text[]) AND c.relnamespace = to_regnamespace(current_schema())::oid
       GROUP BY c.relname, c.relkind ORDER BY c.relname`,
      [Object.keys(ALLOWED_RELATIONS)],
    );
    return rows.map((r) => ({
      name: r.name,
      kind: r.cagg ? 'continuous aggregate' : r.kind === 'v' ? 'view' : 'table',
      description: ALLOWED_RELATIONS[r.name] ?? '',
      columns: r.columns,
    }));
  };

  return { run, relations, usesRole: async () => (await analystRole()) !== undefined, refusedFields };
}

/** A database error's position (in the text sent) as a position in the query the client sent. */
function positionInQuery(position: number | undefined, prefix: string, checked: CheckedSql): number | undefined {
  if (position === undefined) return undefined;
  const inStatement = position - prefix.length;
  return inStatement >= 1 && inStatement <= checked.statement.length ? checked.offset + inStatement : undefined;
}
