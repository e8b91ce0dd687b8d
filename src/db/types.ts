// The database seam: the one interface every other module uses, whichever
// adapter (TimescaleDB server through postgres.js, or embedded TimescaleDB) is behind it.
import { ServiceError } from '../internal/errors.ts';
import type { Sql } from './sql.ts';

export type Row = Record<string, unknown>;

/** Something SQL can be sent to: the database itself or an open transaction. */
export interface Queryable {
  /**
   * One statement with `$1`-style parameters; resolves to the rows.
   * Parameters: strings, numbers, booleans, null, Date, Uint8Array (bytea), arrays
   * (cast them: `$1::numeric[]`), and plain objects for jsonb (`$1::jsonb`).
   * Amounts go in and come out as decimal strings (`numeric`, selected `::text`).
   *
   * Or a statement written with its values in place (src/db/sql.ts), without `params`:
   * `db.query(sql\`SELECT … WHERE a = ${value}\`)`.
   */
  query<T extends object = Row>(text: string | Sql, params?: readonly unknown[]): Promise<T[]>;
  /** A script of one or more statements without parameters (migrations, DDL). */
  exec(script: string): Promise<void>;
  /**
   * Bulk-loads rows (arrays in `columns` order, or `EncodedRows` encoded beforehand for those
   * columns): several times faster than INSERT for large batches. A duplicate key fails the
   * statement, unless `ignoreDuplicates` skips the rows already stored (ON CONFLICT DO
   * NOTHING; for encoded rows through a temporary staging table, so a server's role needs the
   * TEMPORARY privilege, which PostgreSQL grants to every role by default). Resolves to the
   * rows stored.
   */
  copyIn(
    table: string,
    columns: readonly string[],
    rows: readonly (readonly unknown[])[] | EncodedRows,
    options?: CopyOptions,
  ): Promise<number>;
}

/** The column types COPY's binary format is written for (src/db/copy-format.ts); a domain counts as its base type. */
export type BinaryColumnType =
  | 'text'
  | 'smallint'
  | 'integer'
  | 'bigint'
  | 'numeric'
  | 'timestamp with time zone'
  | 'bytea'
  | 'jsonb'
  | 'json'
  | 'boolean';

/**
 * Rows already in COPY's binary form (`encodeRows` in src/db/copy-format.ts), made where they
 * were read (the indexer's block worker) so the writer's thread keeps bytes, not objects. The
 * adapter checks `types` against the table's columns before it copies them.
 */
export interface EncodedRows {
  readonly types: readonly BinaryColumnType[];
  readonly count: number;
  /** Whole rows each, without COPY's header and trailer. */
  readonly pieces: readonly Uint8Array[];
}

export const isEncodedRows = (rows: readonly (readonly unknown[])[] | EncodedRows): rows is EncodedRows =>
  !Array.isArray(rows);

export interface ReadOnlyOptions {
  /** A role to run as (`SET LOCAL ROLE`): its grants bound what `fn` can read. */
  role?: string;
  /** A server's statement_timeout for each statement of `fn`, in milliseconds. */
  timeoutMs?: number;
}

/** One column of a statement's result, as the database describes it before running it. */
export interface ResultColumn {
  name: string;
  /** The column's type OID (pg_type.oid). */
  type: number;
}

/** What a read-only transaction can do: statements, and describing one without running it. */
export interface ReadOnlyQueryable extends Pick<Queryable, 'query'> {
  /** The result columns of `text` (parsed and analysed, not run). */
  describe(text: string): Promise<ResultColumn[]>;
}

export interface CopyOptions {
  /** Skip rows whose unique keys are already stored instead of failing. */
  ignoreDuplicates?: boolean;
}

export interface Database extends Queryable {
  readonly kind: 'embedded' | 'server';
  /**
   * Runs `fn` in one transaction: committed when it resolves, rolled back when it throws.
   * Notifications sent inside are delivered only if it commits.
   */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /**
   * Runs `fn` on one session (on a server, a connection of its own, closed after; embedded,
   * the only session), outside any transaction: for work whose session state must last across
   * statements, such as a procedure that commits inside and holds a session lock.
   */
  session<T>(fn: (session: Queryable) => Promise<T>): Promise<T>;
  /**
   * Runs `fn` in a read-only transaction that is always rolled back, so nothing it runs can
   * change the database or the service's session: `SET LOCAL ROLE` to `role` when given, and on
   * a server `SET LOCAL statement_timeout` to `timeoutMs` (the embedded database has no
   * statement timeout: its callers bound a statement's cost before running it). Embedded, it
   * holds the one session, queued with every other statement.
   */
  readOnly<T>(fn: (tx: ReadOnlyQueryable) => Promise<T>, options?: ReadOnlyOptions): Promise<T>;
  /**
   * Subscribes to NOTIFY on `channel`; resolves to an unsubscribe function. `onListen`
   * runs each time the subscription is established, the first time included: after a
   * lost connection is re-established, notifications sent meanwhile are gone, so a
   * listener re-reads what it follows there.
   */
  listen(channel: string, onNotify: (payload: string) => void, onListen?: () => void): Promise<() => Promise<void>>;
  /**
   * Takes a session-level advisory lock, waiting for it unless `wait` is false
   * (then resolves to undefined when another session holds it). The lock is held
   * until `release()` or until this process's connection ends.
   */
  advisoryLock(key: number, opts?: { wait?: boolean; signal?: AbortSignal }): Promise<AdvisoryLock | undefined>;
  close(): Promise<void>;
}

export interface AdvisoryLock {
  /** True once the session holding the lock has ended (the lock is gone with it). */
  readonly lost: boolean;
  release(): Promise<void>;
}

/**
 * SQLSTATEs of a statement or transaction the server gave up, and rolled back whole, for a
 * conflict with another transaction: a deadlock's victim (a read can be one while TimescaleDB
 * compresses the chunk it reads; a migration's DDL against a job the scheduler started), or a
 * serialization failure. Doing the same again is safe.
 */
const CONFLICT_CODES: ReadonlySet<string> = new Set(['40P01', '40001']);
export const isConflictCode = (code: string | undefined) => code !== undefined && CONFLICT_CODES.has(code);

/** Every database failure surfaces as this type, from either adapter. */
export class DatabaseError extends ServiceError {
  /** SQLSTATE when the server sent one (e.g. 23505), otherwise a driver code (ECONNREFUSED). */
  readonly code: string | undefined;
  readonly detail: string | undefined;
  /** True when the database could not be reached at all (as opposed to a failed statement). */
  readonly unavailable: boolean;
  /** Where in the statement's text the error is, in characters from 1, when the server said. */
  readonly position: number | undefined;

  constructor(
    message: string,
    opts: { code?: string; detail?: string; unavailable?: boolean; position?: number; cause?: unknown } = {},
  ) {
    super(message, { cause: opts.cause });
    this.name = 'DatabaseError';
    this.code = opts.code;
    this.detail = opts.detail;
    this.unavailable = opts.unavailable ?? false;
    this.position = opts.position;
  }

  /** The server gave the statement or transaction up for a conflict with another (`isConflictCode`). */
  get conflict(): boolean {
    return isConflictCode(this.code);
  }
}

export { errorPosition, parseInt8 } from './wire-values.mjs';
